"""Per-file tallies: a file's findings counted by kind, what the summary of a scan needs.

A warm `portkit scan` prints counts, not sites, so it reads each file's tally instead of
its findings: one row per (code, library, name, status, shadowable) with the count and
the first site, plus the few sites every report lists one by one (kernels, GPU
architectures). Project-wide filtering works on rows as it does on findings, because
what it looks at (the name, the code, whether it is shadowable) is part of each row's key.
Rows and sites are typed records, packed as plain lists for the cache (Tally.pack/unpack).
"""
from __future__ import annotations

import dataclasses
import operator
import re
from typing import Container, Iterable, NamedTuple

from portkit.codes import API_UNKNOWN, GPU_ARCHITECTURE, KERNEL, KERNEL_LAUNCH, Status
from portkit.model import Finding
from portkit.textutil import without_template_arguments

# The findings every report lists one by one: few per file.
LISTED_CODES = frozenset({KERNEL, GPU_ARCHITECTURE})


@dataclasses.dataclass(slots=True)
class Row:
    """One kind of finding in a file: its key, how many, and its first site (with that site's hip and advice).
    Mutable: counting a file's findings adds to it."""

    code: str
    library: str
    name: str
    status: str  # the Status value, or ""
    shadowable: bool
    count: int
    line: int
    column: int
    hip: str
    advice: str
    billed: int  # the sites the effort model bills: one name a line, nothing settled (billed_sites)
    counted: int  # the sites readiness counts: none in code no build for AMD compiles (Finding.off_amd)
    ready: int  # of those, the settled ones (right as written: its own HIP layer maps them), which readiness counts ready
    # of `count`, the launches at a site another finding counted already: a launch through a choice of kernels
    # (auto k = c ? &a : &b) is a finding per kernel it may start, and one launch site
    repeated: int = 0

    def key(self) -> tuple[str, str, str, str, bool]:
        return self.code, self.library, self.name, self.status, self.shadowable

    def __reduce__(self) -> tuple[type[Row], tuple]:
        # Pickled as the constructor's arguments: a slotted dataclass's default state is set field by field,
        # and tallies are half of what the workers send the parent (loading them took 2.4 times as long).
        return Row, _ROW_FIELDS(self)


_ROW_FIELDS = operator.attrgetter(*(field.name for field in dataclasses.fields(Row)))


class Site(NamedTuple):
    """A finding every report lists one by one: where, then what it is."""

    line: int
    column: int
    code: str
    name: str
    shadowable: bool
    message: str
    advice: str


@dataclasses.dataclass(frozen=True)
class Tally:
    rows: tuple[Row, ...] = ()
    listed: tuple[Site, ...] = ()  # in position order

    def __add__(self, other: Tally) -> Tally:
        """Both tallies of one file as one: rows of the same key counted together."""
        rows: dict[tuple, Row] = {}
        for row in self.rows + other.rows:
            _count(rows, dataclasses.replace(row))  # a copy: counting changes it, and these tallies keep theirs
        return Tally(tuple(rows.values()), tuple(sorted(self.listed + other.listed)))

    def pack(self) -> dict[str, list]:
        """Plain lists for the cache's JSON: the one place a row's fields have positions."""
        return {"rows": [dataclasses.astuple(row) for row in self.rows], "listed": [list(site) for site in self.listed]}

    @classmethod
    def unpack(cls, data: dict[str, list]) -> Tally:
        return cls(tuple(Row(*row) for row in data["rows"]), tuple(Site(*site) for site in data["listed"]))


def _count(rows: dict[tuple, Row], row: Row) -> None:
    """Add `row` to the row of its key: counts summed, the earlier first site kept. `row` is the caller's to
    give away (it may become the key's row and be changed): a fresh row is not copied, which was a third of
    counting a 1M-line tree's findings."""
    key = row.key()
    mine = rows.get(key)
    if mine is None:
        rows[key] = row
        return
    mine.count += row.count
    mine.billed += row.billed
    mine.counted += row.counted
    mine.ready += row.ready
    mine.repeated += row.repeated
    if (row.line, row.column) < (mine.line, mine.column):
        mine.line, mine.column, mine.hip, mine.advice = row.line, row.column, row.hip, row.advice


