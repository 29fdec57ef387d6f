"""The command line follows click's conventions: usage metavars, choices in help and completion,
documented flags, -V, an example in every command's help, and target versions checked."""
from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from portkit.cli import main
from portkit.cli.app import OUTPUT_FORMATS
from conftest import EXAMPLES, ROOT, parse_portkit

COMMANDS = [["scan"], ["report"], ["convert"], ["check"], ["baseline"], ["shim"], ["merge"],
            ["rules", "list"], ["rules", "show"], ["rules", "stats"], ["rules", "validate"]]
KNOWN = "1.5-1.9, 2.0-2.10, 3.0-3.10, 4.0-4.5, 5.0-5.7, 6.0-6.4, 7.0-7.1 (any patch level), or latest"


def _help(command: list[str], capsys, monkeypatch) -> str:
    monkeypatch.setenv("COLUMNS", "200")  # no wrapping inside a help cell
    assert main([*command, "--help"]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("command, usage", [
    (["scan"], "[OPTIONS] PATHS..."), (["report"], "[OPTIONS] PATHS..."), (["convert"], "[OPTIONS] PATHS..."),
    (["check"], "[OPTIONS] [PATHS...]"), (["baseline"], "[OPTIONS] [PATHS...]"), (["shim"], "[OPTIONS] PATHS..."),
    (["merge"], "[OPTIONS] SHARD.json..."), (["rules", "show"], "[OPTIONS] NAME"),
    (["rules", "validate"], "[OPTIONS] FILES..."), (["rules", "list"], "[OPTIONS]"),
], ids=lambda v: " ".join(v) if isinstance(v, list) else None)
def test_usage_names_arguments_in_capitals(command: list[str], usage: str, capsys, monkeypatch) -> None:
    text = _help(command, capsys, monkeypatch)
    line = next(line.strip() for line in text.splitlines() if "Usage:" in line)
    assert line == f"Usage: portkit {' '.join(command)} {usage}"


CHOICES = [
    (["scan"], "--format", OUTPUT_FORMATS), (["report"], "--format", OUTPUT_FORMATS), (["merge"], "--format", OUTPUT_FORMATS),
    (["scan"], "--engine", ("tree-sitter", "clang")), (["convert"], "--backend", ("native", "hipify-perl")),
    (["convert"], "--launch-syntax", ("cuda", "hip")), (["shim"], "--style", ("cuda", "neutral")),
    (["check"], "--blocking", ("supported", "partial", "unsupported", "removed", "unavailable", "unbuildable")),
    (["rules", "list"], "--status", ("supported", "partial", "unsupported", "removed")),
]


@pytest.mark.parametrize("command, option, values", CHOICES, ids=[f"{' '.join(c)} {o}" for c, o, _ in CHOICES])
def test_choice_options_list_their_choices_in_help_and_completion(
        command: list[str], option: str, values: tuple[str, ...], capsys, monkeypatch) -> None:
    assert "|".join(values) in _help(command, capsys, monkeypatch)
    words = f"portkit {' '.join(command)} {option} "
    env = {**os.environ, "_PORTKIT_COMPLETE": "complete_bash", "COMP_WORDS": words, "COMP_CWORD": str(len(words.split()))}
    done = subprocess.run([sys.executable, "-m", "portkit"], env=env, capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout.split()) == (0, list(values)), done.stderr
    assert main([*command, option, "nonsense", "x"]) == 2
    assert "'nonsense'" in capsys.readouterr().err


def test_choices_match_what_the_library_accepts() -> None:
    from portkit.cli.convert import Backend as BackendChoice, LaunchSyntax as LaunchSyntaxChoice
    from portkit.cli.shim import Style
    from portkit.model import Backend, LaunchSyntax
    from portkit.report import FORMATTERS
    from portkit.shim.header import STYLES

    assert sorted(OUTPUT_FORMATS) == sorted(FORMATTERS)
    assert [tuple(m.value for m in e) for e in (BackendChoice, LaunchSyntaxChoice, Style)] == [
        tuple(m.value for m in Backend), tuple(m.value for m in LaunchSyntax), STYLES]


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_flags_are_documented_and_every_command_has_an_example(command: list[str], capsys, monkeypatch) -> None:
    text = _help(command, capsys, monkeypatch)
    assert "--no-no-" not in text and "--no-force" not in text and "[default: no-" not in text
    for flag in ("--force", "--no-backup"):
        row = next((line for line in text.splitlines() if f" {flag} " in line), None)
        assert row is None or len(row.split(flag, 1)[1].strip(" │")) > 20, row  # the flag has its help beside it
    lines = [line.strip().lstrip("•-").strip() for line in text.split("Examples", 1)[1].splitlines()]
    examples = [line for line in lines if line.startswith("portkit ")]
    assert examples, text
    for example in examples:  # each parses: its options exist and its choices are valid
        args = shlex.split(example, comments=True)[1:]
        assert args[:len(command)] == command
        parse_portkit(args)


def test_version_has_a_short_alias(capsys) -> None:
    from portkit import __version__

    assert main(["-V"]) == 0
    assert capsys.readouterr().out == f"portkit {__version__}\n"


@pytest.mark.parametrize("version", ["9.9", "0", "", "six", "6.2.x"])
def test_unknown_rocm_version_is_exit_2_naming_the_known_ones(version: str, capsys) -> None:
    assert main(["scan", "--rocm-version", version, str(EXAMPLES / "saxpy")]) == 2
    assert capsys.readouterr().err == f"portkit: error: unknown ROCm version {version!r}; known: {KNOWN}\n"


def test_unknown_rocm_version_in_the_config_file_is_refused(tmp_path: Path, capsys, monkeypatch) -> None:
    (tmp_path / ".portkit.toml").write_text('rocm-version = "9.9"\n')
    monkeypatch.chdir(tmp_path)
    assert main(["scan", "."]) == 2
    assert capsys.readouterr().err == f"portkit: error: unknown ROCm version '9.9'; known: {KNOWN}\n"


@pytest.mark.parametrize("version", ["5.2", "6.2.4", "7.0", "latest"])
def test_known_rocm_versions_are_accepted(version: str, capsys) -> None:
    assert main(["scan", "--rocm-version", version, str(EXAMPLES / "saxpy")]) == 0


def _project(root: Path) -> Path:
    for name in ("proj/src/a.cu", "proj/dev/b.cu"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("void f() { cudaDeviceSynchronize(); }\n")
    return root / "proj"


def test_an_exclude_that_matches_nothing_warns_once_with_the_anchoring(tmp_path: Path, capsys, monkeypatch) -> None:
    _project(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["convert", "-x", "proj/dev/", "-x", "src/", "proj", "-o", "out"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err == ["portkit: warning: exclude pattern 'proj/dev/' matched nothing under proj: a pattern is matched against "
                   "the paths below each scanned directory, as in a .gitignore there (with a slash it is anchored at that "
                   "directory, without one it matches at any depth); did you mean 'dev/'?"]
    assert main(["scan", "-x", "dev/", "proj"]) == 0 and capsys.readouterr().err == ""
    assert main(["scan", "-x", "dev/", "proj/src/a.cu"]) == 0 and capsys.readouterr().err == ""  # a file alone: no walk
    # src/ was excluded: copied as it is, not converted; dev/ was converted
    assert (tmp_path / "out" / "src" / "a.cu").read_text() == "void f() { cudaDeviceSynchronize(); }\n"
    assert "hipDeviceSynchronize" in (tmp_path / "out" / "dev" / "b.cu").read_text()


def test_installed_script_shows_help_for_every_command() -> None:
    portkit = [sys.executable, "-m", "portkit"]
    for command in COMMANDS:
        done = subprocess.run([*portkit, *command, "-h"], capture_output=True, text=True, cwd=ROOT, timeout=60)
        assert done.returncode == 0 and "{" not in done.stdout.split("\n\n", 2)[1], done.stdout[:300]


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_every_command_takes_the_colour_options_scan_takes(command: list[str], capsys, monkeypatch) -> None:
    """`portkit convert --no-color` was a usage error while scan and merge took it: one set of options for all."""
    text = _help(command, capsys, monkeypatch)
    assert "--color" in text and "--no-color" in text, text
    required = {"show": ["cudaMalloc"], "validate": ["team.yaml"], "merge": ["shard-1.json"], "stats": [], "list": [],
                "shim": ["src/", "-o", "gpu.h"]}.get(command[-1], ["src/"])
    for flag in ("--color", "--no-color"):
        parse_portkit([*command, flag, *required])


def test_the_colour_options_change_only_a_text_summary(tmp_path: Path, capsys) -> None:
    source = EXAMPLES / "saxpy"
    assert main(["convert", "--no-color", "--rocm-version", "5.2", "--diff", str(source)]) == 0
    plain = capsys.readouterr().out
    assert main(["convert", "--color", "--rocm-version", "5.2", "--diff", str(source)]) == 0
    assert capsys.readouterr().out == plain and "\x1b[" not in plain
    assert main(["report", "--color", "-f", "text", "--rocm-version", "5.2", str(source)]) == 0
    assert "\x1b[" in capsys.readouterr().out
    assert main(["report", "-f", "text", "--rocm-version", "5.2", str(source)]) == 0
    assert "\x1b[" not in capsys.readouterr().out
