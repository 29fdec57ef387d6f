"""Markers: a `// portkit: CODE name: advice` comment above each line that needs manual work."""
from __future__ import annotations

import dataclasses
from typing import Iterable

from portkit.codes import API_UNKNOWN, ATTENTION_STATUSES, CODES, in_group
from portkit.model import Edit, Finding, Severity, Span
from portkit.parse.lexer import Layout, layout_of
from portkit.textutil import BOM, LineIndex

MARKER_TAG = b"portkit: "
_MARKER_LIMIT = 220


@dataclasses.dataclass(frozen=True, order=True)
class Marker:
    path: str
    line: int  # 1-based, in the original file
    code: str
    name: str
    text: str


def _marker_text(finding: Finding) -> str:
    text = f"{finding.code} {finding.name}: {finding.advice or finding.message}"
    text = " ".join(text.split()).replace("*/", "* /").replace("??/", "?? /")  # ??/ is a backslash trigraph
    text = text if len(text) <= _MARKER_LIMIT else text[: _MARKER_LIMIT - 3] + "..."
    return text.rstrip("\\ ")  # a line comment ending in a backslash would swallow the next line of code


def _continues_macro(lines: LineIndex[bytes], index: int) -> bool:
    """Whether line `index` is the continuation of a backslash-continued line."""
    return index > 0 and lines.line(index - 1).rstrip(b"\r\n").endswith(b"\\")


def _markers_above(lines: LineIndex[bytes], index: int) -> set[bytes]:
    found = set()
    index -= 1
    while index >= 0:
        stripped = lines.line(index).removeprefix(BOM).strip()
        if not stripped.startswith(b"// " + MARKER_TAG):
            break
        found.add(stripped)
        index -= 1
    return found


def _hazard_marked(code: str, above: set[bytes]) -> bool:
    """A hazard's marker names the token as it was (`__ballot_sync`), which convert may have renamed since
    (`__ballot`): one of its code above the line is the same marker."""
    prefix = b"// " + MARKER_TAG + code.encode() + b" "
    return in_group(code, "hazard") and any(marker.startswith(prefix) for marker in above)


def needs_marker(finding: Finding) -> bool:
    """Uses that need manual work; of the names no rule knows, a CUDA header or a plain CUDA name, which convert
    leaves as they are and hipcc will not find. A qualified `thrust::` or `cub::` name, or a `thrust/` header,
    most likely has its twin in rocThrust or hipCUB, which mirror those namespaces and rocThrust Thrust's headers.
    Of the hazards, the errors convert does not fix: code that cannot work on AMD as written (a kernel launched
    from device code, a texture reference, more than 64 KiB of shared memory)."""
    if finding.code == API_UNKNOWN:
        return "::" not in finding.name and not finding.name.startswith("thrust/")
    if in_group(finding.code, "hazard"):
        return finding.severity is Severity.ERROR and finding.fix is None
    return finding.status in ATTENTION_STATUSES and in_group(finding.code, "api")


def may_need_marker(code: str) -> bool:
    """Whether some finding with `code` may need a marker: `needs_marker` read for the code alone."""
    if code == API_UNKNOWN or in_group(code, "api"):
        return True  # a name's own status decides
    return in_group(code, "hazard") and CODES[code].severity is Severity.ERROR


def marker_edits(path: str, source: bytes, findings: Iterable[Finding]) -> tuple[list[Edit], list[Marker]]:
    """The marker insertions for `findings`, and the markers themselves.

    Inside a backslash-continued macro a line comment would swallow the next line,
    and a line that starts inside a raw string or a comment (`)"; call(...)` closing
    a multi-line R"(...)") has no place for one at its start: there the marker is a
    block comment right before the token. Markers already
    present are not added again, so converting twice changes nothing.
    """
    marked = sorted(filter(needs_marker, findings), key=Finding.sort_key)
    if not marked:
        return [], []
    lines = LineIndex(source)
    layout: Layout | None = None
    edits: list[Edit] = []
    markers: list[Marker] = []
    seen: set[tuple[int, str]] = set()
    for finding in marked:
        text = _marker_text(finding)
        index = lines.line_of(finding.span.start)
        if (index, text) in seen:
            continue
        seen.add((index, text))
        markers.append(Marker(path, index + 1, finding.code, finding.name, text))
        if layout is None and not _continues_macro(lines, index):
            layout = layout_of(source)
        if _continues_macro(lines, index) or layout.opaque[lines.starts[index]]:
            comment = b"/* " + MARKER_TAG + text.encode() + b" */ "
            if source[max(0, finding.span.start - len(comment)):finding.span.start] != comment:
                edits.append(Edit(Span(finding.span.start, finding.span.start), comment))
            continue
        line, start = lines.line(index), lines.starts[index]
        comment = b"// " + MARKER_TAG + text.encode()
        above = _markers_above(lines, index)
        if comment in above or _hazard_marked(finding.code, above):
            continue
        if start == 0 and line.startswith(BOM):  # a byte-order mark stays the file's first bytes
            line, start = line[len(BOM):], len(BOM)
        indent = line[: len(line) - len(line.lstrip(b" \t"))]
        newline = b"\r\n" if line.endswith(b"\r\n") else b"\n"
        edits.append(Edit(Span(start, start), indent + comment + newline))
    return edits, markers
