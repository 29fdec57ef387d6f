"""Bounded work on any input: every case runs as a real process under a time and a memory limit
and must end with exit 0 or 2 inside them: never 3 (a crash), never a hang, never out of memory."""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from portkit.run import shard
from portkit.errors import OutputError
from portkit.fileio import write_tree_file
from portkit.walk import read_source
from safety_kit import CUDA, environment, write

SECONDS = 30  # generous for a loaded 2-core machine: each case takes 1-3 s alone
MEMORY = 1 << 30


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY + (1 << 30), MEMORY + (1 << 30)))  # address space: +1 GiB of libraries
    resource.setrlimit(resource.RLIMIT_DATA, (MEMORY, MEMORY))


def bounded(argv: list[str], tmp: Path) -> subprocess.CompletedProcess[bytes]:
    """portkit ARGV under the limits; the exit code must be 0 or 2 and stderr must hold no traceback."""
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "portkit", *argv], cwd=tmp, env=environment(tmp), capture_output=True,
                          timeout=SECONDS, preexec_fn=_limit_memory, stdin=subprocess.DEVNULL)
    err = done.stderr.decode("utf-8", "replace")
    assert done.returncode in (0, 2), (done.returncode, err[-2000:])
    assert "Traceback" not in err and "MemoryError" not in err and "LLVM ERROR" not in err, err[-2000:]
    assert time.monotonic() - start < SECONDS
    return done


# --- 7, 8: the analysis of hostile sources ----------------------------------------------------

SOURCES = {
    "shift 1ULL << 40000000000": "__shared__ float s[1ULL << 40000000000];\n__global__ void k() { s[0] = 1; }\n",
    "shift in a launch": "__global__ void k() {}\nvoid f() { k<<<1, 1, 1ULL << 40000000000>>>(); }\n",
    "power tower": "#define A (1<<62)\n__shared__ float s[A*A*A*A*A*A*A*A*A*A*A*A*A*A*A*A*A*A*A*A];\n",
    "constants fanning out": "".join(f"#define C{i} (C{i + 1}+C{i + 1}+C{i + 1}+C{i + 1}+C{i + 1}+C{i + 1})\n"
                                     for i in range(12)) + "#define C12 1\n__shared__ float s[C0];\n",
    "100,000 nested #if 1": "#if 1\n" * 100_000 + "static void f() { cudaMalloc(0, 4); }\n" + "#endif\n" * 100_000,
    "100,000 nested #ifdef __CUDACC__": "#ifdef __CUDACC__\n" * 100_000 + "void f() {}\n" + "#endif\n" * 100_000,
    "nested #if with statics": "#if 1\nstatic void g() {}\n" * 20_000 + "#endif\n" * 20_000,
    "70,000-term sum": "int x = " + "1+" * 70_000 + "1;\n",
    "100,000 nested braces": "void f() " + "{" * 100_000 + "cudaMalloc(0, 4);" + "}" * 100_000 + "\n",
    "20,000 anonymous namespaces": "namespace {\n" * 20_000 + "static void f() {}\n" + "}\n" * 20_000,
}


@pytest.mark.parametrize("name", SOURCES)
def test_hostile_sources_are_analysed_within_limits(name: str, tmp_path: Path) -> None:
    write(tmp_path / "src" / "k.cu", SOURCES[name])
    for argv in (["scan", "-f", "json", "src"], ["convert", "src", "-o", "out"]):
        bounded(argv, tmp_path)


# A long run of blanks (here a comment, which the analysis blanks out) before an nvcc option: a pattern free
# to start anywhere in the run was quadratic in its length.
BUILD_FILES = {
    "Makefile": "#" + " " * 300_000 + "\nNVCC_FLAGS += -Xptxas -v -lcudart\n",
    "CMakeLists.txt": "#" + "\t" * 300_000 + "\nset(CMAKE_CUDA_FLAGS \"-Xptxas -v\")\n",
}


@pytest.mark.parametrize("name", BUILD_FILES)
def test_hostile_build_files_are_analysed_within_limits(name: str, tmp_path: Path) -> None:
    write(tmp_path / "src" / name, BUILD_FILES[name])
    for argv in (["scan", "-f", "json", "src"], ["convert", "src", "-o", "out"]):
        bounded(argv, tmp_path)


