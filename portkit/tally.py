"""Per-file tallies: a file's findings counted by kind, what the summary of a scan needs.

A warm `portkit scan` prints counts, not sites, so it reads each file's tally instead of
its findings: one row per (code, library, name, status, shadowable) with the count and
the first site, plus the few sites every report lists one by one (kernels, GPU
architectures). Project-wide filtering works on rows as it does on findings, because
what it looks at (the name, the code, whether it is shadowable) is part of each row's key.
Rows are plain lists: they go to and from the cache as JSON without conversion.
"""
from __future__ import annotations

import dataclasses
import re
from typing import Container, Iterable

from portkit.codes import API_UNKNOWN, GPU_ARCHITECTURE, KERNEL, Status
from portkit.model import Finding

# The findings every report lists one by one: few per file.
LISTED_CODES = frozenset({KERNEL, GPU_ARCHITECTURE})

# Positions in a row: the key, then what the row counts and its first site, then the sites the effort bills.
CODE, LIBRARY, NAME, STATUS, SHADOWABLE, COUNT, LINE, COLUMN, HIP, ADVICE, BILLED = range(11)
Row = list  # [code, library, name, status value or "", shadowable, count, line, column, hip, advice, billed]
# Positions in a listed site: where, then what it is.
SITE_LINE, SITE_COLUMN, SITE_CODE, SITE_NAME, SITE_SHADOWABLE, SITE_MESSAGE, SITE_ADVICE = range(7)
Site = list  # [line, column, code, name, shadowable, message, advice]


@dataclasses.dataclass(frozen=True)
class Tally:
    rows: tuple[Row, ...] = ()
    listed: tuple[Site, ...] = ()  # in position order

    def __add__(self, other: Tally) -> Tally:
        """Both tallies of one file as one: rows of the same key counted together."""
        rows: dict[tuple, Row] = {}
        for row in self.rows + other.rows:
            _count(rows, tuple(row[:COUNT]), row)
        return Tally(tuple(rows.values()), tuple(sorted(self.listed + other.listed)))

    def pack(self) -> dict[str, list]:
        return {"rows": list(self.rows), "listed": list(self.listed)}

    @classmethod
    def unpack(cls, data: dict[str, list]) -> Tally:
        return cls(tuple(data["rows"]), tuple(data["listed"]))


def _count(rows: dict[tuple, Row], key: tuple, row: Row) -> None:
    """Add `row` to the row of its key: counts summed, the earlier first site kept."""
    mine = rows.get(key)
    if mine is None:
        rows[key] = list(row)
        return
    mine[COUNT] += row[COUNT]
    mine[BILLED] += row[BILLED]
    if (row[LINE], row[COLUMN]) < (mine[LINE], mine[COLUMN]):
        mine[LINE:BILLED] = row[LINE:BILLED]


def tally(findings: Iterable[Finding]) -> Tally:
    """One file's findings, counted by kind; each row keeps the hip name and advice of its first site."""
    rows: dict[tuple, Row] = {}
    listed = []
    findings = list(findings)
    billed = billed_sites(findings)
    for index, finding in enumerate(findings):
        status = finding.status.value if finding.status else ""
        key = (finding.code, finding.library, finding.name, status, finding.shadowable)
        line, column = finding.position.line, finding.position.column
        if finding.code in LISTED_CODES:
            listed.append([line, column, finding.code, finding.name, finding.shadowable, finding.message, finding.advice])
        _count(rows, key, [*key, 1, line, column, finding.hip, finding.advice, int(index in billed)])
    return Tally(tuple(rows.values()), tuple(sorted(listed)))


# The work a status stands for, most first: of the API sites on one line, the effort bills the most.
_WORK = {status: rank for rank, status in enumerate(
    (Status.SUPPORTED, Status.PARTIAL, Status.UNAVAILABLE, Status.REMOVED, Status.UNSUPPORTED))}
_HEADER = re.compile(r"\.(h|hh|hpp|hxx|cuh|inl)$")
HELPER_PREFIX = "portkit_"  # a HIP spelling that is one of portkit's helpers, which convert writes


def billed_sites(findings: list[Finding]) -> set[int]:
    """The API findings (indexes into one file's `findings`) the effort estimate bills: one site is one
    piece of work. Of the names on one line (`cg::reduce(warp, x, cg::plus<float>{})`) only the one with
    the most work; a library's header only in a file that uses none of its names; never a name convert
    spells with one of portkit's helpers (it writes the helper: done)."""
    best: dict[int, int] = {}  # line -> the index billed there
    headers = []
    for index, finding in enumerate(findings):
        if finding.status is None or finding.hip.startswith(HELPER_PREFIX):
            continue
        if _HEADER.search(finding.name):
            headers.append(index)
            continue
        line = finding.position.line
        other = best.get(line)
        if other is None or _WORK[finding.status] > _WORK[findings[other].status]:
            best[line] = index
    used = {findings[index].library for index in best.values()}
    return set(best.values()) | {index for index in headers if findings[index].library not in used}


def dropped(code: str, name: str, shadowable: bool, names: Container[str], declared: Container[str]) -> bool:
    """What only the whole project shows: a name another file defines is the project's own, and a
    name it declares as a variable is no unknown CUDA name."""
    return (shadowable and name in names) or (code == API_UNKNOWN and name in declared)


def project_tally(found: Tally, names: Container[str], declared: Container[str]) -> Tally:
    """A file's tally without what the project's own names drop."""
    return Tally(tuple(r for r in found.rows if not dropped(r[CODE], r[NAME], r[SHADOWABLE], names, declared)),
                 tuple(s for s in found.listed
                       if not dropped(s[SITE_CODE], s[SITE_NAME], s[SITE_SHADOWABLE], names, declared)))


def listed_sites(tallies: dict[str, Tally], code: str) -> list[tuple[str, Site]]:
    """The listed sites of one code with their paths, in report order (path, then position)."""
    return [(path, site) for path in sorted(tallies) for site in tallies[path].listed if site[SITE_CODE] == code]
