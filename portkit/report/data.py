"""The one data structure every output format is rendered from (docs/json-schema.md)."""
from __future__ import annotations

import collections
from typing import Any

from portkit import __version__
from portkit.codes import ALL_STATUSES, API_UNKNOWN, CUDA_BRANCH, DEVICE_FUNCTION, KERNEL, KERNEL_LAUNCH, Status, in_group
from portkit.model import Finding
from portkit.pipeline import ScanResult
from portkit.report.plan import api_hours, plan
from portkit.rules import version_text
from portkit.walk import BUILD_TYPES

SCHEMA_VERSION = 1
INVENTORY_CODES = {KERNEL: "kernels", KERNEL_LAUNCH: "launches", DEVICE_FUNCTION: "device_functions",
                   CUDA_BRANCH: "preprocessor_branches"}


def finding_data(finding: Finding) -> dict[str, Any]:
    return {
        "path": finding.path,
        "line": finding.position.line,
        "column": finding.position.column,
        "code": finding.code,
        "name": finding.name,
        "library": finding.library or None,
        "status": finding.status.value if finding.status else None,
        "severity": finding.severity.value,
        "hip": finding.hip or None,
        "message": finding.message,
        "advice": finding.advice or None,
        "function": finding.function or None,
        "engine": finding.engine,
    }


def _libraries(result: ScanResult) -> list[dict[str, Any]]:
    sites: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    names: dict[str, dict[str, set[str]]] = collections.defaultdict(lambda: collections.defaultdict(set))
    for finding in result.findings:
        if finding.library and finding.status:
            sites[finding.library][finding.status] += 1
            names[finding.library][finding.status].add(finding.name)
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
            "apis_by_status": {s.value: len(names[lib_id][s]) for s in ALL_STATUSES},
            "sites_by_status": {s.value: sites[lib_id][s] for s in ALL_STATUSES},
        })
    return rows


_STATUS_ORDER = {s: i for i, s in enumerate(ALL_STATUSES)}


def _apis(result: ScanResult) -> list[dict[str, Any]]:
    """The dependency inventory: every CUDA name the project uses, once, with its counterpart and uses.

    Sorted by library, then status (clean first), then name. `hip` is what convert writes
    for the target; `roc` the roc* library's spelling where the target has it.
    """
    groups: dict[tuple[str, str, Status], list[Finding]] = collections.defaultdict(list)
    for finding in result.findings:
        if finding.library and finding.status:
            groups[(finding.library, finding.name, finding.status)].append(finding)
    rows = []
    for (library, name, status), found in groups.items():
        rule = result.rules.find(name)
        roc = rule.roc if rule is not None and rule.roc and rule.roc_available(result.target) else ""
        first = found[0]
        rows.append({
            "name": name, "library": library, "kind": rule.kind if rule is not None else None,
            "status": status.value, "code": first.code, "hip": first.hip or None, "roc": roc or None,
            "sites": len(found), "files": sorted({f.path for f in found}), "advice": first.advice or None,
        })
    return sorted(rows, key=lambda r: (r["library"], _STATUS_ORDER[Status(r["status"])], r["name"]))


def _kernels(result: ScanResult) -> list[dict[str, Any]]:
    launches = collections.Counter(f.name for f in result.findings if f.code == KERNEL_LAUNCH)
    return [
        {"name": f.name, "path": f.path, "line": f.position.line, "template": "(template)" in f.message,
         "launches": launches.get(f.name, 0)}
        for f in result.findings if f.code == KERNEL
    ]


def scan_data(result: ScanResult) -> dict[str, Any]:
    data = _scan_data(result)
    data["plan"] = plan(data, result.rules)
    hours = api_hours(data, result.rules)
    for api in data["apis"]:
        api["hours"] = hours[(api["library"], api["name"], api["status"])]
    return data


def _scan_data(result: ScanResult) -> dict[str, Any]:
    findings = result.findings
    status_counts = collections.Counter(f.status for f in findings if f.status)
    code_counts = collections.Counter(f.code for f in findings)
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
            "inline_asm": sum(1 for f in findings if f.library == "ptx"),
            "unknown_names": code_counts.get(API_UNKNOWN, 0),
            "hazards": sum(n for c, n in code_counts.items() if in_group(c, "hazard")),
            "environment": sum(n for c, n in code_counts.items() if in_group(c, "environment")),
            "sites_by_status": {s.value: status_counts.get(s, 0) for s in ALL_STATUSES},
        },
        "libraries": _libraries(result),
        "apis": _apis(result),
        "kernels": _kernels(result),
        "files": [
            {"path": f.path, "kind": f.file_type, "lines": f.lines, "parse_error_line": f.error_line, "encoding": f.encoding}
            for f in result.files
        ],
        "diagnostics": [
            {"path": d.path, "kind": d.reason, "severity": d.severity.value, "message": d.message} for d in result.diagnostics
        ],
        "findings": [finding_data(f) for f in findings],
    }
