"""The one data structure every output format is rendered from (docs/json-schema.md)."""
from __future__ import annotations

import collections
from typing import Any, Iterable, Iterator

from portkit import __version__
from portkit.codes import ALL_STATUSES, API_UNKNOWN, CUDA_BRANCH, DEVICE_FUNCTION, KERNEL, KERNEL_LAUNCH, in_group
from portkit.model import Finding, Position
from portkit.run.project import ScanResult
from portkit.report.notes import summary_notes
from portkit.report.plan import WARP_PREFIXES, api_hours, plan
from portkit.report.regions import with_ends
from portkit.rules import version_text
from portkit.tally import Row, Tally, listed_sites
from portkit.walk import BUILD_TYPES

SCHEMA_VERSION = 1
INVENTORY_CODES = {KERNEL: "kernels", KERNEL_LAUNCH: "launches", DEVICE_FUNCTION: "device_functions",
                   CUDA_BRANCH: "preprocessor_branches"}


def finding_data(finding: Finding, end: Position) -> dict[str, Any]:
    """A finding as the reports show it; `end` is where its span ends (the column after it)."""
    return {
        "path": finding.path,
        "line": finding.position.line,
        "column": finding.position.column,
        "end_line": end.line,
        "end_column": end.column,
        "code": finding.code,
        "name": finding.name,
        "library": finding.library or None,
        "status": finding.status.value if finding.status else None,
        "severity": finding.severity.value,
        "hip": finding.hip or None,
        "message": finding.message,
        "advice": finding.advice or None,
        "function": finding.function or None,
        "engine": finding.engine.value,
    }


class _Totals:
    """What the summary, libraries, APIs and codes sections count, from every file's tally rows.

    Rows are first grouped by (code, library, name, status): a few hundred groups however many
    files, so the per-row work is one dictionary step and the rest runs per group.
    """

    def __init__(self, tallies: dict[str, Tally]):
        groups: dict[tuple[str, str, str, str], list[tuple[str, Row]]] = {}
        for path in sorted(tallies):
            for row in tallies[path].rows:
                key = (row.code, row.library, row.name, row.status)
                group = groups.get(key)
                if group is None:
                    groups[key] = [(path, row)]
                else:
                    group.append((path, row))
        self.statuses: collections.Counter = collections.Counter()
        self.codes: collections.Counter = collections.Counter()
        self.code_billed: collections.Counter = collections.Counter()  # the sites the effort bills
        self.code_files: dict[str, set[str]] = collections.defaultdict(set)
        self.code_first: dict[str, tuple[str, int, int]] = {}
        self.launches: collections.Counter = collections.Counter()
        self.unknown: set[str] = set()
        self.inline_asm = 0
        self.warp_level = 0  # uses of warp-level intrinsics and warpSize
        # per (library, name, status): sites, files, the first site's (path, line, column, code, hip, advice), the
        # sites the effort bills, those readiness counts, and those of them it counts ready (settled)
        self.apis: dict[tuple[str, str, str], list[Any]] = {}
        for key, group in groups.items():
            self._add(*key, group)

    def _add(self, code: str, library: str, name: str, status: str, group: list[tuple[str, Row]]) -> None:
        count = sum(row.count for _, row in group)
        files = {path for path, _ in group}
        path, row = min(group, key=lambda item: (item[0], item[1].line, item[1].column))
        first = (path, row.line, row.column)
        billed = sum(r.billed for _, r in group)
        counted = sum(r.counted for _, r in group)
        ready = sum(r.ready for _, r in group)
        self.codes[code] += count - sum(r.repeated for _, r in group)  # sites: a launch of either of two kernels is one
        self.code_billed[code] += billed
        self.code_files[code] |= files
        if code not in self.code_first or first < self.code_first[code]:
            self.code_first[code] = first
        if code == KERNEL_LAUNCH:
            self.launches[name] += count
        elif code == API_UNKNOWN:
            self.unknown.add(name)
        if library == "ptx":
            self.inline_asm += count
        if name.startswith(WARP_PREFIXES):
            self.warp_level += count
        if status:
            self.statuses[status] += count
        if not (library and status):
            return
        site = (*first, code, row.hip, row.advice)
        api = self.apis.get((library, name, status))
        if api is None:
            self.apis[(library, name, status)] = [count, files, site, billed, counted, ready]
            return
        api[0] += count
        api[1] |= files
        api[3] += billed
        api[4] += counted
        api[5] += ready
        if site[:4] < api[2][:4]:
            api[2] = site


def _libraries(result: ScanResult, totals: _Totals) -> list[dict[str, Any]]:
    sites: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    names: dict[str, dict[str, set[str]]] = collections.defaultdict(lambda: collections.defaultdict(set))
    for (library, name, status), (count, *_) in totals.apis.items():
        sites[library][status] += count
        names[library][status].add(name)
    rows = []
    for lib_id in sorted(sites):
        library = result.rules.libraries.get(lib_id)
        distinct = set().union(*names[lib_id].values())
        rows.append({
            "id": lib_id,
            "title": library.title if library else lib_id,
            "hip_library": (library.hip_library if library else "") or None,
            "roc_library": (library.roc_library if library else "") or None,
            "apis": len(distinct),
            "sites": sum(sites[lib_id].values()),
            "apis_by_status": {s.value: len(names[lib_id][s.value]) for s in ALL_STATUSES},
            "sites_by_status": {s.value: sites[lib_id][s.value] for s in ALL_STATUSES},
        })
    return rows


