"""One row per scanned file: its lines, API sites by status, hazards, hours, and the share of its
CUDA lines that convert mechanically. The CSV format, and the per-file table of the Markdown and
HTML reports, counted from the findings the report data holds (docs/json-schema.md#csv).

A *CUDA line* holds an API site (PK1xx) or a hazard (PK3xx); it converts mechanically when every
such finding on it is a clean rename (`supported`), as hipify-clang's "lines converted" counts.
"""
from __future__ import annotations

import collections
import csv
from typing import Any, TextIO

from portkit.codes import ALL_STATUSES, Status, code_for_status, in_group
from portkit.textutil import printable

STATUSES = tuple(s.value for s in ALL_STATUSES)
CSV_COLUMNS = ("path", "kind", "lines", "api_sites", *STATUSES, "hazards", "hours", "cuda_lines", "mechanical_lines",
               "mechanical_percent")
_CLEAN = code_for_status(Status.SUPPORTED)


class _Counts:
    def __init__(self) -> None:
        self.statuses: collections.Counter = collections.Counter()
        self.hazards = 0
        self.lines: dict[int, bool] = {}  # CUDA line -> whether everything on it converts mechanically

    def add(self, finding: dict[str, Any]) -> None:
        code = finding["code"]
        if finding["status"]:
            self.statuses[finding["status"]] += 1
        hazard = in_group(code, "hazard")
        self.hazards += hazard
        if hazard or in_group(code, "api"):
            self.lines[finding["line"]] = self.lines.get(finding["line"], True) and code == _CLEAN


def file_rows(data: dict[str, Any]) -> list[dict[str, Any]]:
    """Every scanned file, by path; `mechanical_percent` is None for a file without CUDA lines."""
    counts: dict[str, _Counts] = collections.defaultdict(_Counts)
    for finding in data["findings"]:
        counts[finding["path"]].add(finding)
    hours = {row["path"]: row["hours"] for row in data["plan"]["files"]}
    rows = []
    for file in sorted(data["files"], key=lambda f: f["path"]):
        found = counts.get(file["path"]) or _Counts()
        mechanical = sum(found.lines.values())
        rows.append({
            "path": file["path"], "kind": file["kind"], "lines": file["lines"],
            "api_sites": sum(found.statuses.values()), "sites_by_status": {s: found.statuses[s] for s in STATUSES},
            "hazards": found.hazards, "hours": hours.get(file["path"], 0.0),
            "cuda_lines": len(found.lines), "mechanical_lines": mechanical,
            "mechanical_percent": round(100 * mechanical / len(found.lines), 1) if found.lines else None,
        })
    return rows


def render_csv(data: dict[str, Any], out: TextIO, color: bool | None = None) -> None:
    """RFC 4180: a header row, then one row per file; CRLF line ends, fields quoted only when they must be."""
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for row in file_rows(data):
        cells = {**row, **row["sites_by_status"], "path": printable(row["path"])}
        writer.writerow("" if cells[column] is None else cells[column] for column in CSV_COLUMNS)


def work_rows(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The reports' per-file table: the files with hours, CUDA lines or hazards, most hours first."""
    return sorted((row for row in file_rows(data) if row["hours"] or row["cuda_lines"] or row["hazards"]),
                  key=lambda row: (-row["hours"], row["path"]))