# --- 9: baselines that are not files -----------------------------------------------------------

@pytest.mark.parametrize("kind", ["/dev/zero", "/dev/urandom", "fifo", "directory", "sparse 8 GiB"])
def test_a_baseline_that_is_no_regular_file_is_refused(kind: str, tmp_path: Path) -> None:
    write(tmp_path / "src" / "k.cu", CUDA)
    baseline = tmp_path / ".portkit-baseline.json"
    if kind.startswith("/dev/"):
        os.symlink(kind, baseline)
    elif kind == "fifo":
        os.mkfifo(baseline)
    elif kind == "directory":
        baseline.mkdir()
    else:
        with open(baseline, "wb") as handle:
            handle.truncate(8 << 30)
    (tmp_path / ".git").mkdir()
    for argv in (["check", "src"], ["check", "--baseline", str(baseline), "src"]):
        assert bounded(argv, tmp_path).returncode == 2


# --- 10: an untrusted compile database --------------------------------------------------------

@pytest.mark.parametrize("flags", [["@/dev/zero"], ["--options-file", "/dev/zero"], ["@fifo"], ["-optf", "fifo"],
                                   ["-include", "fifo"], ["-include", "/dev/zero"], ["-include/dev/zero"],
                                   ["@huge.rsp"], ["-include", "huge.h"]],
                         ids=lambda f: " ".join(f))
def test_a_hostile_compile_database_is_bounded(flags: list[str], tmp_path: Path) -> None:
    pytest.importorskip("clang.cindex")
    src = write(tmp_path / "src" / "k.cu", CUDA).parent
    os.mkfifo(src / "fifo")
    for name in ("huge.rsp", "huge.h"):
        with open(src / name, "wb") as handle:
            handle.truncate(8 << 30)
    entry = {"directory": str(src), "file": "k.cu", "arguments": ["clang++", *flags, "-c", "k.cu"]}
    write(src / "compile_commands.json", json.dumps([entry]))
    bounded(["scan", "--engine", "clang", "-p", str(src), "src"], tmp_path)


@pytest.mark.parametrize("database", ["[" * 100_000, '[{"directory": 1, "file": [], "command": null}]',
                                      '[{"directory": ".", "file": "k.cu"}]', '{"a": 1e400}', "\0\0"],
                         ids=["deep", "wrong types", "no command", "1e400", "NULs"])
def test_a_malformed_compile_database_is_exit_0_or_2(database: str, tmp_path: Path) -> None:
    pytest.importorskip("clang.cindex")
    src = write(tmp_path / "src" / "k.cu", CUDA).parent
    write(src / "compile_commands.json", database)
    bounded(["scan", "--engine", "clang", "-p", str(src), "src"], tmp_path)


# --- 11: merge of hostile shards ----------------------------------------------------------------

def _shard(tmp: Path) -> dict:
    write(tmp / "src" / "k.cu", CUDA)
    done = bounded(["scan", "--shard", "1/1", "-o", "s.json", "src"], tmp)
    assert done.returncode == 0
    return json.loads((tmp / "s.json").read_text())


def _sealed(document: dict) -> str:
    return json.dumps({**document, "checksum": shard._checksum(document)})


MUTATIONS = {
    "walk_warnings abc": lambda d: {**d, "walk_warnings": ["abc"]},
    "a string for the files": lambda d: {**d, "files": "abc"},
    "a string for a file": lambda d: {**d, "files": ["abc"]},
    "a string for the findings": lambda d: {**d, "files": [{**d["files"][0], "result": {
        **d["files"][0]["result"], "findings": "abc"}}]},
    "a string for a finding": lambda d: {**d, "files": [{**d["files"][0], "result": {**d["files"][0]["result"],
                                                                                     "findings": ["abc"]}}]},
    "a number for the lines": lambda d: {**d, "files": [{**d["files"][0], "result": {**d["files"][0]["result"],
                                                                                     "lines": "many"}}]},
    "walked 1e300": lambda d: {**d, "walked": 1e300},
    "an index of 10**400": lambda d: {**d, "shard": {"index": 10 ** 400, "count": 1}},
}


