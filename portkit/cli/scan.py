"""`portkit scan` and `portkit report`: inventory a CUDA tree and what will not port."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, List, Optional, Sequence

import typer

from portkit.cli.app import Color, OutputFormat, UsageError, examples, pipeline_command
from portkit.fileio import STDOUT, output_stream
from portkit.outpath import refuse_overlap
from portkit.settings import RunSettings
from portkit.textutil import printable
from portkit.walk import not_analysed

if TYPE_CHECKING:
    from portkit.report import Formatter
# The run, reports and shards are imported where used: every command loads this module.

_SHARD_HELP = ("Scan only part I of N of the files (split by a hash of each path; every part still reads the whole "
               "tree's macros) and write a shard document (JSON) for `portkit merge`: one CI matrix job per part.")


def run_scan(settings: RunSettings, fmt: str, output: Optional[Path], reports: tuple[Path, ...] = (),
             color: Optional[bool] = None, details: bool = False) -> int:
    """Scan once; print `fmt` (to stdout or `output`) and write each extra report file."""
    from portkit.run.project import run_project
    from portkit.run.request import RunRequest
    from portkit.report import format_for_path, formatter
    from portkit.report.data import data_paths, scan_data
    from portkit.report.memo import summary_data

    render = formatter(fmt, details)
    report_formats = [(path, formatter(format_for_path(path))) for path in reports]
    if fmt == "text" and not details and not reports:
        data = summary_data(settings, progress=True)  # counts, not sites: no findings kept, a warm run reads one entry
    else:
        # JSON writes each finding as it comes: read back from the cache file by file, they are never all held.
        streamed = settings.cache and fmt == "json" and all(format_for_path(path) == "json" for path in reports)
        data = scan_data(run_project(settings, RunRequest(progress=True, summary_only=streamed)))
    code = write_data(data, [*settings.inputs(), *data_paths(data)], render, output, report_formats, color)
    return code or unscanned(data)


def unscanned(data: dict[str, Any]) -> int:
    """Each file found but not scanned (binary, too large, unreadable) named on stderr, as convert and check name
    it: convert copies it unconverted and check cannot pass over it, both exit 2 on it. The scan of the rest is
    whole, exit 0; 2 where files were found and none could be scanned (`portkit scan data.cu`, a binary file): a
    script must not read the report of nothing as a clean bill. A tree with no source at all is a scan that found
    nothing: 0."""
    left = [d for d in data["diagnostics"] if not_analysed(d["message"], d["kind"])]
    if data["summary"]["files"] or not left:
        for d in left:
            print(printable(f"portkit: warning: {d['path']}: {d['message']}; not scanned "
                            "(convert and check exit 2 on it; --exclude it if it is no source)"), file=sys.stderr)
        return 0
    more = f" (and {len(left) - 1} more)" if len(left) > 1 else ""
    print(printable(f"portkit: error: nothing was scanned: {left[0]['path']}: {left[0]['message']}{more}"),
          file=sys.stderr)
    return 2


def write_data(data: dict[str, Any], inputs: Sequence[str | Path], render: Formatter, output: Optional[Path],
               report_formats: Sequence[tuple[Path, Formatter]] = (), color: Optional[bool] = None) -> int:
    """Render a finished run's data (a scan's, or merged shards'): `render` to stdout or `output`, and each report."""
    for path in (output, *(path for path, _ in report_formats)):
        if path is not None and str(path) != STDOUT:
            refuse_overlap(path, inputs, directory=False)  # before anything is written
    for path, report in report_formats:  # first: a reader of stdout that goes away (`| head`) must not cost them
        with output_stream(path) as out:
            report(data, out, False)
    with output_stream(output) as out:
        render(data, out, color if output is None or str(output) == STDOUT else False)
    return 0


def run_shard(settings: RunSettings, spec_text: str, fmt: str, output: Optional[Path], reports: tuple[Path, ...],
              details: bool) -> int:
    """Scan part I of N of the files; write its shard document (for `portkit merge`)."""
    from portkit.run.plan import collect_run
    from portkit.run.request import RunRequest
    from portkit.run.shard import parse_spec, shard_document, write_shard

    try:
        spec = parse_spec(spec_text)
    except ValueError as exc:
        raise UsageError(f"--shard {exc}") from None
    if fmt != "text" or reports or details:
        raise UsageError("--shard writes a shard document; give --format, --report and --details to portkit merge")
    collected = collect_run(settings, RunRequest(progress=True, select=spec.holds))
    if output is not None and str(output) != STDOUT:
        refuse_overlap(output, [*settings.inputs(), *(f.path for f in collected.walked)], directory=False)
    write_shard(shard_document(collected, settings, spec), output)
    return 0


@pipeline_command("Files or directories to scan.", examples(
    "portkit scan src/", "portkit scan --rocm-version 6.2 -x 'third_party/' .",
    "portkit scan --format json -o scan.json --report report.html src/",
    "portkit scan --shard 1/4 -o shard-1.json src/   # then: portkit merge shard-*.json"))
def scan(
    settings: RunSettings,
    fmt: OutputFormat = typer.Option("text", "--format", "-f", help="Output format."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write the output to this file ('-': stdout)."),
    report: List[Path] = typer.Option(
        [], "--report", help="Also write a report; the format follows the extension (.md, .html, .json, .sarif, .csv)."),
    color: Color = None,
    details: bool = typer.Option(False, "--details", "-v", help="Text output: also list every site (file:line), grouped by API."),
    shard: Optional[str] = typer.Option(None, "--shard", metavar="I/N", help=_SHARD_HELP),
) -> None:
    """Inventory the CUDA APIs, kernels and inline asm in PATHS, and what will not port to HIP.

    The text summary fits a screen; --details lists every site, `portkit report` writes the full inventory.
    Honours .gitignore files. Exit code 0 when the scan ran (whatever it found), 2 on bad input or when no file found could be
    scanned (binary, unreadable or too large). A file it could not scan among others is named on stderr: convert and
    check exit 2 on it (--exclude it if it is no source).

    For a tree too big for one CI runner, run the scan as a CI matrix: job I of N runs
    `portkit scan --shard I/N -o shard-I.json PATHS`, and one last job runs
    `portkit merge shard-*.json --format sarif` for the report one unsharded scan gives (docs/ci.md).
    """
    if shard is not None:
        raise typer.Exit(run_shard(settings, shard, fmt, output, tuple(report), details))
    raise typer.Exit(run_scan(settings, fmt, output, tuple(report), color, details))


@pipeline_command("Files or directories to scan.", examples(
    "portkit report src/ -o report.html", "portkit report --rocm-version 5.2 src/ > report.md",
    "portkit report -f sarif -o portkit.sarif ."))
def report(
    settings: RunSettings,
    fmt: Optional[OutputFormat] = typer.Option(
        None, "--format", "-f", show_default=False, help="Report format (default: from -o's extension, else md)."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Report file (default and '-': stdout)."),
    color: Color = None,
) -> None:
    """Write a migration report: summary, readiness, effort estimate, per-library tables,
    every site to fix, hazards, build files, GPU architectures and the port checklist."""
    from portkit.report import format_for_path

    chosen = fmt or (format_for_path(output) if output and str(output) != STDOUT else "md")
    raise typer.Exit(run_scan(settings, chosen, output, color=bool(color)))  # a report is a document: colour if asked
