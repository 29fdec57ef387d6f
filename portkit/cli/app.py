"""The typer application and the options several commands share, defined once."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, List, Optional

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


class UsageError(PortkitError):
    """Options that do not go together; the message names the flags."""


_ROCM_HELP = "Target HIP/ROCm version, e.g. 5.2 or 6.2 ('latest' for the newest). Default: the installed HIP, else latest."
_CUDA_HELP = "CUDA version the sources are written for; names removed by then are reported as removed."
_RULES_HELP = "Extra rule file or directory (repeatable); its entries add to or override the built-in ones."

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
Extensions = Annotated[Optional[str], typer.Option(
    "--extensions", help="Comma-separated source extensions (default .cu,.cuh,.cpp,.cc,.cxx,.c,.h,.hpp,.hh,.inl).")]
NoBackup = Annotated[bool, typer.Option("--no-backup", help="With --in-place, keep no FILE.orig backup.")]


def split_extensions(value: Optional[str]) -> tuple[str, ...]:
    return tuple(e.strip() for e in value.split(",") if e.strip()) if value else ()


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
