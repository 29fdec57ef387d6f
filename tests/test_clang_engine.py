"""The clang engine: names resolved to their declarations (libclang, CUDA host side)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import require
from portkit.cli import main
from portkit.errors import ToolError


def scan(capsys, engine: str, *paths: str) -> dict:
    assert main(["scan", "--engine", engine, "--no-cache", "-f", "json", "--rocm-version", "5.2", *paths]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.fixture(autouse=True)
def libclang(monkeypatch) -> None:
    """The real libclang, and no NVIDIA library headers unless a test asks for them (`library_headers`)."""
    monkeypatch.delenv("PORTKIT_CUDA_HEADERS", raising=False)
    try:
        from portkit.parse.clang_setup import load_cindex, resource_dir

        load_cindex()
        resource_dir()
    except ToolError as exc:
        require(False, f"clang engine unavailable: {exc}")


@pytest.fixture
def library_headers(cuda_headers: Path, monkeypatch) -> Path:
    """NVIDIA's library headers (cuRAND, cuSOLVER, NCCL...) from their wheels, on the engine's path."""
    monkeypatch.setenv("PORTKIT_CUDA_HEADERS", str(cuda_headers))
    return cuda_headers


def test_macro_uses_are_attributed_to_each_use(tmp_path: Path, capsys) -> None:
    (tmp_path / "m.cu").write_text(
        "#include <cuda_runtime.h>\n#define ALLOC(p, n) cudaMalloc(p, n)\n"
        "void f() {\n  float* d;\n  ALLOC(&d, 4);\n  ALLOC(&d, 8);\n  cudaFree(d);\n}\n")
    clang = scan(capsys, "clang", str(tmp_path / "m.cu"))
    lines = sorted((f["line"], f["name"]) for f in clang["findings"] if f["name"] in ("cudaMalloc", "cudaFree"))
    # The #define line (from tree-sitter: it carries the rename) and each expansion (from clang).
    assert lines == [(2, "cudaMalloc"), (5, "cudaMalloc"), (6, "cudaMalloc"), (7, "cudaFree")]
    assert [f["message"].endswith("(via macro ALLOC)") for f in clang["findings"] if f["name"] == "cudaMalloc"] == \
        [False, True, True]
    tree = scan(capsys, "tree-sitter", str(tmp_path / "m.cu"))
    assert sorted((f["line"], f["name"]) for f in tree["findings"] if f["name"] in ("cudaMalloc", "cudaFree")) == \
        [(2, "cudaMalloc"), (7, "cudaFree")]


def test_project_declarations_are_not_cuda_uses(tmp_path: Path, capsys) -> None:
    (tmp_path / "own.h").write_text("#pragma once\ntypedef int cudaMyStatus;\ninline cudaMyStatus cudaStreamQuery(int) { return 0; }\n")
    (tmp_path / "s.cu").write_text('#include "own.h"\nint g() { return cudaStreamQuery(3); }\n')
    clang = scan(capsys, "clang", str(tmp_path / "s.cu"))
    assert not [f for f in clang["findings"] if f["name"] == "cudaStreamQuery"]


def test_both_engines_agree_on_plain_code(capsys) -> None:
    source = str(Path(__file__).parent / "convert" / "sparse_handles.cpp")  # no macros, no templates

    def apis(data: dict) -> list[tuple[int, int, str]]:
        return sorted((f["line"], f["column"], f["name"]) for f in data["findings"] if f["code"].startswith("PK1"))
    clang = apis(scan(capsys, "clang", source))
    assert clang == apis(scan(capsys, "tree-sitter", source))
    assert len(clang) == 13


def test_the_run_says_which_flags_and_resource_directory(tmp_path: Path, capsys) -> None:
    (tmp_path / "a.cu").write_text("void f() { cudaFree(0); }\n")
    assert main(["scan", "--engine", "clang", "--no-cache", "-o", str(tmp_path / "out.txt"), str(tmp_path / "a.cu")]) == 0
    err = capsys.readouterr().err
    assert "no compile_commands.json found; default flags" in err and "clang resource directory: /" in err


def test_a_broken_unit_falls_back_to_tree_sitter(tmp_path: Path, capsys) -> None:
    (tmp_path / "b.cu").write_text("#include <no/such/header.h>\nvoid f() { cudaFree(0); }\n")
    data = scan(capsys, "clang", str(tmp_path / "b.cu"))
    assert any("fell back to tree-sitter" in d["message"] for d in data["diagnostics"])
    assert [f["name"] for f in data["findings"] if f["name"] == "cudaFree"] == ["cudaFree"]
    # Every command says which units fell back, and why.
    assert main(["convert", "--engine", "clang", "--no-cache", str(tmp_path / "b.cu"), "-o", str(tmp_path / "out")]) == 0
    err = capsys.readouterr().err
    assert "clang engine: 1 unit, 0 parsed by clang, 1 fell back to tree-sitter" in err
    assert f"clang engine: {tmp_path / 'b.cu'}: clang: 'no/such/header.h' file not found (b.cu:1)" in err


def test_compile_commands_from_cmake(tmp_path: Path, capsys) -> None:
    import shutil
    import subprocess

    cmake = shutil.which("cmake")
    require(cmake is not None and shutil.which("nvcc") is not None, "cmake and nvcc are needed to generate the database")
    project = Path(__file__).parent / "data" / "cmake-cuda"
    build = tmp_path / "build"
    configure = subprocess.run([cmake, "-S", str(project), "-B", str(build), "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON"],
                               capture_output=True, text=True)
    assert configure.returncode == 0, configure.stdout[-2000:] + configure.stderr[-2000:]
    source = project / "src" / "main.cu"
    with_db = scan(capsys, "clang", "-p", str(build), str(source))
    assert not with_db["diagnostics"], with_db["diagnostics"]
    uses = sorted((f["line"], f["name"]) for f in with_db["findings"] if f["name"].startswith("cuda") and f["code"] == "PK100"
                  and f["path"].endswith("main.cu"))
    # USE_POOL=1 comes from the database: the macro expands to cudaMallocAsync, at its use on line 5.
    assert uses == [(5, "cudaMallocAsync"), (6, "cudaFree")]
    without = scan(capsys, "clang", str(source))
    # Default flags find the project's include/ directory, but not its -DUSE_POOL=1.
    assert sorted((f["line"], f["name"]) for f in without["findings"]
                  if f["name"].startswith("cuda") and f["code"] == "PK100") == [(5, "cudaMalloc"), (6, "cudaFree")]


def test_every_command_takes_the_engine(tmp_path: Path, capsys) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.cu").write_text(
        "#include <cuda_runtime.h>\n#define FREE(p) cudaFree(p)\nvoid f(float* p) { FREE(p); }\n")
    assert main(["convert", "--engine", "clang", "--no-cache", str(tmp_path / "src"), "-o", str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "a.cu").read_text().startswith("#include <hip/hip_runtime.h>\n#define FREE(p) hipFree(p)")
    assert main(["check", "--engine", "clang", "--no-cache", str(tmp_path / "src" / "a.cu")]) == 0
    assert main(["report", "--engine", "clang", str(tmp_path / "src"), "-o", str(tmp_path / "r.md")]) == 0
    assert main(["scan", "--engine", "nope", str(tmp_path / "src")]) == 2


def test_templated_wrapper_and_using_directive(tmp_path: Path, capsys) -> None:
    """A project template that shadows cudaMalloc, and a Thrust call through `using namespace`."""
    (tmp_path / "w.cu").write_text(
        "#include <cuda_runtime.h>\n#include <thrust/device_vector.h>\n#include <thrust/sort.h>\n"
        "namespace gpu {\n"
        "template <typename T> cudaError_t cudaMalloc(T** p, size_t n) {\n"
        "  return ::cudaMalloc(reinterpret_cast<void**>(p), n * sizeof(T));\n"
        "}\n}\n"
        "using namespace thrust;\n"
        "void f(thrust::device_vector<float>& v) {\n"
        "  float* d;\n  gpu::cudaMalloc(&d, 4);\n  sort(v.begin(), v.end());\n}\n")
    clang = {(f["line"], f["name"]) for f in scan(capsys, "clang", str(tmp_path / "w.cu"))["findings"] if f["code"] == "PK100"}
    tree = {(f["line"], f["name"]) for f in scan(capsys, "tree-sitter", str(tmp_path / "w.cu"))["findings"] if f["code"] == "PK100"}
    # The wrapper's own call to the real API: `::cudaMalloc` names the global one, CUDA's, not the project's gpu::...
    assert (6, "cudaMalloc") in clang and (6, "cudaMalloc") in tree
    # ...the call of the wrapper, which is the project's own...
    assert (12, "cudaMalloc") not in clang
    # ...and thrust::sort reached through a using-directive (tree-sitter's analysis follows the directive too).
    assert (13, "thrust::sort") in clang and (13, "thrust::sort") in tree


def test_missing_libclang_is_a_one_line_error(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    shadow = tmp_path / "shadow" / "clang"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('libclang is not installed')\n")
    (tmp_path / "a.cu").write_text("void f() { cudaFree(0); }\n")
    env = {**os.environ, "PYTHONPATH": f"{tmp_path / 'shadow'}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    run = subprocess.run([sys.executable, "-m", "portkit", "scan", "--engine", "clang", str(tmp_path / "a.cu")],
                         capture_output=True, text=True, env=env)
    assert run.returncode == 2
    assert run.stderr.strip() == ("portkit: error: the clang engine needs libclang's Python bindings: "
                                  "pip install 'portkit[clang]' (or libclang)")


def _engine_diagnostics(data: dict) -> list[dict]:
    return [d for d in data["diagnostics"] if "fell back" in d["message"]]


def test_no_library_headers_no_fallbacks(capsys) -> None:
    """Without NVIDIA's library wheels, cuRAND/cuSOLVER/NCCL are parsed against declarations from the rules."""
    data = scan(capsys, "clang", str(Path(__file__).parent.parent / "examples"))
    assert not _engine_diagnostics(data), data["diagnostics"]
    by_clang = {f["name"] for f in data["findings"] if f["engine"] == "clang"}
    assert {"curandCreateGenerator", "cusolverDnSpotrf", "ncclAllReduce", "thrust::sort", "cudaMalloc"} <= by_clang


