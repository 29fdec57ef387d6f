"""Command-line wiring only: each command calls a function that returns an exit code.

Exit codes: 0 ok, 1 findings that block (check) or failures (verify),
2 usage, input, config or rule errors, 3 internal error, 130 interrupted.
"""
from __future__ import annotations

import os
import sys
import traceback
from pathlib import Path
from typing import Annotated, List, Optional

import click
import typer

from portkit import __version__
from portkit.errors import PortkitError

app = typer.Typer(
    name="portkit",
    help="Find what a CUDA code base needs to run on AMD ROCm/HIP, and port it.",
    no_args_is_help=True,
    add_completion=False,
    context_settings={"help_option_names": ["-h", "--help"]},
    pretty_exceptions_enable=False,
)
rules_app = typer.Typer(help="Inspect and validate the rule database.", no_args_is_help=True)
app.add_typer(rules_app, name="rules")

_ROCM_HELP = "Target HIP/ROCm version, e.g. 5.2 or 6.2 ('latest' for the newest). Default: the installed HIP, else latest."
_CUDA_HELP = "CUDA version the sources are written for; names removed by then are reported as removed."
_RULES_HELP = "Extra rule file or directory (repeatable); its entries add to or override the built-in ones."

# Options several commands share, defined once.
Excludes = Annotated[List[str], typer.Option("--exclude", "-x", help="gitignore-style pattern to skip (repeatable).")]
UserRules = Annotated[List[Path], typer.Option("--rules", help=_RULES_HELP)]
RocmVersion = Annotated[Optional[str], typer.Option("--rocm-version", help=_ROCM_HELP)]
CudaVersion = Annotated[Optional[str], typer.Option("--cuda-version", help=_CUDA_HELP)]
Jobs = Annotated[int, typer.Option("--jobs", "-j", min=0, help="Parallel workers (0: every core).")]
NoCache = Annotated[bool, typer.Option("--no-cache", help="Parse every file again instead of reusing cached results.")]
Engine = Annotated[str, typer.Option("--engine", help="tree-sitter (fast, default) or clang (resolves names; needs libclang).")]
CompileDatabase = Annotated[Optional[str], typer.Option(
    "-p", "--compile-commands",
    help="compile_commands.json (or its directory) for --engine clang; default: found in the tree or build/.")]


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"portkit {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: bool = typer.Option(False, "--version", callback=_version_callback, is_eager=True, help="Show the version."),
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks for errors."),
) -> None:
    if debug:
        os.environ["PORTKIT_DEBUG"] = "1"


def _engine(name: str) -> str:
    if name not in ("tree-sitter", "clang"):
        raise typer.BadParameter(f"{name!r}: choose tree-sitter or clang", param_hint="--engine")
    return name


def _split_extensions(value: Optional[str]) -> Optional[tuple[str, ...]]:
    if not value:
        return None
    return tuple(e.strip() for e in value.split(",") if e.strip())


