"""The typer application and the options several commands share, defined once."""
from __future__ import annotations

import enum
import functools
import inspect
import os
from pathlib import Path
from typing import Annotated, Any, Callable, Iterable, List, Optional

import typer
from typer.core import TyperCommand

from portkit import __version__
from portkit.errors import PortkitError
from portkit.settings import ENGINES, RunSettings, resolve_settings
from portkit.walk import DEFAULT_EXTENSIONS


class Command(TyperCommand):
    """A command whose usage line follows click's convention whatever typer's version:
    `portkit scan [OPTIONS] PATHS...` (typer 0.2x would write `{paths}...`)."""

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if param.param_type_name == "argument":
                name = param.metavar or (param.name or "").upper() + ("..." if param.nargs != 1 else "")
                pieces.append(name if param.required else f"[{name}]")
        return pieces


def examples(*lines: str) -> str:
    """A command's epilog: its examples, one command line each, as a Markdown list: one paragraph per line, the
    only shape every typer version (0.12 joins a paragraph's lines) shows one line per example."""
    return "**Examples**\n\n" + "\n\n".join(f"- `{line}`" for line in lines)


def choice(name: str, values: Iterable[str]) -> type[enum.Enum]:
    """An option's choices as an enum: typer turns it into a click Choice, so the help lists the values
    ([a|b]), shell completion offers them and anything else is a usage error. Commands get the
    member; `plain` gives its value."""
    return enum.Enum(name, [(value, value) for value in values])  # type: ignore[return-value]


def plain(value: Any) -> Any:
    """An option's value with each choice member (or list of them) as its string."""
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, list):
        return [plain(item) for item in value]
    return value


# The renderers register in portkit.report (which loads rich); the command line names them without
# importing it. tests/test_cli_help.py checks that these lists match the registries.
OUTPUT_FORMATS = ("text", "json", "md", "markdown", "html", "sarif", "csv")  # markdown: md, as .markdown is
OutputFormat = choice("OutputFormat", OUTPUT_FORMATS)
Engine = choice("Engine", ENGINES)

app = typer.Typer(
    name="portkit",
    help="Find what a CUDA code base needs to run on AMD ROCm/HIP, and port it.",
    no_args_is_help=True,
    add_completion=True,
    context_settings={"help_option_names": ["-h", "--help"]},
    pretty_exceptions_enable=False,
    rich_markup_mode="markdown",
)
rules_app = typer.Typer(help="Inspect and validate the rule database.", no_args_is_help=True, rich_markup_mode="markdown")
app.add_typer(rules_app, name="rules")


# What a command made that only the process's end needs: `run` ends the process with os._exit, and freeing
# a convert's results one object at a time took 0.01 s. None (in-process callers, tests): freed as usual.
_left_for_exit: list[object] | None = None


def end_process_after() -> None:
    """Called by `run`: the process ends when the command does (portkit/cli/__init__.py)."""
    global _left_for_exit
    _left_for_exit = []


def leave_for_exit(*objects: object) -> None:
    """Keep `objects` for the process's end to free, when `run` ends it."""
    if _left_for_exit is not None:
        _left_for_exit.extend(objects)


class UsageError(PortkitError):
    """Options that do not go together; the message names the flags."""


_ROCM_HELP = "Target HIP/ROCm version, e.g. 5.2 or 6.2 ('latest' for the newest). Default: the installed HIP, else latest."
_CUDA_HELP = ("CUDA version the sources are written for: names CUDA removed by then are reported as removed, those it "
              "removed later as their HIP mapping says (default: the newest CUDA; cuDNN's removals follow its own releases).")
_RULES_HELP = "Extra rule file or directory (repeatable); its entries add to or override the built-in ones."
_EXTENSIONS_HELP = f"Comma-separated source extensions (default {','.join(DEFAULT_EXTENSIONS)})."
_EXCLUDE_HELP = "gitignore-style pattern of paths not to scan or rewrite (repeatable); convert copies them as they are."
_ENGINE_HELP = "tree-sitter (fast) or clang (resolves names; needs libclang)."
_DATABASE_HELP = "compile_commands.json (or its directory) for --engine clang; default: found in the tree or build/."

# Flags without a --no- twin (typer would add one to a bare bool), their default not shown ("False" says nothing).
NoBackup = Annotated[bool, typer.Option("--no-backup", show_default=False,
                                        help="With --in-place, keep no FILE.orig backup (default: keep one).")]
Force = Annotated[bool, typer.Option("--force", show_default=False,
                                     help="Write into a non-empty directory portkit did not write, and with "
                                     "--in-place rewrite read-only, hard-linked or other users' files.")]
