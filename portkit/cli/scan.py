"""`portkit scan` and `portkit report`: inventory a CUDA tree and what will not port."""
from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from portkit.cli.app import pipeline_command
from portkit.fileio import STDOUT, output_stream
from portkit.outpath import refuse_overlap
from portkit.pipeline import run_pipeline
from portkit.report import format_for_path, formatter
from portkit.report.data import scan_data
from portkit.settings import RunSettings


def run_scan(settings: RunSettings, fmt: str, output: Optional[Path], reports: tuple[Path, ...] = (),
             color: Optional[bool] = None, details: bool = False) -> int:
    """Scan once; print `fmt` (to stdout or `output`) and write each extra report file."""
    render = formatter(fmt, details)
    report_formats = [(path, formatter(format_for_path(path))) for path in reports]
    result = run_pipeline(settings, progress=True)
    inputs = [*settings.paths, *result.read_paths()]
    for path in (output, *reports):
        if path is not None and str(path) != STDOUT:
            refuse_overlap(path, inputs, directory=False)  # before anything is written
    data = scan_data(result)
    with output_stream(output) as out:
        render(data, out, color if output is None or str(output) == STDOUT else False)
    for path, report in report_formats:
        with output_stream(path) as out:
            report(data, out, False)
    return 0


@pipeline_command("Files or directories to scan.")
def scan(
    settings: RunSettings,
    fmt: str = typer.Option("text", "--format", "-f", help="Output format: text, json, md, html or sarif."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write the output to this file ('-': stdout)."),
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
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Report file (default and '-': stdout)."),
) -> None:
    """Write a migration report: summary, readiness, effort estimate, per-library tables,
    every site to fix, hazards, build files, GPU architectures and the port checklist."""
    chosen = fmt or (format_for_path(output) if output and str(output) != STDOUT else "md")
    raise typer.Exit(run_scan(settings, chosen, output, color=False))