@pytest.mark.parametrize("name", MUTATIONS)
def test_a_shard_of_the_wrong_shape_is_exit_2(name: str, tmp_path: Path) -> None:
    write(tmp_path / "bad.json", _sealed(MUTATIONS[name](_shard(tmp_path))))
    done = bounded(["merge", "bad.json"], tmp_path)
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1, done.stderr


@pytest.mark.parametrize("text", ["[" * 100_000 + "]" * 100_000, '{"format": "portkit-shard", "x": 1e400}',
                                  '{"format": "portkit-shard", "x": NaN}', '"just a string"', "", "\0" * 100],
                         ids=["deep", "1e400", "NaN", "string", "empty", "NULs"])
def test_a_malformed_shard_file_is_exit_2(text: str, tmp_path: Path) -> None:
    write(tmp_path / "bad.json", text)
    done = bounded(["merge", "bad.json"], tmp_path)
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1, done.stderr


@pytest.mark.parametrize("kind", ["/dev/zero", "fifo", "sparse 8 GiB"])
def test_a_shard_that_is_no_regular_file_is_refused(kind: str, tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    if kind == "/dev/zero":
        os.symlink("/dev/zero", path)
    elif kind == "fifo":
        os.mkfifo(path)
    else:
        with open(path, "wb") as handle:
            handle.truncate(8 << 30)
    assert bounded(["merge", "s.json"], tmp_path).returncode == 2


# --- 12, 13: hostile rule files -----------------------------------------------------------------

RULE = "library: mine\nentries:\n  - cuda: '%mine'\n    kind: asm\n    pattern: '{pattern}'\n    status: unsupported\n"
ASM = '__global__ void k() {{ asm volatile("{text}"); }}\n'


@pytest.mark.parametrize("kind", ["sparse 8 GiB", "/dev/zero", "fifo"])
def test_a_rule_file_that_is_no_bounded_regular_file_is_refused(kind: str, tmp_path: Path) -> None:
    write(tmp_path / "src" / "k.cu", CUDA)
    path = tmp_path / "r.yaml"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "/dev/zero":
        os.symlink("/dev/zero", path)
    else:
        with open(path, "wb") as handle:
            handle.truncate(8 << 30)
    assert bounded(["scan", "--rules", "r.yaml", "src"], tmp_path).returncode == 2


@pytest.mark.parametrize("pattern", ["(a+)+$", "(a|aa)*$", "(a*)*b", "(.*a){12}x", "(\\w+\\s?)+$", "(x\\w*)+y"])
def test_catastrophic_asm_patterns_are_refused(pattern: str, tmp_path: Path) -> None:
    write(tmp_path / "src" / "k.cu", ASM.format(text="a" * 40 + "!"))
    write(tmp_path / "r.yaml", RULE.format(pattern=pattern))
    done = bounded(["scan", "--rules", "r.yaml", "src"], tmp_path)
    assert done.returncode == 2 and b"exponential time" in done.stderr, done.stderr


@pytest.mark.parametrize("pattern", ["\\bmine(\\.\\w+)*\\.add\\b", "([^.]+\\.)+x", "%%?mine_(lt|le)"])
def test_linear_asm_patterns_still_work(pattern: str, tmp_path: Path) -> None:
    write(tmp_path / "src" / "k.cu", ASM.format(text="mine." + "a." * 5000 + "add"))
    write(tmp_path / "r.yaml", RULE.format(pattern=pattern))
    assert bounded(["scan", "--rules", "r.yaml", "src"], tmp_path).returncode == 0


# --- 14: a FIFO where a file was -----------------------------------------------------------------

def _finishes(action, seconds: float = 5) -> object:
    result: list[object] = []
    thread = threading.Thread(target=lambda: result.append(action()), daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "blocked on a FIFO"
    return result[0] if result else None


def test_a_fifo_swapped_in_after_the_walk_is_not_read(tmp_path: Path) -> None:
    fifo = tmp_path / "k.cu"
    os.mkfifo(fifo)
    read = _finishes(lambda: read_source(str(fifo)))
    assert read.data is None and read.problem == "unreadable" and "not a regular file" in read.warning

    def copy() -> str:
        try:
            write_tree_file(tmp_path / "copy.cu", source=fifo)
        except OutputError as exc:
            return str(exc)
        return "copied"
    assert "not a regular file" in _finishes(copy)
    assert not (tmp_path / "copy.cu").exists()