@app.command()
def scan(
    paths: List[str] = typer.Argument(..., help="Files or directories to scan."),
    fmt: str = typer.Option("text", "--format", "-f", help="Output format: text, json, md, html or sarif."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write the output to this file."),
    report: List[Path] = typer.Option([], "--report", help="Also write a report; the format follows the extension (.md, .html, .json, .sarif)."),
    extensions: Optional[str] = typer.Option(
        None, "--extensions", help="Comma-separated source extensions (default .cu,.cuh,.cpp,.cc,.cxx,.c,.h,.hpp,.hh,.inl)."),
    exclude: Excludes = [],
    rules: UserRules = [],
    rocm_version: RocmVersion = None,
    cuda_version: CudaVersion = None,
    jobs: Jobs = 0,
    color: Optional[bool] = typer.Option(None, "--color/--no-color", help="Force or disable colour (default: when a terminal)."),
    no_cache: NoCache = False,
    engine: Engine = "tree-sitter",
    compile_database: CompileDatabase = None,
) -> None:
    """Inventory the CUDA APIs, kernels and inline asm in PATHS, and what will not port to HIP.

    Honours .gitignore files. Exit code 0 when the scan ran (whatever it found), 2 on bad input.
    """
    from portkit.commands.scan import scan as run

    raise typer.Exit(run(paths, fmt, output, _split_extensions(extensions), tuple(exclude), rules,
                         rocm_version, cuda_version, jobs, color, tuple(report), not no_cache, _engine(engine),
                         compile_database))


@app.command()
def report(
    paths: List[str] = typer.Argument(..., help="Files or directories to scan."),
    fmt: Optional[str] = typer.Option(None, "--format", "-f", help="md, html, json, sarif or text (default: from -o's extension, else md)."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Report file (default: stdout)."),
    exclude: Excludes = [],
    rules: UserRules = [],
    rocm_version: RocmVersion = None,
    cuda_version: CudaVersion = None,
    jobs: Jobs = 0,
    engine: Engine = "tree-sitter",
    compile_database: CompileDatabase = None,
) -> None:
    """Write a migration report: summary, readiness, effort estimate, per-library tables,
    every site to fix, hazards, build files, GPU architectures and the port checklist."""
    from portkit.commands.scan import scan as run
    from portkit.report import format_for_path

    chosen = fmt or (format_for_path(output) if output else "md")
    raise typer.Exit(run(paths, chosen, output, None, tuple(exclude), rules, rocm_version, cuda_version, jobs, False,
                         engine=_engine(engine), compile_database=compile_database))


@app.command()
def convert(
    paths: List[str] = typer.Argument(..., help="CUDA source files or directories."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write the HIP tree here (mirrors the input)."),
    in_place: bool = typer.Option(False, "--in-place", help="Rewrite the sources themselves."),
    no_backup: bool = typer.Option(False, "--no-backup", help="With --in-place, keep no FILE.orig backup."),
    diff: bool = typer.Option(False, "--diff", help="Print a unified diff and write nothing."),
    verify: bool = typer.Option(False, "--verify", help="Compile each converted translation unit with hipcc -fsyntax-only."),
    backend: str = typer.Option("native", "--backend", help="native, or hipify-perl for the text rewrite (portkit adds markers)."),
    hipify_perl: Optional[str] = typer.Option(None, "--hipify-perl", help="Path to hipify-perl (default: on PATH)."),
    roc: bool = typer.Option(False, "--roc", help="Prefer rocRAND/rocBLAS/rocSPARSE... names over hip* where both exist."),
    launch_syntax: str = typer.Option("cuda", "--launch-syntax", help="cuda keeps <<<>>> (hipcc accepts it); hip writes hipLaunchKernelGGL."),
    no_markers: bool = typer.Option(False, "--no-markers", help="Do not insert '// portkit: ...' marker comments."),
    offload_arch: List[str] = typer.Option([], "--offload-arch", help="AMD GPU target(s) for build files and --verify (default: derived from sm_XX, else gfx90a)."),
    extensions: Optional[str] = typer.Option(None, "--extensions", help="Comma-separated source extensions."),
    exclude: Excludes = [],
    rules: UserRules = [],
    rocm_version: RocmVersion = None,
    cuda_version: CudaVersion = None,
    jobs: Jobs = 0,
    no_cache: NoCache = False,
    engine: Engine = "tree-sitter",
    compile_database: CompileDatabase = None,
) -> None:
    """Convert CUDA sources and build files to HIP.

    Writes to -o OUTDIR by default (never into the input), rewrites the sources with
    --in-place, or prints a diff with --diff. Only code tokens change, never comments or
    strings; converting the output again changes nothing. Each partial or unsupported use
    gets a '// portkit: CODE name: advice' marker. Exit 0 done, 1 --verify failures,
    2 bad input or files that could not be written.
    """
    from portkit.commands.convert import ConvertRequest, convert as run

    request = ConvertRequest(
        paths=tuple(paths), output=output, in_place=in_place, backup=not no_backup, diff=diff, verify=verify,
        backend=backend, hipify_perl=hipify_perl, roc=roc, launch_syntax=launch_syntax, markers=not no_markers,
        offload_arch=tuple(offload_arch), rocm_version=rocm_version, cuda_version=cuda_version, rules=tuple(rules),
        jobs=jobs, excludes=tuple(exclude), cache=not no_cache, engine=_engine(engine), compile_database=compile_database,
        **({"extensions": _split_extensions(extensions)} if extensions else {}),
    )
    raise typer.Exit(run(request))


@app.command()
def shim(
    paths: List[str] = typer.Argument(..., help="CUDA source files or directories."),
    output: Path = typer.Option(..., "--output", "-o", help="The header to write, e.g. include/portkit_gpu.h."),
    style: str = typer.Option("cuda", "--style", help="cuda: sources keep CUDA names; neutral: sources use gpu* names."),
    sources: Optional[Path] = typer.Option(None, "--sources", help="Write the sources, rewritten to use the header, here."),
    in_place: bool = typer.Option(False, "--in-place", help="Rewrite the sources themselves to use the header."),
    no_backup: bool = typer.Option(False, "--no-backup", help="With --in-place, keep no FILE.orig backup."),
    rules: UserRules = [],
    exclude: Excludes = [],
    jobs: Jobs = 0,
) -> None:
    """Generate a dual-compile header for exactly the CUDA APIs the project uses.

    Under hipcc it includes the HIP/ROCm headers and maps the names (with fallbacks for
    older HIP); otherwise it includes the CUDA headers. Names with no HIP equivalent are
    listed in it with their advice. With --sources or --in-place the sources' CUDA
    includes are replaced by the header (and, in the neutral style, names by gpu* names).
    """
    from portkit.commands.shim import shim as run

    raise typer.Exit(run(paths, output, style, sources, in_place, not no_backup, rules, tuple(exclude), jobs))


@app.command()
def check(
    paths: List[str] = typer.Argument(None, help="Files or directories (default: the project root)."),
    baseline: Optional[Path] = typer.Option(None, "--baseline", "-b", help="Baseline file (default: .portkit-baseline.json if present)."),
    blocking: List[str] = typer.Option([], "--blocking", help="Status that blocks (repeatable; default: unsupported)."),
    diff: Optional[str] = typer.Option(None, "--diff", help="Only findings on lines added since this git ref."),
    rules: UserRules = [],
    rocm_version: RocmVersion = None,
    jobs: Jobs = 0,
    no_cache: NoCache = False,
    engine: Engine = "tree-sitter",
    compile_database: CompileDatabase = None,
) -> None:
    """Fail on new unportable CUDA uses: prints 'path:line:col: CODE message (advice)'.

    A finding blocks when its status is a blocking one (default: unsupported; error-severity
    hazards too) unless the baseline records it or '// portkit: ignore[CODE]' sits on its line
    or the line before. Exit 0 clean, 1 new blocking findings, 2 usage or input errors.
    """
    from portkit.commands.check import check as run

    raise typer.Exit(run(paths or [], baseline, blocking, diff, rules, rocm_version, jobs, not no_cache,
                         _engine(engine), compile_database))


@app.command()
def baseline(
    paths: List[str] = typer.Argument(None, help="Files or directories (default: the project root)."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Baseline file to write (default: .portkit-baseline.json)."),
    rules: UserRules = [],
    rocm_version: RocmVersion = None,
    jobs: Jobs = 0,
) -> None:
    """Record today's findings so that 'portkit check' blocks only new ones."""
    from portkit.commands.check import baseline as run

    raise typer.Exit(run(paths or [], output, rules, rocm_version, jobs))


@rules_app.command("list")
def rules_list(
    library: Optional[str] = typer.Option(None, "--library", "-l", help="Only this library id (e.g. curand)."),
    status: Optional[str] = typer.Option(None, "--status", "-s", help="Only this status."),
    kind: Optional[str] = typer.Option(None, "--kind", "-k", help="Only this kind (function, type, enum, ...)."),
    rules: UserRules = [],
) -> None:
    """List rules, one per line: library, kind, CUDA name, status, HIP name."""
    from portkit.commands.rules import list_rules

    raise typer.Exit(list_rules(library, status, kind, rules))


@rules_app.command("show")
def rules_show(
    name: str = typer.Argument(..., help="A CUDA name, header or link library."),
    rocm_version: RocmVersion = None,
    rules: UserRules = [],
) -> None:
    """Show one rule: mapping, status under the target, notes and versions."""
    from portkit.commands.rules import show_rule

    raise typer.Exit(show_rule(name, rocm_version, rules))


@rules_app.command("stats")
def rules_stats(rules: UserRules = []) -> None:
    """Count rules per library and status."""
    from portkit.commands.rules import stats

    raise typer.Exit(stats(rules))


@rules_app.command("validate")
def rules_validate(files: List[Path] = typer.Argument(..., help="Rule files to check.")) -> None:
    """Check rule files against the schema; exit 2 with the first error."""
    from portkit.commands.rules import validate

    raise typer.Exit(validate(files))


def _click_classes(name: str) -> tuple[type, ...]:
    """click's exception classes, and typer's vendored copies of them (typer >= 0.26 ships its own click)."""
    classes = [getattr(click.exceptions, name)]
    try:
        from typer._click import exceptions as vendored  # type: ignore[import-not-found]

        classes.append(getattr(vendored, name))
    except (ImportError, AttributeError):
        pass
    return tuple(dict.fromkeys(classes))


_CLICK_ERRORS = _click_classes("ClickException")
_CLICK_EXIT = _click_classes("Exit")
_CLICK_ABORT = _click_classes("Abort")


def _fail(message: str, code: int) -> int:
    print(f"portkit: error: {message}", file=sys.stderr)
    return code


def main(argv: Optional[list[str]] = None) -> int:
    """Run the CLI and turn every failure into a one-line message and an exit code."""
    try:
        result = app(args=argv, prog_name="portkit", standalone_mode=False)
    except _CLICK_EXIT as exc:
        return exc.exit_code
    except _CLICK_ERRORS as exc:
        exc.show()
        return 2
    except _CLICK_ABORT:
        return _fail("aborted", 130)
    except KeyboardInterrupt:
        return _fail("interrupted", 130)
    except PortkitError as exc:
        if os.environ.get("PORTKIT_DEBUG"):
            traceback.print_exc()
        return _fail(str(exc), exc.exit_code)
    except BrokenPipeError:
        return 0
    except Exception as exc:  # noqa: BLE001 - the last line of defence: no tracebacks for users
        if os.environ.get("PORTKIT_DEBUG"):
            traceback.print_exc()
        return _fail(f"internal error: {type(exc).__name__}: {exc} (rerun with --debug for the traceback)", 3)
    return result if isinstance(result, int) else 0
