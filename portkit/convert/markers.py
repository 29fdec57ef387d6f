"""Markers: a `// portkit: CODE name: advice` comment above each line that needs manual work."""
from __future__ import annotations

import bisect
import dataclasses
import re
import sys
from typing import Iterable

from portkit.analyze.inventory import is_version_test
from portkit.analyze.nvidia_side import kept_for_nvidia
from portkit.analyze.unused_headers import COMMENTED_OUT
from portkit.analyze.vendor_layers import for_another_compiler
from portkit.codes import API_UNKNOWN, ATTENTION_STATUSES, UNUSED_HEADER, in_group
from portkit.model import Edit, Finding, Severity, Span
from portkit.parse.lexer import OPAQUE
from portkit.textutil import BOM, LineIndex

MARKER_TAG = b"portkit: "
_LINE_START = b"// " + MARKER_TAG
_BLOCK_START = b"/* " + MARKER_TAG
# A marker already in a file: a line of its own, or a block comment before its token (group 1: its text).
_LINE_MARKER = re.compile(rb"^(?:\xef\xbb\xbf)?[ \t]*// portkit: ([^\r\n]*?)[ \t]*\r?$", re.M)
_BLOCK_MARKER = re.compile(rb"/\* portkit: ((?:(?!\*/)[^\n])*) \*/ ")
_MARKER_LIMIT = 220


@dataclasses.dataclass(frozen=True, order=True)
class Marker:
    path: str
    line: int  # 1-based, in the original file
    code: str
    name: str
    text: str
    written: bool = True  # False: the file has it already (converting converted output writes none)


