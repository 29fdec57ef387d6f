"""Every file a run reads is an input: an output over a rule file, the config or the compile database is refused."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from safety_kit import CUDA, snapshot, portkit, write

RULE = "library: mine\nentries:\n  - cuda: myCall\n    kind: function\n    hip: hipMyCall\n"


@pytest.mark.parametrize("argv", [
    ["scan", "--rules", "team.yaml", "-o", "team.yaml", "src"],
    ["scan", "-f", "json", "--rules", "team.yaml", "-o", "team.yaml", "src"],
    ["report", "--rules", "team.yaml", "-f", "md", "-o", "./team.yaml", "src"],
    ["baseline", "--rules", "team.yaml", "-o", "team.yaml", "src"],
    ["scan", "-o", "pyproject.toml", "src"],
    ["scan", "--shard", "1/2", "-o", "pyproject.toml", "src"],
    ["baseline", "-o", "pyproject.toml", "src"],
    ["scan", "--engine", "clang", "-p", "compile_commands.json", "-o", "compile_commands.json", "src"],
    ["scan", "--engine", "clang", "-p", ".", "-o", "compile_commands.json", "src"],
    ["scan", "--engine", "clang", "-o", "compile_commands.json", "src"],  # the database found in the tree
    ["scan", "--engine", "clang", "-f", "json", "-o", "./compile_commands.json", "src/k.cu"],
    ["convert", "--rules", "out/team.yaml", "src", "-o", "out"],
], ids=lambda a: " ".join(a))
def test_an_output_over_a_file_the_run_reads_is_refused(argv: list[str], tmp_path: Path) -> None:
    project = tmp_path / "p"  # the cache goes beside it
    _project(project)
    before = snapshot(project)
    run = portkit(argv, tmp_path, cwd=project)
    errors = [line for line in run.err_lines if "error" in line]  # the clang engine prints notes first
    assert run.code == 2 and len(errors) == 1 and "the input" in errors[0], run.err
    assert snapshot(project) == before


def _project(tmp_path: Path) -> None:
    write(tmp_path / "src" / "k.cu", CUDA)
    write(tmp_path / "team.yaml", RULE)
    write(tmp_path / "out" / "team.yaml", RULE)
    write(tmp_path / "pyproject.toml", "[tool.portkit]\nexclude = []\n")
    (tmp_path / ".git").mkdir()
    entry = {"directory": str(tmp_path / "src"), "file": "k.cu", "arguments": ["clang++", "-c", "k.cu"]}
    write(tmp_path / "compile_commands.json", json.dumps([entry]))
