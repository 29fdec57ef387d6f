"""`portkit check` and `portkit baseline`: stop new unportable code, record the old."""
from __future__ import annotations

import os
import sys
from pathlib import Path

from portkit.check import (
    added_lines, decide, fingerprint_all, is_recorded, read_baseline, relative_path, write_baseline,
)
from portkit.commands.common import atomic_write_bytes, load_rules, make_target
from portkit.config import DEFAULT_BASELINE, Config, load_config
from portkit.errors import UsageError
from portkit.rules import EFFECTIVE_STATUSES
from portkit.scan import ScanOptions, ScanResult, run_scan
from portkit.walk import DEFAULT_EXTENSIONS


def _scan(paths: list[str], config: Config, rules: list[Path], rocm_version: str | None, jobs: int,
          cache: bool = True, engine: str = "tree-sitter", compile_database: str | None = None) -> ScanResult:
    database = load_rules(list(config.rules) + rules)
    target = make_target(rocm_version or config.rocm_version, config.cuda_version)
    options = ScanOptions(paths=tuple(paths or [os.path.relpath(config.root)]), extensions=config.extensions or DEFAULT_EXTENSIONS,
                          excludes=config.exclude, jobs=jobs, keep_sources=True, cache=cache, engine=engine,
                          compile_database=compile_database)
    return run_scan(options, database, target)


def _baseline_path(explicit: Path | None, config: Config) -> Path:
    return explicit or config.baseline or config.root / DEFAULT_BASELINE


def baseline(paths: list[str], output: Path | None, rules: list[Path], rocm_version: str | None, jobs: int) -> int:
    config = load_config()
    result = _scan(paths, config, rules, rocm_version, jobs)
    recorded = [f for f in fingerprint_all(result.findings, result.sources, config.root) if is_recorded(f.finding)]
    target = _baseline_path(output, config)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(target, write_baseline(target, recorded))
    except OSError as exc:
        raise UsageError(f"{target}: cannot write: {exc.strerror or exc}") from None
    print(f"portkit baseline: {len(recorded)} findings recorded in {target}")
    return 0


def check(paths: list[str], baseline_file: Path | None, blocking: list[str], diff_ref: str | None,
          rules: list[Path], rocm_version: str | None, jobs: int, cache: bool = True, engine: str = "tree-sitter",
          compile_database: str | None = None) -> int:
    config = load_config()
    levels = tuple(blocking) or config.blocking
    for level in levels:
        if level not in EFFECTIVE_STATUSES:
            raise UsageError(f"--blocking {level!r}: choose from {', '.join(EFFECTIVE_STATUSES)}")
    path = _baseline_path(baseline_file, config)
    if baseline_file is not None and not path.exists():
        raise UsageError(f"{path}: baseline not found")
    entries = read_baseline(path) if path.exists() else []
    result = _scan(paths, config, rules, rocm_version, jobs, cache, engine, compile_database)
    findings = fingerprint_all(result.findings, result.sources, config.root)
    if diff_ref:
        added = added_lines(diff_ref, config.root)
        findings = [f for f in findings if f.finding.position.line in added.get(f.path, ())]
    checked = {relative_path(f.path, config.root) for f in result.files} if paths else None
    verdict = decide(findings, levels, entries, result.suppressions, checked)
    for item in verdict.new:
        f = item.finding
        advice = f" ({f.advice})" if f.advice else ""
        print(f"{f.path}:{f.position.line}:{f.position.column}: {f.code} {f.message}{advice}")
    for entry in verdict.fixed:
        print(f"{entry.path}: baseline entry no longer found ({entry.code} {entry.name}, x{entry.count}): "
              f"regenerate the baseline with 'portkit baseline'", file=sys.stderr)
    print(f"portkit check: {len(verdict.new)} new, {len(verdict.baselined)} baselined, "
          f"{len(verdict.suppressed)} suppressed, {len(verdict.fixed)} fixed; blocking: {', '.join(levels)}", file=sys.stderr)
    return 1 if verdict.new else 0
