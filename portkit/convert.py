"""Turn one file's findings into HIP source: apply their edits and add markers.

Pure functions over bytes: same input, same output, and converting the output
again changes nothing. Bytes outside the edits (line endings, encoding, BOM,
comments, strings) are kept exactly.
"""
from __future__ import annotations

import bisect
import dataclasses
import re
from typing import Iterable

from portkit.model import Edit, Finding, Span

MARKED_STATUSES = ("partial", "unsupported", "removed", "unavailable")
MARKER_TAG = b"portkit: "
_MARKER_LIMIT = 220


class EditConflict(Exception):
    """Two edits touch the same bytes; the file is left unconverted."""


@dataclasses.dataclass(frozen=True, order=True)
class Marker:
    path: str
    line: int  # 1-based, in the original file
    code: str
    name: str
    text: str


@dataclasses.dataclass(frozen=True)
class FileConversion:
    path: str
    original: bytes
    converted: bytes
    edits: int
    markers: tuple[Marker, ...]
    conflict: str = ""

    @property
    def changed(self) -> bool:
        return self.converted != self.original


def apply_edits(source: bytes, edits: Iterable[Edit]) -> bytes:
    """Apply non-overlapping edits; insertions at one offset keep their given order."""
    ordered = sorted(dict.fromkeys(edits), key=lambda e: (e.span.start, e.span.end))
    pieces: list[bytes] = []
    position = 0
    for edit in ordered:
        if edit.span.start < position:
            raise EditConflict(f"edits overlap at byte {edit.span.start}")
        pieces.append(source[position:edit.span.start])
        pieces.append(edit.replacement)
        position = edit.span.end
    pieces.append(source[position:])
    return b"".join(pieces)


def _marker_text(finding: Finding) -> str:
    text = f"{finding.code} {finding.name}: {finding.advice or finding.message}"
    text = " ".join(text.split()).replace("*/", "* /")
    return text if len(text) <= _MARKER_LIMIT else text[: _MARKER_LIMIT - 3] + "..."


class _Lines:
    def __init__(self, source: bytes):
        self.source = source
        self.starts = [0] + [m.end() for m in re.finditer(rb"\n", source)]

    def index(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset) - 1

    def text(self, index: int) -> bytes:
        end = self.starts[index + 1] if index + 1 < len(self.starts) else len(self.source)
        return self.source[self.starts[index]:end]

    def newline(self, index: int) -> bytes:
        return b"\r\n" if self.text(index).endswith(b"\r\n") else b"\n"

    def continues_macro(self, index: int) -> bool:
        """Whether line `index` is the continuation of a backslash-continued line."""
        return index > 0 and self.text(index - 1).rstrip(b"\r\n").endswith(b"\\")

    def markers_above(self, index: int) -> set[bytes]:
        found = set()
        index -= 1
        while index >= 0:
            stripped = self.text(index).strip()
            if not stripped.startswith(b"// " + MARKER_TAG):
                break
            found.add(stripped)
            index -= 1
        return found


def marker_edits(path: str, source: bytes, findings: Iterable[Finding]) -> tuple[list[Edit], list[Marker]]:
    """A `// portkit: CODE name: advice` line above each line that needs manual work.

    Inside a backslash-continued macro a line comment would swallow the next line,
    so there the marker is a block comment before the token. Markers already
    present are not added again.
    """
    lines = _Lines(source)
    edits: list[Edit] = []
    markers: list[Marker] = []
    seen: set[tuple[int, str]] = set()
    for finding in sorted(findings, key=Finding.sort_key):
        if finding.status not in MARKED_STATUSES or not finding.code.startswith("PK1"):
            continue
        text = _marker_text(finding)
        index = lines.index(finding.span.start)
        if (index, text) in seen:
            continue
        seen.add((index, text))
        markers.append(Marker(path, index + 1, finding.code, finding.name, text))
        if lines.continues_macro(index):
            comment = b"/* " + MARKER_TAG + text.encode() + b" */ "
            if source[max(0, finding.span.start - len(comment)):finding.span.start] != comment:
                edits.append(Edit(Span(finding.span.start, finding.span.start), comment))
            continue
        line = lines.text(index)
        comment = b"// " + MARKER_TAG + text.encode()
        if comment in lines.markers_above(index):
            continue
        indent = line[: len(line) - len(line.lstrip(b" \t"))]
        start = lines.starts[index]
        edits.append(Edit(Span(start, start), indent + comment + lines.newline(index)))
    return edits, markers


def convert_source(path: str, source: bytes, findings: Iterable[Finding], markers: bool = True,
                   rename: bool = True) -> FileConversion:
    """The HIP version of one source file from its findings."""
    findings = list(findings)
    edits = [edit for f in findings for edit in f.edits] if rename else []
    marks: list[Marker] = []
    if markers:
        marker_list, marks = marker_edits(path, source, findings)
        edits = marker_list + edits
    try:
        converted = apply_edits(source, edits)
    except EditConflict as exc:
        return FileConversion(path, source, source, 0, tuple(marks), str(exc))
    return FileConversion(path, source, converted, len(edits), tuple(marks))