def _marker_text(finding: Finding) -> str:
    text = f"{finding.code} {finding.name}: {finding.advice or finding.message}"
    text = " ".join(text.split()).replace("*/", "* /").replace("??/", "?? /")  # ??/ is a backslash trigraph
    if len(text) > _MARKER_LIMIT:
        cut = text[: _MARKER_LIMIT - 3]
        space = cut.rfind(" ")
        text = (cut[:space] if space > _MARKER_LIMIT // 2 else cut).rstrip(" ,;:") + "..."  # between words
    return text.rstrip("\\ ")  # a line comment ending in a backslash would swallow the next line of code


def _continues_macro(lines: LineIndex[bytes], index: int) -> bool:
    """Whether line `index` is the continuation of a backslash-continued line."""
    return index > 0 and lines.line(index - 1).rstrip(b"\r\n").endswith(b"\\")


def _markers_above(lines: LineIndex[bytes], index: int) -> dict[bytes, int]:
    """The line markers right above line `index`: each one's text and line."""
    found: dict[bytes, int] = {}
    index -= 1
    while index >= 0:
        stripped = lines.line(index).removeprefix(BOM).strip()
        if not stripped.startswith(_LINE_START):
            break
        found.setdefault(stripped, index)
        index -= 1
    return found


def _hazard_marked(code: str, above: dict[bytes, int]) -> int | None:
    """A hazard's marker names the token as it was (`__ballot_sync`), which convert may have renamed since
    (`__ballot`): one of its code above the line is the same marker. Its key in `above`, if there is one."""
    prefix = _LINE_START + code.encode() + b" "
    return next((key for key in above if key.startswith(prefix)), None) if in_group(code, "hazard") else None


def _block_markers_before(source: bytes, offset: int) -> dict[bytes, int]:
    """The block-comment markers that end right before `offset`, each followed by its one space, with where each
    starts: a token can carry several (a name's and a hazard's), so the one a later pass looks for need not be the
    last."""
    found: dict[bytes, int] = {}
    while source[:offset].endswith(b" */ "):
        start = source.rfind(_BLOCK_START, 0, offset)
        if start < 0 or b"*/" in source[start:offset - len(b" */ ")]:
            break
        found.setdefault(source[start:offset], start)
        offset = start
    return found


def _block_marked(source: bytes, offset: int, comment: bytes, code: str) -> int | None:
    """Where the block-comment marker `comment` (or, for a hazard, one of its code) among those right before
    `offset` starts, if it is there."""
    before = _block_markers_before(source, offset)
    if comment in before:
        return before[comment]
    prefix = _BLOCK_START + code.encode() + b" "
    return next((at for marker, at in before.items() if marker.startswith(prefix)), None) \
        if in_group(code, "hazard") else None


def _unclaimed(path: str, source: bytes, lines: LineIndex[bytes], claimed: set[tuple[str, int]]) -> list[Marker]:
    """The markers the file has that no finding of this pass claimed (`claimed`: ("line", line index) and ("block",
    offset)): those a first convert wrote for a name it renamed since (`__shfl_down_sync`, now `__shfl_down`). They
    are markers already there all the same, each one counted as the first convert counted it, at the line of the
    code it marks."""
    found = []
    for match in _LINE_MARKER.finditer(source):
        index = lines.line_of(match.start())
        if ("line", index) not in claimed and not match.group(1).startswith(COMMENTED_OUT.encode()):
            below = index + 1
            while below < len(lines) and lines.line(below).strip().startswith(_LINE_START):
                below += 1
            found.append(_present(path, min(below, len(lines) - 1) + 1, match.group(1)))
    for match in _BLOCK_MARKER.finditer(source):
        if ("block", match.start()) not in claimed:
            found.append(_present(path, lines.line_of(match.start()) + 1, match.group(1)))
    return found


def _present(path: str, line: int, text: bytes) -> Marker:
    shown = text.decode("utf-8", "replace")
    code, _, rest = shown.partition(" ")
    return Marker(path, line, code, rest.partition(": ")[0], shown, written=False)


# A name in a namespace rocThrust or hipCUB mirrors, none of whose parts names CUDA's backend.
_MIRRORED = re.compile(r"(thrust|cub)::(?!(?:\w+::)*cuda)")


def needs_marker(finding: Finding) -> bool:
    """Uses that need manual work; of the names no rule knows, every one convert leaves as it is and hipcc will not
    find. A qualified `thrust::` or `cub::` name, or a `thrust/` header, most likely has its twin in rocThrust or
    hipCUB, which mirror those namespaces and rocThrust Thrust's headers, unless it names CUDA's backend
    (`thrust::cuda_category`, `thrust::system::cuda::...`: rocThrust's is spelled `hip`).
    Every hazard but an error convert repairs: code that compiles for AMD and then misbehaves must stay visible
    where the code is, even where convert changed it (a 64-bit mask still assumes what the code does with 32
    lanes); a definition HIP already makes, once kept out of the HIP build, asks nothing more. What is settled
    asks nothing either: a name there keeps its marker, which says why its CUDA spelling stays; a hazard or a test
    in the project's CUDA side (a branch hipcc never compiles for AMD) gets none, nor anything in another vendor's
    layer, which convert leaves as written, nor anything in its NVIDIA side (`#ifndef __HIP_PLATFORM_AMD__`), which
    no build for AMD compiles, but a name convert leaves as written there for NVIDIA's library
    (analyze/nvidia_side.py), whose marker says why."""
    if finding.settled and (not in_group(finding.code, "api") or for_another_compiler(finding)) \
            or finding.nvidia_side and not kept_for_nvidia(finding):
        return False
    if finding.code == API_UNKNOWN:
        return not finding.name.startswith("thrust/") and not _MIRRORED.match(finding.name)
    if is_version_test(finding):  # left as written: say which branch AMD now builds
        return True
    if finding.code == UNUSED_HEADER:  # kept for an includer that uses its names: hipcc stops there until that is ported
        return finding.fix is None
    if in_group(finding.code, "hazard"):
        return finding.fix is None or finding.severity is not Severity.ERROR
    return finding.status in ATTENTION_STATUSES and in_group(finding.code, "api")


def may_need_marker(code: str) -> bool:
    """Whether some finding with `code` may need a marker: `needs_marker` read for the code alone."""
    return code in (API_UNKNOWN, UNUSED_HEADER) or in_group(code, "api") or in_group(code, "hazard")


def _wanted(finding: Finding, hazards: bool) -> bool:
    return needs_marker(finding) and (hazards or not in_group(finding.code, "hazard"))


def _site(finding: Finding, index: int, text: str) -> tuple[int, str]:
    """Markers of one line: one per text, and one per hazard code (a hazard's site is its line)."""
    return (index, finding.code) if in_group(finding.code, "hazard") else (index, text)


class _Continued:
    """The comments and literals of a source that go on past a line's end (a block comment, a raw string, a
    backslash-newline), found as far into the source as a marker asks: the lexer's whole per-byte layout
    (parse.lexer.Layout) was most of a convert's marker work in the parent (0.41 of 0.59 s of CPU under
    cProfile, 488 cuda-samples files), a scan of the whole file for them half of what was left."""

    def __init__(self, source: bytes):
        self.matches = OPAQUE.finditer(source)
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.seen = -1  # every comment and literal that starts at or before this offset has been looked at

    def holds(self, offset: int) -> bool:
        """Whether the byte at `offset` lies inside one of them."""
        while self.seen <= offset:
            match = next(self.matches, None)
            if match is None:
                self.seen = sys.maxsize
                break
            self.seen = match.start()
            if b"\n" in match.group():
                self.starts.append(match.start())
                self.ends.append(match.end())
        i = bisect.bisect_right(self.starts, offset) - 1
        return i >= 0 and offset < self.ends[i]


def _inside_literal(continued: _Continued, lines: LineIndex[bytes], index: int) -> bool:
    """Whether line `index` starts inside a raw string, a comment or a literal that goes on from the line above:
    a line comment inserted there would be part of it, or end it early."""
    start = lines.starts[index]
    return start > 0 and continued.holds(start - 1)  # the newline before it: only a continued one holds it


def marker_edits(path: str, source: bytes, findings: Iterable[Finding],
                 hazards: bool = True, unclaimed: bool = True) -> tuple[list[Edit], list[Marker]]:
    """The marker insertions for `findings` (`hazards`: the hazards' too), and the markers themselves.

    Inside a backslash-continued line, or on a line that starts inside a raw string or a comment,
    a line comment would swallow the next line or land in the literal, so there the marker is a
    block comment before the token. Markers already present are not added again, so converting
    twice changes nothing; with `unclaimed`, those no finding asks for any more are listed too (as present), so
    that converting converted output counts every marker the first convert wrote.
    """
    marked = sorted((f for f in findings if _wanted(f, hazards)), key=Finding.sort_key)
    if not marked and not (unclaimed and MARKER_TAG in source):
        return [], []
    lines = LineIndex(source)
    edits: list[Edit] = []
    markers: list[Marker] = []
    seen: set[tuple[int, str]] = set()
    claimed: set[tuple[str, int]] = set()
    continued = _Continued(source)
    for finding in marked:
        text = _marker_text(finding)
        index = lines.line_of(finding.span.start)
        if _site(finding, index, text) in seen:
            continue
        seen.add(_site(finding, index, text))
        marker = Marker(path, index + 1, finding.code, finding.name, text)
        if _continues_macro(lines, index) or _inside_literal(continued, lines, index):
            comment = _BLOCK_START + text.encode() + b" */ "
            at = _block_marked(source, finding.span.start, comment, finding.code)
            if at is None:
                markers.append(marker)
                edits.append(Edit(Span(finding.span.start, finding.span.start), comment))
            else:
                claimed.add(("block", at))
                markers.append(_present(path, index + 1, _BLOCK_MARKER.match(source, at).group(1)))
            continue
        line, start = lines.line(index), lines.starts[index]
        comment = _LINE_START + text.encode()
        above = _markers_above(lines, index)
        key = comment if comment in above else _hazard_marked(finding.code, above)
        if key is not None:  # listed as the file has it: a hazard's under the name it had then
            claimed.add(("line", above[key]))
            markers.append(_present(path, index + 1, key[len(_LINE_START):]))
            continue
        markers.append(marker)
        if start == 0 and line.startswith(BOM):  # a byte-order mark stays the file's first bytes
            line, start = line[len(BOM):], len(BOM)
        indent = line[: len(line) - len(line.lstrip(b" \t"))]
        newline = b"\r\n" if line.endswith(b"\r\n") else b"\n"
        edits.append(Edit(Span(start, start), indent + comment + newline))
    if unclaimed and MARKER_TAG in source:
        markers = sorted(markers + _unclaimed(path, source, lines, claimed), key=lambda m: m.line)
    return edits, markers
