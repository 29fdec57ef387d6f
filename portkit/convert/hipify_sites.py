"""The original's places in hipify-perl's output, so that the original's findings mark it.

Markers say what the ORIGINAL asks for: a partial name hipify-perl renamed (`cudaMallocManaged` ->
`hipMallocManaged`) is no CUDA name in its output, so an analysis of the output finds nothing to mark there. Each
finding is moved to what its line became: lines are aligned (hipify-perl rewrites a line in place, and may add or
drop some), then, within a rewritten line, its characters, so a marker goes where the token now starts.
"""
from __future__ import annotations

import dataclasses
import difflib
from typing import Iterable

from portkit.model import Finding, Position, Span
from portkit.textutil import LineIndex


def _aligned(before: list[bytes], after: list[bytes]) -> tuple[list[int], list[int]]:
    """For each line of `before`, the line of `after` it became; for each line of `after`, the one it came from.
    A line dropped goes to the next one kept; a line added comes from the one it stands before."""
    forward, backward = [0] * len(before), [0] * len(after)
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        for i in range(i1, i2):
            forward[i] = j1 + (i - i1) if tag == "equal" or i2 - i1 == j2 - j1 else min(j1 + (i - i1), max(j1, j2 - 1))
        for j in range(j1, j2):
            backward[j] = i1 + (j - j1) if tag == "equal" or i2 - i1 == j2 - j1 else min(i1 + (j - j1), max(i1, i2 - 1))
    last_after, last_before = max(len(after) - 1, 0), max(len(before) - 1, 0)
    return [min(j, last_after) for j in forward], [min(i, last_before) for i in backward]


def _column(before: bytes, after: bytes, column: int) -> int:
    """Where the character at `column` of line `before` is in line `after`: the same character where it was kept,
    else the start of what replaced it."""
    if before == after:
        return column
    for tag, i1, i2, j1, _ in difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes():
        if i1 <= column < i2:
            return j1 + (column - i1) if tag == "equal" else j1
    return len(after.rstrip(b"\r\n"))


@dataclasses.dataclass(frozen=True)
class HipifySites:
    """The original's findings moved into hipify-perl's output, and each output line's original line (for the
    markers' line numbers, which are the original's, as a native conversion's are)."""

    findings: tuple[Finding, ...]
    original_line: tuple[int, ...]  # 0-based, by the output's 0-based line

    def line_in_original(self, line: int) -> int:
        """The original's 1-based line of the output's 1-based `line`."""
        return self.original_line[line - 1] + 1 if 0 < line <= len(self.original_line) else line


def hipify_sites(original: bytes, output: bytes, findings: Iterable[Finding]) -> HipifySites:
    before, after = LineIndex(original), LineIndex(output)
    forward, backward = _aligned([before.line(i) for i in range(len(before))], [after.line(j) for j in range(len(after))])
    moved = []
    for finding in findings:
        index = before.line_of(finding.span.start)
        target = forward[index]
        column = _column(before.line(index), after.line(target), finding.span.start - before.starts[index])
        start = after.starts[target] + column
        moved.append(dataclasses.replace(finding, span=Span(start, start), position=Position(target + 1, column + 1)))
    return HipifySites(tuple(moved), tuple(backward))
