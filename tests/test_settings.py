"""One settings object for every command: the config file is honoured the same way by all of them."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from portkit.cli import main
from portkit.settings import resolve_settings

VENDORED = "void v(ncclComm_t c, ncclComm_t* o) { ncclCommShrink(c, nullptr, 0, o, nullptr, 0); }\n"
OWN = "void f(float* p) { cudaFree(p); }\n"
CONFIG = ('[tool.portkit]\nexclude = ["src/third_party/"]\nrocm-version = "5.2"\n'
          'rules = ["team.yaml"]\nextensions = [".cu", ".cuh"]\n')
TEAM_RULES = "library: team\nentries:\n  - {cuda: teamAlloc, kind: function, status: unsupported}\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch) -> Path:
    """A repository whose pyproject.toml excludes src/third_party, targets HIP 5.2 and adds a team rule."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "src" / "third_party").mkdir(parents=True)
    (tmp_path / "src" / "third_party" / "vendored.cu").write_text(VENDORED)
    (tmp_path / "src" / "own.cu").write_text(OWN + "void g() { teamAlloc(); }\n")
    (tmp_path / "src" / "helper.cpp").write_text(OWN)  # not in the configured extensions
    (tmp_path / "pyproject.toml").write_text(CONFIG)
    (tmp_path / "team.yaml").write_text(TEAM_RULES)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_settings_merge_command_line_over_config(project: Path) -> None:
    settings = resolve_settings(["src"], rocm_version="6.2", excludes=["*.cuh"])
    assert settings.target.rocm == (6, 2, 0)
    assert [e.patterns for e in settings.excludes] == [("src/third_party/",), ("*.cuh",)]
    assert settings.excludes[0].root == str(project)
    assert settings.rule_files == (project / "team.yaml",)
    assert settings.extensions == (".cu", ".cuh")
    assert resolve_settings(["src"]).target.rocm == (5, 2, 0)


def test_scan_honours_the_config(project: Path, capsys) -> None:
    assert main(["scan", "-f", "json", "src"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [f["path"] for f in data["files"]] == ["src/own.cu"]
    assert data["target"]["rocm"] == "5.2.0"
    assert {f["name"]: f["code"] for f in data["findings"] if f["library"]} == {"cudaFree": "PK100", "teamAlloc": "PK102"}


def test_report_honours_the_config(project: Path) -> None:
    assert main(["report", "src", "-o", "r.json"]) == 0
    data = json.loads((project / "r.json").read_text())
    assert [f["path"] for f in data["files"]] == ["src/own.cu"]
    assert "teamAlloc" in {f["name"] for f in data["findings"]}


def test_convert_honours_the_config(project: Path, capsys) -> None:
    assert main(["convert", "src", "-o", "out"]) == 0
    assert "ncclCommShrink" not in capsys.readouterr().out
    assert (project / "out" / "own.cu").read_text().startswith("#include <hip/hip_runtime.h>\nvoid f(float* p) { hipFree(p); }")
    assert "portkit: PK102 teamAlloc" in (project / "out" / "own.cu").read_text()
    # Excluded files are not converted, but copied as they are: the converted project still builds with them.
    assert (project / "out" / "third_party" / "vendored.cu").read_text() == VENDORED
    assert (project / "out" / "helper.cpp").read_text() == OWN, "files outside the extensions are copied unchanged"


def test_shim_honours_the_config(project: Path, capsys) -> None:
    (project / "include").mkdir()
    assert main(["shim", "src", "-o", "include/gpu.h"]) == 0
    header = (project / "include" / "gpu.h").read_text()
    assert "cudaFree" in header and "ncclCommShrink" not in header
    assert "teamAlloc" in header, "the team's rule marks it unportable"


def test_check_honours_the_config(project: Path, capsys) -> None:
    assert main(["check", "src"]) == 1
    out = capsys.readouterr().out
    assert "teamAlloc" in out and "ncclCommShrink" not in out
    assert main(["baseline"]) == 0
    assert main(["check"]) == 0


def test_config_patterns_are_anchored_at_the_config_file(project: Path, capsys) -> None:
    """`src/third_party/` means the same directory whether one scans . or src."""
    for paths in (["."], ["src"], ["src/third_party/.."]):
        assert main(["scan", "-f", "json", *paths]) == 0
        files = [f["path"] for f in json.loads(capsys.readouterr().out)["files"]]
        assert not any("third_party" in f for f in files), (paths, files)


@pytest.mark.parametrize("given", [",", "", " , .", "."])
def test_extensions_that_name_none_are_refused(tmp_path: Path, given: str, capsys) -> None:
    """`--extensions ,` was taken as no option at all (the default extensions), silently."""
    (tmp_path / "k.cu").write_text("__global__ void k() {}\n")
    assert main(["scan", str(tmp_path), "--extensions", given]) == 2
    err = capsys.readouterr().err
    assert "none named (give them as .cu,.cuh)" in err and "Traceback" not in err
    assert main(["scan", str(tmp_path), "--extensions", ".cu,"]) == 0  # a trailing comma is no loss