_STATUS_ORDER = {s.value: i for i, s in enumerate(ALL_STATUSES)}


def _apis(result: ScanResult, totals: _Totals) -> list[dict[str, Any]]:
    """The dependency inventory: every CUDA name the project uses, once, with its counterpart and uses.

    Sorted by library, then status (clean first), then name. `hip` is what convert writes
    for the target; `roc` the roc* library's spelling where the target has it.
    """
    rows = []
    for (library, name, status), (sites, files, first, billed, counted, ready) in totals.apis.items():
        rule = result.rules.find(name)
        roc = rule.roc if rule is not None and rule.roc and rule.roc_available(result.target) else ""
        rows.append({
            "name": name, "library": library, "kind": rule.kind if rule is not None else None,
            "status": status, "code": first[3], "hip": first[4] or None, "roc": roc or None,
            "sites": sites, "billed": billed, "counted": counted, "ready": ready, "files": sorted(files),
            "advice": first[5] or None,
        })
    return sorted(rows, key=lambda r: (r["library"], _STATUS_ORDER[r["status"]], r["name"]))


def _codes(totals: _Totals) -> list[dict[str, Any]]:
    """Per finding code: how many sites, how many of them the effort bills, in how many files, and the first."""
    return [{"code": code, "sites": count, "billed": totals.code_billed[code], "files": len(totals.code_files[code]),
             "first": {"path": totals.code_first[code][0], "line": totals.code_first[code][1]}}
            for code, count in sorted(totals.codes.items())]


def _kernels(tallies: dict[str, Tally], totals: _Totals) -> list[dict[str, Any]]:
    return [{"name": site.name, "path": path, "line": site.line, "template": "(template)" in site.message,
             "launches": totals.launches.get(site.name, 0)} for path, site in listed_sites(tallies, KERNEL)]


def data_paths(data: dict[str, Any]) -> list[str]:
    """Every file the run looked at, read or not (ScanResult.read_paths): what an output must never overwrite."""
    return [f["path"] for f in data["files"]] + [d["path"] for d in data["diagnostics"]]


def scan_data(result: ScanResult) -> dict[str, Any]:
    """The report data. A summary-only run's "findings" are read back while a report iterates them
    (FindingRows); without a cache to read them from, it has none: only the text summary renders it."""
    tallies = result.file_tallies()
    data = _scan_data(result, tallies)
    data["plan"] = plan(data, result.rules, tallies)
    hours = api_hours(data, result.rules)
    for api in data["apis"]:
        api["hours"] = hours[(api["library"], api["name"], api["status"])]
    if result.sites is not None:
        data["findings"] = FindingRows(result.sites)
    elif not result.summary_only:
        data["findings"] = finding_rows(result.findings)
    return data


def finding_rows(findings: Iterable[Finding]) -> list[dict[str, Any]]:
    return [finding_data(f, end) for f, end in with_ends(findings)]


class FindingRows:
    """A summary-only run's findings as report rows, made while iterated (each pass reads them again)."""

    def __init__(self, findings: Iterable[Finding]):
        self.findings = findings

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return (finding_data(f, end) for f, end in with_ends(self.findings))


def _scan_data(result: ScanResult, tallies: dict[str, Tally]) -> dict[str, Any]:
    totals = _Totals(tallies)
    code_counts = totals.codes
    sources = [f for f in result.files if f.file_type == "source"]
    return {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "portkit", "version": __version__},
        "target": {"rocm": version_text(result.target.rocm), "cuda": version_text(result.target.cuda)},
        "summary": {
            "files": len(result.files),
            "source_files": len(sources),
            "build_files": sum(1 for f in result.files if f.file_type in BUILD_TYPES),
            "other_files": sum(1 for f in result.files if f.file_type != "source" and f.file_type not in BUILD_TYPES),
            "lines": sum(f.lines for f in result.files),
            "files_with_parse_errors": sum(1 for f in sources if f.error_line is not None),
            "files_skipped": sum(1 for d in result.diagnostics if d.reason in ("skipped", "unreadable", "too-large")),
            "files_not_utf8": sum(1 for f in sources if f.encoding != "utf-8"),
            **{key: code_counts.get(code, 0) for code, key in INVENTORY_CODES.items()},
            "inline_asm": totals.inline_asm,
            "warp_level_sites": totals.warp_level,
            "unknown_names": code_counts.get(API_UNKNOWN, 0),
            "hazards": sum(n for c, n in code_counts.items() if in_group(c, "hazard")),
            "environment": sum(n for c, n in code_counts.items() if in_group(c, "environment")),
            "sites_by_status": {s.value: totals.statuses.get(s.value, 0) for s in ALL_STATUSES},
        },
        "notes": summary_notes(result.files, result.rules, result.target),
        "libraries": _libraries(result, totals),
        "apis": _apis(result, totals),
        "codes": _codes(totals),
        "unknown_names": sorted(totals.unknown),
        "kernels": _kernels(tallies, totals),
        "files": [
            {"path": f.path, "kind": f.file_type, "lines": f.lines, "parse_error_line": f.error_line, "encoding": f.encoding}
            for f in result.files
        ],
        "diagnostics": [
            {"path": d.path, "kind": d.reason, "severity": d.severity.value, "message": d.message} for d in result.diagnostics
        ],
    }