def test_dependent_template_calls(tmp_path: Path, capsys) -> None:
    (tmp_path / "t.cu").write_text(
        "#include <cuda_runtime.h>\n#include <thrust/device_vector.h>\nusing namespace thrust;\n"
        "template <typename T> void zero(T* p, size_t n) {\n  cudaMemset(p, 0, n * sizeof(T));\n}\n"
        "template <typename T> void fill(device_vector<T>& v) {}\n")
    data = scan(capsys, "clang", str(tmp_path / "t.cu"))
    found = {(f["line"], f["name"]): f["engine"] for f in data["findings"] if f["code"] == "PK100"}
    # An unresolved lookup: the candidates are CUDA's.
    assert found[(5, "cudaMemset")] == "clang"
    # A template reached through the using-directive.
    assert found[(7, "thrust::device_vector")] == "clang"
    assert main(["convert", "--engine", "clang", "--no-cache", str(tmp_path / "t.cu"), "-o", str(tmp_path / "out")]) == 0
    assert "  hipMemset(p, 0, n * sizeof(T));" in (tmp_path / "out" / "t.cu").read_text()


def test_macro_in_a_project_header(tmp_path: Path, capsys) -> None:
    """An API behind a macro of a project header: found at each use, renamed once, in the #define."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "api.h").write_text(
        "#pragma once\n#include <cuda_runtime.h>\n#define ZERO(p, n) cudaMemset(p, 0, n)\n"
        "inline void release(void* p) { cudaFree(p); }\n")
    for unit in ("a.cu", "b.cu"):
        (src / unit).write_text('#include "api.h"\nvoid f(float* d) {\n  ZERO(d, 4);\n  ZERO(d, 8);\n}\n')
    data = scan(capsys, "clang", str(src))
    assert not _engine_diagnostics(data)
    uses = sorted((Path(f["path"]).name, f["line"], f["name"], f["engine"]) for f in data["findings"]
                  if f["name"] in ("cudaMemset", "cudaFree"))
    assert uses == [("a.cu", 3, "cudaMemset", "clang"), ("a.cu", 4, "cudaMemset", "clang"),
                    ("api.h", 3, "cudaMemset", "tree-sitter"),  # the #define line: tree-sitter's, it carries the rename
                    ("api.h", 4, "cudaFree", "clang"),  # the header's code, once though two units include it
                    ("b.cu", 3, "cudaMemset", "clang"), ("b.cu", 4, "cudaMemset", "clang")]
    assert main(["convert", "--engine", "clang", "--no-cache", str(src), "-o", str(tmp_path / "out")]) == 0
    header = (tmp_path / "out" / "api.h").read_text()
    assert "#define ZERO(p, n) hipMemset(p, 0, n)" in header and "hipFree(p)" in header
    assert "  ZERO(d, 4);\n  ZERO(d, 8);\n" in (tmp_path / "out" / "a.cu").read_text()


def test_without_then_with_library_headers(tmp_path: Path, capsys, cuda_headers: Path, monkeypatch) -> None:
    """The header environment is part of the cache key: the second run, with the real headers, is precise."""
    monkeypatch.setenv("PORTKIT_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "r.cu").write_text(
        "#include <curand.h>\nvoid f(curandGenerator_t g, unsigned* out) {\n"
        "  curandGenerateBinomial(g, out, 4, 10, 0.5);\n}\n")

    def binomial() -> str:
        assert main(["scan", "--engine", "clang", "-f", "json", "--rocm-version", "5.2", str(tmp_path / "r.cu")]) == 0
        data = json.loads(capsys.readouterr().out)
        assert not _engine_diagnostics(data)
        return next(f["engine"] for f in data["findings"] if f["name"] == "curandGenerateBinomial")
    # No rule knows it, so the stand-in does not declare it: tree-sitter's view stands...
    assert binomial() == "tree-sitter"
    monkeypatch.setenv("PORTKIT_CUDA_HEADERS", str(cuda_headers))
    # ...and cuRAND's own header does.
    assert binomial() == "clang"


def test_cache_follows_flags_headers_and_fallbacks(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("PORTKIT_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "m.cu").write_text('#include "pool.h"\nvoid f(void** p) { ALLOC(p, 4); }\n')
    database = tmp_path / "compile_commands.json"

    def names(*extra: str) -> list[str]:
        assert main(["scan", "--engine", "clang", "-f", "json", *extra, str(tmp_path / "m.cu")]) == 0
        data = json.loads(capsys.readouterr().out)
        return sorted(f["name"] for f in data["findings"] if f["name"].startswith("cudaMalloc") and f["line"] == 2) + \
            ["fell back"] * len(_engine_diagnostics(data))
    # A missing project header: a fallback, never cached...
    assert names() == ["fell back"]
    (tmp_path / "pool.h").write_text("#include <cuda_runtime.h>\n#if USE_POOL\n#define ALLOC(p, n) cudaMallocAsync(p, n, 0)\n"
                                     "#else\n#define ALLOC(p, n) cudaMalloc(p, n)\n#endif\n")
    assert names() == ["cudaMalloc"]
    # ...a changed header is seen...
    (tmp_path / "pool.h").write_text((tmp_path / "pool.h").read_text().replace("#if USE_POOL", "#if !USE_POOL"))
    assert names() == ["cudaMallocAsync"]
    # ...and so is a -D added to, then removed from, the compile database.
    entry = {"directory": str(tmp_path), "file": "m.cu", "arguments": ["nvcc", "-DUSE_POOL=1", "-c", "m.cu"]}
    database.write_text(json.dumps([entry]))
    assert names("-p", str(database)) == ["cudaMalloc"]
    database.write_text(json.dumps([{**entry, "arguments": ["nvcc", "-c", "m.cu"]}]))
    assert names("-p", str(database)) == ["cudaMallocAsync"]


def test_shim_takes_the_clang_engine(tmp_path: Path) -> None:
    (tmp_path / "a.cu").write_text("#include <cuda_runtime.h>\n#define FREE(p) cudaFree(p)\nvoid f(float* p) { FREE(p); }\n")
    assert main(["shim", "--engine", "clang", "--no-cache", str(tmp_path / "a.cu"), "-o", str(tmp_path / "gpu.h")]) == 0
    assert "hipFree" in (tmp_path / "gpu.h").read_text()


def test_what_a_host_side_parse_cannot_see(tmp_path: Path, capsys) -> None:
    """Device-only branches keep tree-sitter's names; CUDA macros and std:: math in device code are CUDA uses."""
    (tmp_path / "d.cu").write_text(
        "#include <cmath>\n#include <cuda_runtime.h>\n__global__ void k(float* o, float s) {\n"
        "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800\n  o[0] = __fmaf_rn(s, 1.0f, 0.0f);\n#endif\n"
        "  o[1] = std::sqrt(s);\n}\n"
        "void h(cudaStream_t* s) { cudaStreamCreateWithFlags(s, cudaStreamNonBlocking); }\n")
    found = {(f["line"], f["name"]): f["engine"] for f in scan(capsys, "clang", str(tmp_path / "d.cu"))["findings"]
             if f["code"] == "PK100"}
    assert found[(5, "__fmaf_rn")] == "tree-sitter"
    assert found[(7, "sqrt")] == "clang"
    assert found[(9, "cudaStreamNonBlocking")] == "clang"  # a macro in driver_types.h


def test_units_with_the_same_flags_share_a_precompiled_header(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("PORTKIT_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.cu").write_text("#include <cuda_runtime.h>\n#include <vector>\nvoid a() { cudaFree(0); }\n")
    (tmp_path / "src" / "b.cu").write_text("#include <cuda_runtime.h>\n#include <map>\nvoid b() { cudaDeviceReset(); }\n")
    data = scan(capsys, "clang", str(tmp_path / "src"))
    assert {f["name"] for f in data["findings"] if f["engine"] == "clang"} == {"cudaFree", "cudaDeviceReset"}
    assert len(list((tmp_path / "cache" / "clang-pch").glob("*.pch"))) == 1