# Every command takes the colour options scan takes; one whose output has no colour (all but a text summary's)
# accepts them and prints as it always does, so one command line's options serve them all.
Color = Annotated[Optional[bool], typer.Option("--color/--no-color", show_default=False,
                                               help="Force or disable colour (default: on a terminal, unless NO_COLOR is set).")]
_SIZE_HELP = "Skip files larger than this (e.g. 16M, 512K; default 16M): each costs up to ~200 bytes of memory per byte."

# The options every command that runs the pipeline takes; each becomes a RunSettings value
# (over the config file's, over the default). name -> (annotated type, default).
_RUN_OPTIONS: dict[str, tuple[Any, Any]] = {
    "extensions": (Annotated[Optional[str], typer.Option("--extensions", help=_EXTENSIONS_HELP)], None),
    "exclude": (Annotated[List[str], typer.Option("--exclude", "-x", help=_EXCLUDE_HELP)], []),
    "rules": (Annotated[List[Path], typer.Option("--rules", help=_RULES_HELP)], []),
    "rocm_version": (Annotated[Optional[str], typer.Option("--rocm-version", help=_ROCM_HELP)], None),
    "cuda_version": (Annotated[Optional[str], typer.Option("--cuda-version", help=_CUDA_HELP)], None),
    "jobs": (Annotated[int, typer.Option("--jobs", "-j", min=0, help="Parallel workers (0: every core; never more than the cores).")], 0),
    "no_cache": (Annotated[bool, typer.Option("--no-cache", help="Parse every file again instead of reusing cached results.")],
                 False),
    "engine": (Annotated[Engine, typer.Option("--engine", help=_ENGINE_HELP)], "tree-sitter"),
    "compile_database": (Annotated[Optional[str], typer.Option("-p", "--compile-commands", help=_DATABASE_HELP)], None),
    "max_file_size": (Annotated[Optional[str], typer.Option("--max-file-size", help=_SIZE_HELP)], None),
}
UserRules = _RUN_OPTIONS["rules"][0]
RocmVersion = _RUN_OPTIONS["rocm_version"][0]


def _settings(paths: Iterable[str], values: dict[str, Any]) -> RunSettings:
    extensions = values.get("extensions")
    return resolve_settings(
        paths, extensions=tuple(e.strip() for e in extensions.split(",")) if extensions is not None else (),
        excludes=values.get("exclude", ()), rule_files=values.get("rules", ()), rocm_version=values.get("rocm_version"),
        cuda_version=values.get("cuda_version"), jobs=values.get("jobs", 0), cache=not values.get("no_cache", False),
        engine=values.get("engine", "tree-sitter"), compile_database=values.get("compile_database"),
        max_file_size=values.get("max_file_size"),
    )


def pipeline_command(paths_help: str, epilog: str, *, required: bool = True,
                     without: tuple[str, ...] = ()) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register a command that runs the pipeline: it takes PATHS and the shared run options
    (all but `without`), and receives `settings`, built from them in one place, and its own
    options with choice members as their strings; and --color/--no-color, which it receives
    only where it declares `color` (`Color`). `epilog`: its examples.

    The options are added to the signature typer reads; the command itself declares
    `settings: RunSettings` and its own options.
    """
    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        added = {name: option for name, option in _RUN_OPTIONS.items() if name not in without}
        signature = inspect.signature(command, eval_str=True)  # typer reads no string annotation's Annotated
        own = [p for p in signature.parameters.values() if p.name != "settings"]
        paths = inspect.Parameter("paths", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=List[str],
                                  default=typer.Argument(... if required else None, metavar="PATHS...", help=paths_help))
        extra = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation)
                 for name, (annotation, default) in added.items()]
        colored = "color" in signature.parameters
        if not colored:  # a command whose output has no colour takes the options all the same
            extra.append(inspect.Parameter("color", inspect.Parameter.KEYWORD_ONLY, default=None, annotation=Color))

        @functools.wraps(command)
        def wrapper(**values: Any) -> Any:
            values = {name: plain(value) for name, value in values.items()}
            run_values = {name: values.pop(name) for name in added}
            if not colored:
                values.pop("color")
            return command(settings=_settings(values.pop("paths") or (), run_values), **values)

        wrapper.__signature__ = signature.replace(parameters=[paths] + own + extra)  # type: ignore[attr-defined]
        return app.command(command.__name__, cls=Command, epilog=epilog)(wrapper)
    return decorate


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"portkit {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: bool = typer.Option(False, "--version", "-V", callback=_version_callback, is_eager=True,
                                 help="Show the version and exit."),
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks for errors."),
) -> None:
    if debug:
        os.environ["PORTKIT_DEBUG"] = "1"
