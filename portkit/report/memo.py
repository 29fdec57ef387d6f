"""The last text summary of a set of roots, reused while nothing it was made from has changed.

A warm `portkit scan` of an unchanged tree is then a walk, a stat of each file (the stat
index gives each file's SHA-256, hence its cache entry) and one read. The summary is kept
with the fingerprint of the run that made it (portkit's code, the rules, the target, the
options, every file's path and cache entry, the walk's warnings: PlannedRun.fingerprint),
one checksummed entry per set of roots (like the stat index), so the cache holds one per tree.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from portkit.run.plan import plan_run
from portkit.run.project import finish_run
from portkit.run.request import RunRequest
from portkit.report.data import scan_data
from portkit.settings import RunSettings
from portkit.store import cache_root, read_entry, roots_key, write_entry


def _entry(roots: Sequence[str]) -> Path:
    return cache_root() / "summary" / f"{roots_key(roots)}.json"


def summary_data(settings: RunSettings, progress: bool = False) -> dict[str, Any]:
    """The report data of a summary-only run (no "findings"): the kept one when its fingerprint still holds."""
    planned = plan_run(settings, RunRequest(progress=progress, summary_only=True))
    fingerprint = planned.fingerprint()
    if fingerprint is not None:
        kept = read_entry(_entry(settings.paths))
        if isinstance(kept, dict) and kept.get("fingerprint") == fingerprint and isinstance(kept.get("data"), dict):
            planned.save_index()  # files re-read this run (a recent edit) are indexed all the same
            return kept["data"]
    data = scan_data(finish_run(planned.collect()))
    data.pop("findings", None)  # a summary lists no sites
    if fingerprint is not None:
        write_entry(_entry(settings.paths), {"fingerprint": fingerprint, "data": data})
    return data
