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
from typing import Container, Iterable

from portkit.codes import API_UNKNOWN, GPU_ARCHITECTURE, KERNEL
from portkit.model import Finding

# The findings every report lists one by one: few per file.
LISTED_CODES = frozenset({KERNEL, GPU_ARCHITECTURE})

# Positions in a row: the key, then what the row counts and its first site.
CODE, LIBRARY, NAME, STATUS, SHADOWABLE, COUNT, LINE, COLUMN, HIP, ADVICE = range(10)
Row = list  # [code, library, name, status value or "", shadowable, count, line, column, hip, advice]
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
    if (row[LINE], row[COLUMN]) < (mine[LINE], mine[COLUMN]):
        mine[LINE:] = row[LINE:]


def tally(findings: Iterable[Finding]) -> Tally:
    """One file's findings, counted by kind; each row keeps the hip name and advice of its first site."""
    rows: dict[tuple, Row] = {}
    listed = []
    for finding in findings:
        status = finding.status.value if finding.status else ""
        key = (finding.code, finding.library, finding.name, status, finding.shadowable)
        line, column = finding.position.line, finding.position.column
        if finding.code in LISTED_CODES:
            listed.append([line, column, finding.code, finding.name, finding.shadowable, finding.message, finding.advice])
        _count(rows, key, [*key, 1, line, column, finding.hip, finding.advice])
    return Tally(tuple(rows.values()), tuple(sorted(listed)))


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
