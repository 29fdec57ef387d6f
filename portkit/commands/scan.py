"""`portkit scan`: inventory what a CUDA tree depends on and what will not port."""
from __future__ import annotations

from pathlib import Path

from portkit.commands.common import load_rules, make_target, output_stream
from portkit.errors import UsageError
from portkit.report import FORMATTERS
from portkit.report.data import scan_data
from portkit.scan import ScanOptions, run_scan


def scan(paths: list[str], fmt: str = "text", output: Path | None = None, extensions: tuple[str, ...] | None = None,
         excludes: tuple[str, ...] = (), rules: list[Path] | None = None, rocm_version: str | None = None,
         cuda_version: str | None = None, jobs: int = 0, color: bool | None = None) -> int:
    if fmt not in FORMATTERS:
        raise UsageError(f"unknown format {fmt!r}; choose one of {', '.join(sorted(FORMATTERS))}")
    database = load_rules(rules)
    target = make_target(rocm_version, cuda_version)
    options = ScanOptions(paths=tuple(paths), excludes=excludes, jobs=jobs,
                          **({"extensions": extensions} if extensions else {}))
    result = run_scan(options, database, target)
    with output_stream(output) as out:
        FORMATTERS[fmt](scan_data(result), out, color if output is None else False)
    return 0
