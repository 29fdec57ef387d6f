"""`portkit convert`: parse the options, convert, print what is left to do by hand."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, List, Optional, TextIO

import typer

from portkit.cli.app import Force, NoBackup, UsageError, pipeline_command
from portkit.settings import RunSettings
from portkit.textutil import printable

if TYPE_CHECKING:
    from portkit.convert.project import ConvertOutcome

_VERIFY_STATES = ("pass", "fail", "not verifiable here")


def _print_summary(outcome: ConvertOutcome, out: TextIO) -> None:
    changed = [c for c in outcome.conversions if c.changed]
    markers = outcome.markers()
    out.write(f"portkit convert: {len(outcome.conversions)} files analysed, {len(changed)} changed, "
              f"{sum(c.edits for c in outcome.conversions)} edits, {len(markers)} markers"
              + (f", {outcome.copied} other files copied" if outcome.copied else "") + "\n")
    if markers:
        out.write("Manual work (marked in the output):\n")
        for m in markers:
            out.write(printable(f"  {m.path}:{m.line}: {m.text}") + "\n")
    if outcome.skipped:
        out.write("Not rewritten (an edit overlapped another; port these lines by hand):\n")
        for path, line in outcome.skipped:
            out.write(printable(f"  {path}:{line}") + "\n")
    if outcome.build_notes:
        out.write("Build files, not rewritten:\n")
        for path, note in sorted(outcome.build_notes):
            out.write(printable(f"  {path}:{note.line}: {note.message}") + "\n")
    if outcome.verified:
        counts = {s: sum(1 for v in outcome.verified if v.status == s) for s in _VERIFY_STATES}
        out.write("hipcc: " + ", ".join(f"{n} {s}" for s, n in counts.items()) + "\n")
        for v in outcome.verified:
            out.write(printable(f"  {v.path}: {v.status}" + (f": {v.message}" if v.message else "")) + "\n")


def _check_modes(output: Optional[Path], in_place: bool, diff: bool, verify: bool, verify_flags: list[str]) -> None:
    if sum([output is not None, in_place, diff]) != 1:
        raise UsageError("choose exactly one of -o OUTDIR, --in-place or --diff")
    if verify and diff:
        raise UsageError("--verify compiles written files; it cannot be combined with --diff")
    if verify_flags and not verify:
        raise UsageError("--verify-flag is for --verify; add --verify")


@pipeline_command("CUDA source files or directories.")
def convert(
    settings: RunSettings,
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write the HIP tree here (mirrors the input)."),
    in_place: bool = typer.Option(False, "--in-place", help="Rewrite the sources themselves."),
    no_backup: NoBackup = False,
    diff: bool = typer.Option(False, "--diff", help="Print a unified diff and write nothing."),
    verify: bool = typer.Option(False, "--verify", help="Compile each converted translation unit with hipcc -fsyntax-only: "
                                "every .cu/.hip file, and the C/C++ files convert changed."),
    verify_flag: List[str] = typer.Option(
        [], "--verify-flag", metavar="FLAG",
        help="A hipcc flag for --verify (repeatable): --verify-flag=-Iinclude, --verify-flag=-std=c++14."),
    backend: str = typer.Option("native", "--backend", help="native, or hipify-perl for the text rewrite (portkit adds markers)."),
    hipify_perl: Optional[str] = typer.Option(None, "--hipify-perl", help="Path to hipify-perl (default: on PATH)."),
    roc: bool = typer.Option(False, "--roc", help="Prefer rocRAND/rocBLAS/rocSPARSE... names over hip* where both exist."),
    launch_syntax: str = typer.Option("cuda", "--launch-syntax",
                                      help="cuda keeps <<<>>> (hipcc accepts it); hip writes hipLaunchKernelGGL."),
    no_markers: bool = typer.Option(False, "--no-markers", help="Do not insert '// portkit: ...' marker comments."),
    offload_arch: List[str] = typer.Option(
        [], "--offload-arch", help="AMD GPU target(s) for build files and --verify (default: derived from sm_XX, else gfx90a)."),
    force: Force = False,
) -> None:
    """Convert CUDA sources and build files to HIP.

    Writes to -o OUTDIR (never into, around or over an input; only into an empty
    directory or one portkit wrote, unless --force), rewrites the sources with
    --in-place (FILE.orig, or the first free FILE.orig.N, keeps each original), or
    prints a diff with --diff. Only code tokens change, never comments or
    strings; converting the output again changes nothing. Each partial or unsupported use
    gets a '// portkit: CODE name: advice' marker. Exit 0 done, 1 --verify failures,
    2 bad input or files that could not be written.
    """
    from portkit.convert.output import print_diff
    from portkit.convert.project import ConvertOptions, convert_project

    _check_modes(output, in_place, diff, verify, verify_flag)
    options = ConvertOptions(output=output, in_place=in_place, diff=diff, backup=not no_backup, verify=verify,
                             verify_flags=tuple(verify_flag),
                             backend=backend, hipify_perl=hipify_perl, roc=roc, launch_syntax=launch_syntax,
                             markers=not no_markers, offload_arch=tuple(offload_arch), force=force)
    outcome = convert_project(settings, options, progress=True)
    if diff:
        print_diff(outcome.changes(), sys.stdout)
    _print_summary(outcome, sys.stderr if diff else sys.stdout)
    for note in outcome.notes:
        print(f"portkit: note: {printable(note)}", file=sys.stderr)
    for failure in outcome.failures:
        print(f"portkit: error: {printable(failure)}", file=sys.stderr)
    if outcome.failures:
        raise typer.Exit(2)
    raise typer.Exit(1 if any(v.status == "fail" for v in outcome.verified) else 0)
