"""`portkit convert`: parse the options, convert, print what is left to do by hand."""
from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING, List, Optional, TextIO

import typer

from portkit.cli.app import Force, NoBackup, UsageError, choice, examples, leave_for_exit, pipeline_command
from portkit import model
from portkit.settings import RunSettings
from portkit.textutil import PIPE_WIDTH, counted, cut_column, pipe_width, printable

if TYPE_CHECKING:
    from portkit.convert.markers import Marker
    from portkit.convert.project_conversion import ConvertOutcome

# The command line's choices: the values of portkit.model's enums, which the command hands on.
Backend = choice("Backend", (b.value for b in model.Backend))
LaunchSyntax = choice("LaunchSyntax", (s.value for s in model.LaunchSyntax))
# Up to this many markers, each is listed; more are counted by kind (one row per code and name), so
# that the summary of a big tree fits a screen. --details lists every one.
MARKER_LIST_LIMIT = 20
MARKER_KIND_ROWS = 15
# (header, widest) per column of the table of kinds; 0: the column that takes the rest of the width.
_KIND_COLUMNS = (("markers", 7), ("files", 5), ("code", 5), ("name", 28), ("what to do", 0))


def _width(out: TextIO) -> int:
    return shutil.get_terminal_size((PIPE_WIDTH, 24)).columns if out.isatty() else pipe_width()


def _advice(marker: Marker) -> str:
    return marker.text.removeprefix(f"{marker.code} {marker.name}: ")


def _marker_kinds(markers: list[Marker], out: TextIO) -> None:
    """One row per kind of marker (code and name), the most frequent first."""
    kinds: dict[tuple[str, str], list[Marker]] = {}
    for marker in markers:
        kinds.setdefault((marker.code, marker.name), []).append(marker)
    ordered = sorted(kinds.items(), key=lambda item: (-len(item[1]), item[0]))
    rows = [[str(len(group)), str(len({m.path for m in group})), code, name, _advice(group[0])]
            for (code, name), group in ordered[:MARKER_KIND_ROWS]]
    widths = [min(cap, max(len(header), *(len(r[i]) for r in rows))) for i, (header, cap) in enumerate(_KIND_COLUMNS)]
    widths[-1] = max(_width(out) - 2 - sum(widths[:-1]) - 2 * (len(widths) - 1), len(_KIND_COLUMNS[-1][0]))
    out.write(f"Manual work: {len(markers)} markers in {counted(len({m.path for m in markers}), 'file')}, by kind "
              "(each a '// portkit:' comment; --details lists every one):\n")
    cells = [[header for header, _ in _KIND_COLUMNS], *rows]
    for shown in zip(*(cut_column([printable(row[i]) for row in cells], width) for i, width in enumerate(widths))):
        line = "  ".join(text.rjust(width) if index < 2 else text.ljust(width)
                         for index, (text, width) in enumerate(zip(shown, widths)))
        out.write("  " + line.rstrip() + "\n")
    if len(ordered) > MARKER_KIND_ROWS:
        left = ordered[MARKER_KIND_ROWS:]
        out.write(f"  ... {len(left)} more kinds, {sum(len(group) for _, group in left)} markers\n")


def _print_summary(outcome: ConvertOutcome, out: TextIO, details: bool = False) -> None:
    changed = [c for c in outcome.conversions if c.changed]
    markers = outcome.markers()
    present = sum(not m.written for m in markers)  # a converted tree's own: counted apart, never as written
    out.write(f"portkit convert: {counted(len(outcome.conversions), 'file')} analysed, {len(changed)} changed, "
              f"{counted(sum(c.edits for c in outcome.conversions), 'edit')}"
              + (f" ({outcome.build_edits} of them build-file lines)" if outcome.build_edits else "")
              + f", {counted(len(markers) - present, 'marker')}" + (f" ({present} already there)" if present else "")
              + (f", {counted(len(outcome.build_notes), 'build-file marker')}" if outcome.build_notes else "")
              + (f", {counted(outcome.copied - outcome.excluded, 'other file')} copied" if outcome.copied > outcome.excluded
                 else "")
              + (f", {counted(outcome.excluded, 'excluded file')} copied as they are" if outcome.excluded else "") + "\n")
    if len(markers) > MARKER_LIST_LIMIT and not details:
        _marker_kinds(markers, out)
    elif markers:
        out.write("Manual work (marked in the output; the lines are the input file's):\n")
        for m in markers:
            out.write(printable(f"  {m.path}:{m.line}: {m.text}") + "\n")
    if outcome.skipped:
        out.write("Not rewritten (an edit overlapped another; port these lines by hand):\n")
        for path, line in outcome.skipped:
            out.write(printable(f"  {path}:{line}") + "\n")
    if outcome.build_notes:
        out.write("Build files, marked where they need a hand:\n")
        lines: dict[tuple[str, str, str], list[int]] = {}  # one row a marker text: warp-ctc's CMake wrote one 18 times
        for path, note in sorted(outcome.build_notes):
            lines.setdefault((path, note.code, note.message), []).append(note.input_line)  # the input's, as scan's
        for (path, code, message), numbers in lines.items():
            out.write(printable(f"  {path}:{', '.join(map(str, dict.fromkeys(numbers)))}: {code} {message}") + "\n")
    if outcome.verified:
        _print_verified(outcome, out, details)
    elif outcome.unverified:
        out.write("hipcc: nothing verified (the error below says why)\n")


