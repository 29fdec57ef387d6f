"""Where each finding ends: its span's end as a 1-based line and column, from its file's bytes.

The findings carry byte spans, not end positions; a report that shows regions (SARIF,
the JSON's `end_line`/`end_column`) reads each file with findings once more and turns
the span's end into a line and column. A file that cannot be read again, or that no
longer holds the span where the finding says it starts (changed since the scan, or a
merge on another machine), gives an empty region: the end is the start.
"""
from __future__ import annotations

import os
import stat
from typing import Iterable, Iterator

from portkit.model import Finding, Position
from portkit.walk import TooLarge, read_bytes

# Larger files were skipped by any scan that found something in them; never read more to place an end.
_MAX_READ = 256 << 20


def _source(path: str) -> bytes | None:
    """The file's bytes, from a regular file only (never block on a FIFO that took its place)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        return read_bytes(path, _MAX_READ)
    except (OSError, TooLarge):
        return None


def end_position(data: bytes | None, finding: Finding) -> Position:
    """The position just after the finding's span (SARIF's exclusive end), or its start if the bytes disagree."""
    start, end = finding.span.start, finding.span.end
    line, column = finding.position.line, finding.position.column
    if data is None or not 0 <= start < end <= len(data) or start - data.rfind(b"\n", 0, start) != column:
        return finding.position
    newlines = data.count(b"\n", start, end)
    if not newlines:
        return Position(line, column + end - start)
    return Position(line + newlines, end - data.rfind(b"\n", start, end))


def with_ends(findings: Iterable[Finding]) -> Iterator[tuple[Finding, Position]]:
    """Each finding with its end; each file read once while its findings come one after another."""
    path, data = None, None
    for finding in findings:
        if finding.path != path:
            path, data = finding.path, _source(finding.path)
        yield finding, end_position(data, finding)
