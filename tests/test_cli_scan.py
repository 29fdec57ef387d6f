"""`portkit scan` end to end: through main(argv) and the installed console script."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from portkit.cli import main
from conftest import EXAMPLES


def scan_json(*args: str) -> dict:
    portkit = shutil.which("portkit")
    assert portkit, "the portkit console script must be installed (pip install .)"
    out = subprocess.run([portkit, "scan", "--format", "json", "--rocm-version", "5.2", *args],
                         check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def test_saxpy_ports_cleanly() -> None:
    data = scan_json(str(EXAMPLES / "saxpy"))
    s = data["summary"]
    assert (s["source_files"], s["build_files"], s["kernels"], s["launches"], s["inline_asm"]) == (1, 1, 1, 1, 0)
    assert s["sites_by_status"] == {"supported": 25, "partial": 0, "unsupported": 0, "removed": 0, "unavailable": 0}
    assert [lib["id"] for lib in data["libraries"]] == ["cuda-runtime"]
    runtime = data["libraries"][0]
    assert (runtime["apis"], runtime["sites"]) == (17, 25)
    assert s["unknown_names"] == 0


def test_option_pricer_inventory() -> None:
    data = scan_json(str(EXAMPLES / "option-pricer"))
    s = data["summary"]
    assert (s["source_files"], s["build_files"], s["kernels"], s["launches"], s["device_functions"]) == (7, 1, 6, 6, 2)
    assert (s["inline_asm"], s["preprocessor_branches"], s["unknown_names"]) == (1, 1, 0)
    libraries = {lib["id"]: lib for lib in data["libraries"]}
    assert set(libraries) == {"cuda-runtime", "cuda-device", "curand", "cusolver", "cublas", "nccl", "ptx",
                              "cooperative-groups", "nvtx", "thrust"}
    assert (libraries["thrust"]["apis"], libraries["thrust"]["sites"]) == (9, 11)
    assert (libraries["nvtx"]["apis"], libraries["nvtx"]["sites"]) == (4, 4)
    assert (libraries["nccl"]["apis"], libraries["nccl"]["sites"]) == (13, 13)
    assert (libraries["curand"]["apis"], libraries["curand"]["sites"]) == (15, 15)
    assert (libraries["cusolver"]["apis"], libraries["cusolver"]["sites"]) == (11, 13)
    attention = sorted((f["name"], f["status"], Path(f["path"]).name, f["line"]) for f in data["findings"]
                       if f["status"] not in (None, "supported"))
    assert attention == [
        ("%laneid", "partial", "reduce.cuh", 9),
        ("__CUDA_ARCH__", "partial", "paths.cu", 36),
        ("__CUDA_ARCH__", "partial", "paths.cu", 36),
        ("__ballot_sync", "unavailable", "reduce.cuh", 35),
        ("__shfl_down_sync", "unavailable", "reduce.cuh", 15),
        ("cooperative_groups.h", "partial", "stats.cu", 3),
        ("cooperative_groups::thread_block_tile", "partial", "stats.cu", 16),
        ("cooperative_groups::tiled_partition", "partial", "stats.cu", 16),
    ]


def test_newer_rocm_makes_sync_intrinsics_available() -> None:
    data = scan_json("--rocm-version", "6.2", str(EXAMPLES / "option-pricer" / "src" / "reduce.cuh"))
    statuses = {f["name"]: f["status"] for f in data["findings"]
                if f["name"] in ("__shfl_down_sync", "__ballot_sync") and f["code"].startswith("PK1")}
    assert statuses == {"__shfl_down_sync": "partial", "__ballot_sync": "partial"}


def test_text_output_lists_attention_items(capsys, monkeypatch) -> None:
    monkeypatch.chdir(EXAMPLES)
    assert main(["scan", "--rocm-version", "5.2", "--no-color", "option-pricer"]) == 0
    out = capsys.readouterr().out
    assert "Needs attention (8 sites)" in out
    assert "reduce.cuh:15" in out and "__shfl_down_sync" in out
    assert "block_sum_kernel <template>" in out


def test_output_file_is_written(tmp_path: Path) -> None:
    target = tmp_path / "scan.json"
    assert main(["scan", "-f", "json", "-o", str(target), str(EXAMPLES / "saxpy")]) == 0
    assert json.loads(target.read_text())["schema_version"] == 1


@pytest.mark.parametrize("argv, message", [
    (["scan", "/no/such/dir"], "portkit: error: /no/such/dir: no such file or directory"),
    (["scan", "--format", "xml", "."], "portkit: error: unknown format 'xml'; choose one of html, json, md, sarif, text"),
    (["scan", "--rocm-version", "six", "."], "portkit: error: not a version: 'six'; give a version like 6.2 or 5.2.0"),
    (["scan", "--rules", "/no/rules.yaml", "."], "portkit: error: /no/rules.yaml: no such rule file or directory"),
])
def test_bad_input_is_one_line_and_exit_2(argv: list[str], message: str, capsys) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.strip() == message


def test_malformed_user_rules(tmp_path: Path, capsys) -> None:
    rules = tmp_path / "r.yaml"
    rules.write_text("library: r\nentries:\n  - {cuda: x, kind: nonsense}\n")
    assert main(["scan", "--rules", str(rules), str(EXAMPLES / "saxpy")]) == 2
    assert capsys.readouterr().err.strip() == f"portkit: error: {rules}: entry 1 (x): key 'kind': 'nonsense' is not one of function, type, enum, macro, header, link, intrinsic, asm"


def test_empty_tree_says_so(tmp_path: Path, capsys) -> None:
    assert main(["scan", "--no-color", str(tmp_path)]) == 0
    assert "No CUDA/C++ sources found." in capsys.readouterr().out


def test_bad_files_are_reported_not_fatal(tmp_path: Path) -> None:
    (tmp_path / "bin.cu").write_bytes(b"\x00\x01\x02binary")
    (tmp_path / "latin.cu").write_bytes(b"// r\xe9sum\xe9\nvoid f() { cudaFree(0); }\n")
    (tmp_path / "broken.cu").write_text("void f( { cudaMalloc(0, 1);\n")
    data = scan_json(str(tmp_path))
    s = data["summary"]
    assert (s["source_files"], s["files_skipped"], s["files_not_utf8"], s["files_with_parse_errors"]) == (2, 1, 1, 1)
    assert {d["kind"] for d in data["diagnostics"]} == {"skipped", "encoding", "parse-error"}
    assert {f["name"] for f in data["findings"] if f["library"]} == {"cudaFree", "cudaMalloc"}


def test_help_and_version() -> None:
    out = subprocess.run([shutil.which("portkit") or "portkit", "scan", "--help"], capture_output=True, text=True)
    assert out.returncode == 0 and "--rocm-version" in out.stdout
    out = subprocess.run([shutil.which("portkit") or "portkit", "--version"], capture_output=True, text=True)
    assert out.stdout.strip().startswith("portkit ")


def test_unknown_option_is_a_usage_error(capsys) -> None:
    assert main(["scan", "--bogus", "."]) == 2
    assert "No such option: --bogus" in capsys.readouterr().err
