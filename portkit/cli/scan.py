"""`portkit scan` and `portkit report`: inventory a CUDA tree and what will not port."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import List, Optional

import typer

from portkit.cli.app import pipeline_command
from portkit.fileio import output_stream
from portkit.pipeline import run_pipeline
from portkit.report import format_for_path, formatter
from portkit.report.data import scan_data
from portkit.settings import RunSettings


def _engine_note(settings: RunSettings) -> None:
    from portkit.parse.clang import find_compile_database, load_cindex, resource_dir

    load_cindex()
    found = find_compile_database(list(settings.paths), settings.compile_database)
    where = f"flags from {found}" if found else "no compile_commands.json found; default flags (CUDA headers, the files' include/ directories)"
    print(f"portkit: clang engine: {where}; clang resource directory: {resource_dir()}", file=sys.stderr)


def run_scan(settings: RunSettings, fmt: str, output: Optional[Path], reports: tuple[Path, ...] = (),
             color: Optional[bool] = None, details: bool = False) -> int:
    """Scan once; print `fmt` (to stdout or `output`) and write each extra report file."""
    render = formatter(fmt, details)
    report_formats = [(path, formatter(format_for_path(path))) for path in reports]
    if settings.engine == "clang":
        _engine_note(settings)
    data = scan_data(run_pipeline(settings, progress=True))
    with output_stream(output) as out:
        render(data, out, color if output is None else False)
    for path, report in report_formats:
        with output_stream(path) as out:
            report(data, out, False)
    return 0


@pipeline_command("Files or directories to scan.")
def scan(
    settings: RunSettings,
    fmt: str = typer.Option("text", "--format", "-f", help="Output format: text, json, md, html or sarif."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write the output to this file."),
    report: List[Path] = typer.Option([], "--report", help="Also write a report; the format follows the extension (.md, .html, .json, .sarif)."),
    color: Optional[bool] = typer.Option(None, "--color/--no-color", help="Force or disable colour (default: when a terminal)."),
    details: bool = typer.Option(False, "--details", "-v", help="Text output: also list every site (file:line), grouped by API."),
) -> None:
    """Inventory the CUDA APIs, kernels and inline asm in PATHS, and what will not port to HIP.

    The text summary fits a screen; --details lists every site, `portkit report` writes the full inventory.
    Honours .gitignore files. Exit code 0 when the scan ran (whatever it found), 2 on bad input.
    """
    raise typer.Exit(run_scan(settings, fmt, output, tuple(report), color, details))


@pipeline_command("Files or directories to scan.")
def report(
    settings: RunSettings,
    fmt: Optional[str] = typer.Option(None, "--format", "-f", help="md, html, json, sarif or text (default: from -o's extension, else md)."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Report file (default: stdout)."),
) -> None:
    """Write a migration report: summary, readiness, effort estimate, per-library tables,
    every site to fix, hazards, build files, GPU architectures and the port checklist."""
    chosen = fmt or (format_for_path(output) if output else "md")
    raise typer.Exit(run_scan(settings, chosen, output, color=False))
