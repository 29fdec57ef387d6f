"""The bench scripts run against the code they measure (their numbers are read in docs/performance.md, never here)."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from portkit.parse.treesitter import captures, prepare_source
from portkit.rules import load_database

ROOT = Path(__file__).resolve().parents[1]


def test_parse_floor_parses_and_queries_every_source(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    files = {"a.cu": "__global__ void k(float* x) { x[threadIdx.x] = 0; }\n",
             "sub/b.cpp": "int main() { float* d; cudaMalloc(&d, 4); return 0; }\n",
             "notes.txt": "cudaFree\n"}  # not a source: not parsed
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    expected = sum(len(nodes) for name, text in files.items() if not name.endswith(".txt")
                   for nodes in captures(prepare_source(text.encode()).tree).values())
    result = subprocess.run([sys.executable, str(ROOT / "bench" / "parse_floor.py"), "-j", "2", str(tmp_path)],
                            capture_output=True, text=True, check=True)
    assert re.fullmatch(rf"2 files, 2 processes: parse \S+ s and query \S+ s of CPU, {expected} nodes captured\n",
                        result.stdout)


def test_parse_floor_refuses_a_missing_tree(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, str(ROOT / "bench" / "parse_floor.py"), str(tmp_path / "none")],
                            capture_output=True, text=True)
    assert result.returncode != 0 and result.stderr.strip() == f"parse_floor.py: {tmp_path / 'none'}: not a directory"


def test_parse_floor_looks_up_the_captured_names(tmp_path: Path) -> None:
    source = "__global__ void k(float* x) { x[threadIdx.x] = 0; }\nvoid h(float* d) { cudaMalloc(&d, 4); }\n"
    (tmp_path / "a.cu").write_text(source)
    known = {name.encode() for name in load_database().known_names()}
    found = captures(prepare_source(source.encode()).tree)
    expected = sum(node.text in known for capture in ("identifier", "type", "call") for node in found.get(capture, ()))
    result = subprocess.run([sys.executable, str(ROOT / "bench" / "parse_floor.py"), "-j", "1", "--names", str(tmp_path)],
                            capture_output=True, text=True, check=True)
    assert expected >= 2  # threadIdx, cudaMalloc
    assert re.search(rf", names \S+ s \({expected} kept\) of CPU", result.stdout)


def test_realworld_build_stage_builds_with_the_converted_makefile(tmp_path: Path) -> None:
    """bench/realworld.py --stage build: a CUDA program and its hand port, each built by its own Makefile (the
    CUDA one converted, unchanged), with the real hipcc: compile and link for gfx90a."""
    from tests.conftest import require_tool

    require_tool("hipcc")
    require_tool("make")
    repo = tmp_path / "mirror" / "me+tiny"
    kernel = "__global__ void k(float* a) { a[0] = 1; }\nint main() { float* a; {api}Malloc(&a, 4); k<<<1, 1>>>(a); }\n"
    files = {"cuda/saxpy/main.cu": kernel.replace("{api}", "cuda"),
             "cuda/saxpy/Makefile": "NVCC = $(CUDA_HOME)/bin/nvcc\nmain: main.cu\n\t$(NVCC) -arch=sm_80 -t=0 "
                                    "-Xptxas -v -o $@ $< -lcudart\n",
             "hip/saxpy/main.cu": "#include <hip/hip_runtime.h>\n" + kernel.replace("{api}", "hip"),
             "hip/saxpy/Makefile": "main: main.cu\n\thipcc -o $@ $<\n"}
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "tiny"], check=True)
    commit = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    (tmp_path / "bench.toml").write_text(
        f'[[corpus]]\nname = "unused"\nrepo = "me/tiny"\ncommit = "{commit}"\n\n'
        f'[[build]]\nname = "tiny"\nrepo = "me/tiny"\ncommit = "{commit}"\nsystem = "make"\n'
        'discover = {glob = "cuda/*/Makefile", twin = ["^cuda/", "hip/"]}\n')
    result = subprocess.run([sys.executable, str(ROOT / "bench" / "realworld.py"), "--stage", "build", "--config",
                             str(tmp_path / "bench.toml"), "--mirror", str(tmp_path / "mirror"), "--cache",
                             str(tmp_path / "cache")], capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr
    assert "  tiny (make, me/tiny @ " in result.stdout and "): 1/1 build (of 1 programs; 0 hand ports do not build)" \
        in result.stdout, result.stdout
