"""`portkit check` and `portkit baseline`: stop new unportable code, record the old."""
from __future__ import annotations

import dataclasses
import os
import sys
from pathlib import Path
from typing import List, Optional

import typer

from portkit.cli.app import UsageError, choice, examples, pipeline_command
from portkit.codes import BLOCKING_CHOICES
from portkit.settings import RunSettings, with_blocking
from portkit.textutil import printable
from portkit.walk import unknown_kind


Blocking = choice("Blocking", BLOCKING_CHOICES)


@pipeline_command("Files or directories (default: the project root).", examples(
    "portkit check", "portkit check --diff origin/main src/", "portkit check --blocking unsupported --blocking removed src/"),
    required=False)
def check(
    settings: RunSettings,
    baseline: Optional[Path] = typer.Option(None, "--baseline", "-b", help="Baseline file (default: .portkit-baseline.json if present)."),
    blocking: List[Blocking] = typer.Option([], "--blocking", show_default=False, help="Status that blocks, or "
                                            "'unbuildable' (repeatable; default: unsupported, unbuildable)."),
    diff: Optional[str] = typer.Option(None, "--diff", help="Only findings on lines added since this git ref."),
    allow_unanalysed: bool = typer.Option(
        False, "--allow-unanalysed",
        help="Pass even when some files could not be analysed (binary-looking, too large, unreadable); "
             "they are still listed. Without it such a file fails the check (exit 2)."),
) -> None:
    """Fail on new unportable CUDA uses: prints 'path:line:col: CODE message (advice)'.

    A finding blocks when its status is a blocking one (default: unsupported, and 'unbuildable':
    what hipcc cannot build even after 'portkit convert', such as inline PTX; error-severity hazards
    too) unless the baseline records it or '// portkit: ignore[CODE]' sits on its line or the line
    before. Exit 0 clean, 1 new blocking findings, 2 usage or input errors,
    or files it could not analyse.
    """
    from portkit.check.gitdiff import is_revision
    from portkit.check.messages import block_line, how_to_accept, twins_note
    from portkit.check.project import run_check

    settings = with_blocking(settings, blocking)
    # pre-commit names every staged C, C++ and CUDA file (.ipp, .mm too): one the walk would not read in a directory
    # is left out with a note, not an error that stops the commit (other commands refuse it).
    unknown = {path: problem for path in settings.paths if os.path.isfile(path)
               and (problem := unknown_kind(path, settings.extensions))}
    for path, problem in unknown.items():
        print(printable(f"portkit check: {path}: {problem}; not checked"), file=sys.stderr)
    if unknown and len(unknown) == len(settings.paths):
        raise typer.Exit(0)
    settings = dataclasses.replace(settings, paths=tuple(p for p in settings.paths if p not in unknown))
    if diff is not None and Path(diff).exists() and not is_revision(diff, Path.cwd()):
        raise UsageError(f"--diff takes a git revision; {printable(diff)} is a path: did you mean "
                         f"'portkit check --diff HEAD {printable(diff)}'?")
    verdict = run_check(settings, baseline, diff, partial=settings.named_paths)
    for item in verdict.new:
        print(printable(block_line(item.finding, settings.blocking) + twins_note(item, verdict)))
    if verdict.new:
        print(printable(how_to_accept(verdict.new)), file=sys.stderr)
    for entry in verdict.fixed:
        print(printable(f"{entry.path}: baseline entry no longer found ({entry.code} {entry.name}, x{entry.count}): ")
              + "regenerate the baseline with 'portkit baseline'", file=sys.stderr)
    for problem in verdict.unanalysed:
        print(printable(f"portkit check: {problem}; not analysed") + ("" if allow_unanalysed else
              ", so the check cannot pass (--allow-unanalysed passes anyway)"), file=sys.stderr)
    unanalysed = f", {len(verdict.unanalysed)} not analysed" if verdict.unanalysed else ""
    print(f"portkit check: {len(verdict.new)} new, {len(verdict.baselined)} baselined, "
          f"{len(verdict.suppressed)} suppressed, {len(verdict.fixed)} fixed{unanalysed}; "
          f"blocking: {', '.join(settings.blocking)}", file=sys.stderr)
    raise typer.Exit(2 if verdict.unanalysed and not allow_unanalysed else 1 if verdict.new else 0)


@pipeline_command("Files or directories (default: the project root).", examples(
    "portkit baseline", "portkit baseline src/ -o ci/portkit-baseline.json"), required=False)
def baseline(
    settings: RunSettings,
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Baseline file to write (default: .portkit-baseline.json)."),
) -> None:
    """Record today's findings so that 'portkit check' blocks only new ones."""
    from portkit.check.project import record_baseline

    target, count, blocking = record_baseline(settings, output)
    # check counts only the blocking ones as baselined: say so, or 658 recorded and 367 baselined look like a loss
    print(f"portkit baseline: {count} findings recorded in {printable(target)}; {blocking} of them block today "
          f"(blocking: {', '.join(settings.blocking)}) and 'portkit check' counts those as baselined")
    raise typer.Exit(0)