def _print_verified(outcome: ConvertOutcome, out: TextIO, details: bool) -> None:
    from portkit.convert.hipcc_check import VerifyStatus as S

    # How the summary counts each --verify status, and names it for one unit.
    words = {S.PASS: ("build", "builds"), S.MARKED: ("stop at a marked site (expected)", "stops at a marked site (expected)"),
             S.FAIL: ("fail unmarked", "fails unmarked"), S.NOT_VERIFIABLE: ("not verifiable here", "not verifiable here")}
    counts = {s: sum(1 for v in outcome.verified if v.status is s) for s in words}
    out.write("hipcc: " + ", ".join(f"{counts[s]} {count}" for s, (count, _) in words.items()) + "\n")
    for v in outcome.verified:
        if details or v.status is not S.PASS:  # a unit that compiled needs nothing
            out.write(printable(f"  {v.path}: {words[v.status][1]}" + (f": {v.message}" if v.message else "")) + "\n")
    if counts[S.FAIL]:
        out.write(f"{counts[S.FAIL]} units fail where portkit left no marker: a portkit bug (please report it, with "
                  "the unit's first error above)\n")


def _failed_unmarked(outcome: ConvertOutcome) -> bool:
    """Whether hipcc failed a unit where portkit left no marker: the one --verify failure that exits 1."""
    from portkit.convert.hipcc_check import VerifyStatus

    return any(v.status is VerifyStatus.FAIL for v in outcome.verified)


def _check_modes(output: Optional[Path], in_place: bool, diff: bool, verify: bool, verify_flags: list[str]) -> None:
    if sum([output is not None, in_place, diff]) != 1:
        raise UsageError("choose exactly one of -o OUTDIR, --in-place or --diff")
    if verify and diff:
        raise UsageError("--verify compiles written files; it cannot be combined with --diff")
    if verify_flags and not verify:
        raise UsageError("--verify-flag is for --verify; add --verify")


@pipeline_command("CUDA source files or directories.", examples(
    "portkit convert src/ -o hip-src/", "portkit convert src/ --diff", "portkit convert src/ --in-place",
    "portkit convert src/ -o hip-src/ --verify --verify-flag=-Iinclude"))
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
        help="A hipcc flag for --verify (repeatable): --verify-flag=-Iinclude (the converted tree's), -std=c++14."),
    backend: Backend = typer.Option("native", "--backend", help="native, or hipify-perl for the text rewrite (portkit adds markers)."),
    hipify_perl: Optional[str] = typer.Option(None, "--hipify-perl", help="Path to hipify-perl (default: on PATH)."),
    roc: bool = typer.Option(False, "--roc", help="Prefer rocRAND/rocBLAS/rocSPARSE... names over hip* where both exist."),
    launch_syntax: LaunchSyntax = typer.Option("cuda", "--launch-syntax",
                                               help="cuda keeps <<<>>> (hipcc accepts it); hip writes hipLaunchKernelGGL."),
    no_markers: bool = typer.Option(False, "--no-markers", help="Do not insert '// portkit: ...' marker comments."),
    no_hazard_markers: bool = typer.Option(False, "--no-hazard-markers", help="Mark only the names left to port, "
                                           "not the hazards (PK3xx: warp width, masks...): the report keeps them."),
    offload_arch: List[str] = typer.Option(
        [], "--offload-arch", help="AMD GPU target(s) for build files and --verify (default: derived from sm_XX, else gfx90a)."),
    cmake_hipcc: bool = typer.Option(
        False, "--cmake-hipcc", help="CMake: compile HIP sources as C++ with hipcc (cmake -DCMAKE_CXX_COMPILER=hipcc) "
        "instead of CMake's HIP language, for CMake or ROCm installs where that language fails (Debian 12)."),
    force: Force = False,
    details: bool = typer.Option(False, "--details", "-v", help="List every marker and every --verify result, "
                                 "not only the kinds of marker (when there are more than 20) and the failures."),
) -> None:
    """Convert CUDA sources and build files to HIP.

    Writes to -o OUTDIR (never into, around or over an input; only into an empty directory or
    one portkit wrote, unless --force), rewrites the sources with --in-place (FILE.orig, or the
    first free FILE.orig.N, keeps each original), or prints a diff with --diff. Only code tokens
    change, never comments or strings; converting the output again changes nothing. Each partial
    or unsupported use, and each hazard (not with --no-hazard-markers), gets a '// portkit: CODE
    name: advice' marker; the summary lists them, or counts them by kind past 20 (--details lists
    every one). Exit 0 done, 1 --verify failures where portkit left no marker (a portkit bug), 2 bad input, files
    not written, or not converted (binary, too large: named, copied as is; --exclude one that is no source).
    """
    from portkit.convert.output import print_diff
    from portkit.convert.project_conversion import ConvertOptions, convert_project

    _check_modes(output, in_place, diff, verify, verify_flag)
    options = ConvertOptions(output=output, in_place=in_place, diff=diff, backup=not no_backup, verify=verify,
                             verify_flags=tuple(verify_flag), backend=model.Backend(backend), hipify_perl=hipify_perl, roc=roc,
                             launch_syntax=model.LaunchSyntax(launch_syntax), markers=not no_markers,
                             hazard_markers=not no_hazard_markers, offload_arch=tuple(offload_arch), force=force,
                             cmake_hipcc=cmake_hipcc)
    outcome = convert_project(settings, options, progress=True)
    leave_for_exit(outcome)  # with the scan it acted on
    if diff:
        print_diff(outcome.changes(), sys.stdout)
    _print_summary(outcome, sys.stderr if diff else sys.stdout, details)
    for note in outcome.notes:
        print(f"portkit: note: {printable(note)}", file=sys.stderr)
    for failure in outcome.failures:
        print(f"portkit: error: {printable(failure)}", file=sys.stderr)
    if outcome.failures:
        raise typer.Exit(2)
    raise typer.Exit(1 if _failed_unmarked(outcome) else 0)