def tally(findings: Iterable[Finding]) -> Tally:
    """One file's findings, counted by kind; each row keeps the hip name and advice of its first site."""
    rows: dict[tuple, Row] = {}
    listed = []
    findings = list(findings)
    billed = billed_sites(findings)
    launch_sites: set[tuple[int, int]] = set()
    for index, finding in enumerate(findings):
        status = finding.status.value if finding.status else ""
        line, column = finding.position.line, finding.position.column
        if finding.code in LISTED_CODES:
            listed.append(Site(line, column, finding.code, finding.name, finding.shadowable, finding.message, finding.advice))
        repeated = 0
        if finding.code == KERNEL_LAUNCH:
            repeated = int((line, column) in launch_sites)
            launch_sites.add((line, column))
        _count(rows, Row(finding.code, finding.library, finding.name, status, finding.shadowable, 1, line, column,
                         finding.hip, finding.advice, int(index in billed and not repeated), int(not finding.off_amd),
                         int(finding.settled and not finding.off_amd), repeated))
    return Tally(tuple(rows.values()), tuple(sorted(listed)))


# The work a status stands for, most first: of the API sites on one line, the effort bills the most.
_WORK = {status: rank for rank, status in enumerate(
    (Status.SUPPORTED, Status.PARTIAL, Status.UNAVAILABLE, Status.REMOVED, Status.UNSUPPORTED))}
_HEADER = re.compile(r"\.(h|hh|hpp|hxx|cuh|inl)$")
HELPER_PREFIX = "portkit_"  # a HIP spelling that is one of portkit's helpers, which convert writes


def billed_sites(findings: list[Finding]) -> set[int]:
    """The findings (indexes into one file's `findings`) the effort estimate bills: one site is one
    piece of work. Of the names on one line (`cg::reduce(warp, x, cg::plus<float>{})`) only the one with
    the most work; a library's header only in a file that uses none of its names; never a name convert
    spells with one of portkit's helpers (it writes the helper: done). Every other finding (an inventory
    code's hours are per finding). Nothing settled: what convert leaves as written on purpose, right as it is
    (the project's own CUDA side beside its HIP branch), is no work."""
    best: dict[int, int] = {}  # line -> the index billed there
    headers = []
    others = set()
    for index, finding in enumerate(findings):
        if finding.settled:
            continue
        if finding.status is None:
            others.add(index)
            continue
        if finding.hip.startswith(HELPER_PREFIX):
            continue
        if _HEADER.search(finding.name):
            headers.append(index)
            continue
        line = finding.position.line
        other = best.get(line)
        if other is None or _WORK[finding.status] > _WORK[findings[other].status]:
            best[line] = index
    used = {findings[index].library for index in best.values()}
    return set(best.values()) | {index for index in headers if findings[index].library not in used} | others


def dropped(code: str, name: str, shadowable: bool, names: Container[str], anywhere: Container[str]) -> bool:
    """What only the whole project shows: a name another file defines, where the file sees it, is the
    project's own; and a name any file defines or declares (`anywhere`) is no unknown CUDA name, even
    where no include shows it (a header using its includer's `cudaCheck` macro), nor is a qualified name
    whose namespace and member the project's files define. A name whose namespace is an alias the project defines
    to a namespace of its own (`namespace cub = mylib::blocks;`, a definition spelled `cub::`), where the file sees
    it, is the project's too: not hipCUB's `cub::f`."""
    return (shadowable and name in names) or (code == API_UNKNOWN and (name in anywhere or _projects(name, anywhere))) \
        or _own_alias(name, names)


def _own_alias(name: str, names: Container[str]) -> bool:
    """Whether the name (`cub::BlockReduce`, or a prefix rule's `cub`) starts with a project alias the file sees."""
    return f"{name.lstrip(':').partition('::')[0]}::" in names


def _projects(qualified: str, anywhere: Container[str]) -> bool:
    """`thrust::global_thread_handle::get_stream` where the project defines a namespace `thrust` of its own (AMGX's
    amgx::thrust, holding its alias global_thread_handle) and a `get_stream`: its name, not an unknown one of Thrust's.
    (An alias's name is expanded where the name is analysed: `cg::x` is cooperative_groups::x.)"""
    if "::" not in qualified:
        return False
    parts = without_template_arguments(qualified).replace(" ", "").lstrip(":").split("::")
    return parts[0] in anywhere and parts[-1] in anywhere


def project_tally(found: Tally, names: Container[str], anywhere: Container[str]) -> Tally:
    """A file's tally without what the project's own names drop."""
    return Tally(tuple(r for r in found.rows if not dropped(r.code, r.name, r.shadowable, names, anywhere)),
                 tuple(s for s in found.listed if not dropped(s.code, s.name, s.shadowable, names, anywhere)))


def listed_sites(tallies: dict[str, Tally], code: str) -> list[tuple[str, Site]]:
    """The listed sites of one code with their paths, in report order (path, then position)."""
    return [(path, site) for path in sorted(tallies) for site in tallies[path].listed if site.code == code]
