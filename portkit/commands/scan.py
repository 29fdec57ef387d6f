"""`portkit scan`: inventory what a CUDA tree depends on and what will not port."""
from __future__ import annotations

import sys
from pathlib import Path

from portkit.walk import DEFAULT_EXTENSIONS

from portkit.commands.common import load_rules, make_target, output_stream
from portkit.config import load_config
from portkit.report import format_for_path, formatter
from portkit.report.data import scan_data
from portkit.scan import ScanOptions, run_scan


def _engine_notes(paths: list[str], compile_database: str | None) -> None:
    from portkit.clang_engine import find_compile_database, load_cindex, resource_dir

    load_cindex()
    found = find_compile_database(paths, compile_database)
    where = f"flags from {found}" if found else "no compile_commands.json found; default flags (CUDA headers, the files' include/ directories)"
    print(f"portkit: clang engine: {where}; clang resource directory: {resource_dir()}", file=sys.stderr)


def scan(paths: list[str], fmt: str = "text", output: Path | None = None, extensions: tuple[str, ...] | None = None,
         excludes: tuple[str, ...] = (), rules: list[Path] | None = None, rocm_version: str | None = None,
         cuda_version: str | None = None, jobs: int = 0, color: bool | None = None,
         reports: tuple[Path, ...] = (), cache: bool = True, engine: str = "tree-sitter",
         compile_database: str | None = None) -> int:
    """Scan once; print `fmt` (to stdout or `output`) and write each extra report file."""
    render = formatter(fmt)
    report_formats = [(path, formatter(format_for_path(path))) for path in reports]
    config = load_config()
    database = load_rules(list(config.rules) + list(rules or []))
    target = make_target(rocm_version or config.rocm_version, cuda_version or config.cuda_version)
    options = ScanOptions(paths=tuple(paths), excludes=tuple(config.exclude) + tuple(excludes), jobs=jobs,
                          extensions=extensions or config.extensions or DEFAULT_EXTENSIONS, cache=cache, progress=True,
                          engine=engine, compile_database=compile_database)
    if engine == "clang":
        _engine_notes(list(paths), compile_database)
    data = scan_data(run_scan(options, database, target))
    with output_stream(output) as out:
        render(data, out, color if output is None else False)
    for path, report in report_formats:
        with output_stream(path) as out:
            report(data, out, False)
    return 0
