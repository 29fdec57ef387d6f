"""Dual-compile shims, compiled for real with nvcc and with hipcc."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import EXAMPLES, require_tool
from portkit.cli import main

CONVERT_INPUTS = Path(__file__).parent / "convert"


def make_project(tmp_path: Path) -> Path:
    src = tmp_path / "project"
    shutil.copytree(CONVERT_INPUTS, src, ignore=shutil.ignore_patterns("compiles"))
    shutil.copy(EXAMPLES / "saxpy" / "saxpy.cu", src)
    return src


def include_dir(tmp_path: Path, name: str = "include") -> Path:
    (tmp_path / name).mkdir()
    return tmp_path / name


def units(tree: Path) -> list[Path]:
    return sorted(p for p in tree.rglob("*") if p.suffix in (".cu", ".cpp"))


def nvcc_compiles(source: Path, include: Path, cuda_headers: Path) -> subprocess.CompletedProcess:
    return subprocess.run([require_tool("nvcc"), "-std=c++17", "-arch=sm_80", "-w", "-I", str(include), "-I", str(cuda_headers),
                           "-x", "cu", "-c", "-o", os.devnull, "-Xcompiler", "-fsyntax-only", str(source)],
                          capture_output=True, text=True)


def hipcc_compiles(source: Path, include: Path) -> subprocess.CompletedProcess:
    return subprocess.run([require_tool("hipcc"), "--offload-arch=gfx90a", "-fsyntax-only", "-x", "hip", "-std=c++17", "-w",
                           "-I", str(include), str(source)],
                          capture_output=True, text=True, env={**os.environ, "HIP_PLATFORM": "amd"})


@pytest.mark.parametrize("style", ["cuda", "neutral"])
def test_one_tree_builds_with_both_compilers(style: str, tmp_path: Path, cuda_headers: Path) -> None:
    src = make_project(tmp_path)
    header = include_dir(tmp_path) / "portkit_gpu.h"
    out = tmp_path / "out"
    assert main(["shim", str(src), "-o", str(header), "--style", style, "--sources", str(out)]) == 0
    text = header.read_text()
    assert "#if defined(__HIPCC__)" in text and "#include <hiprand/hiprand_kernel.h>" in text
    if style == "cuda":
        assert "#define cudaMalloc hipMalloc" in text
    else:
        assert "#define gpuMalloc hipMalloc" in text and "#define gpuMalloc cudaMalloc" in text
        assert "gpuMalloc(&d_x" in (out / "saxpy.cu").read_text()
    assert '#define __shfl_xor_sync(portkit_unused_0, ...) __shfl_xor(__VA_ARGS__)' in text
    for source in units(out):
        assert '#include "portkit_gpu.h"' in source.read_text()
        nvcc = nvcc_compiles(source, header.parent, cuda_headers)
        assert nvcc.returncode == 0, f"nvcc {source.name}: {nvcc.stderr[-2000:]}"
        hipcc = hipcc_compiles(source, header.parent)
        assert hipcc.returncode == 0, f"hipcc {source.name}: {hipcc.stderr[-2000:]}"


def test_option_pricer_still_builds_for_cuda_and_lists_what_does_not_port(tmp_path: Path, cuda_headers: Path) -> None:
    header = include_dir(tmp_path) / "portkit_gpu.h"
    out = tmp_path / "out"
    assert main(["shim", str(EXAMPLES / "option-pricer"), "-o", str(header), "--sources", str(out)]) == 0
    text = header.read_text()
    assert "#include <rccl/rccl.h>" in text and "#include <hipsolver/hipsolver.h>" in text
    assert "#define cusolverDnSpotrf hipsolverDnSpotrf" in text
    for source in units(out):
        nvcc = nvcc_compiles(source, header.parent, cuda_headers)
        assert nvcc.returncode == 0, f"nvcc {source.name}: {nvcc.stderr[-2000:]}"


SIGNATURES_BY_COUNT = """#include <cuda_runtime.h>
void capture(cudaStream_t s, cudaGraphExec_t* e, cudaGraph_t g) {
  cudaStreamCaptureStatus st;
  unsigned long long id;
  cudaStreamGetCaptureInfo(s, &st, &id);
  cudaStreamGetCaptureInfo(s, &st);
  cudaGraphInstantiate(e, g, 0);
}
"""


@pytest.mark.parametrize("style", ["cuda", "neutral"])
def test_a_name_whose_hip_spelling_depends_on_the_argument_count_is_dispatched_by_count(
        style: str, tmp_path: Path, cuda_headers: Path) -> None:
    """CUDA 12's cudaGraphInstantiate(exec, graph, flags) is hipGraphInstantiateWithFlags, CUDA 11's five arguments
    hipGraphInstantiate; a macro of the name alone gives one of them to every call."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "capture.cu").write_text(SIGNATURES_BY_COUNT)
    header, out = include_dir(tmp_path) / "gpu.h", tmp_path / "out"
    assert main(["shim", str(tmp_path / "src"), "-o", str(header), "--style", style, "--sources", str(out)]) == 0
    text = header.read_text()
    name = "gpuGraphInstantiate" if style == "neutral" else "cudaGraphInstantiate"
    assert f"#define {name}(...) PORTKIT_JOIN(portkit_cudaGraphInstantiate_, PORTKIT_ARG_COUNT(__VA_ARGS__))" in text
    assert "#define portkit_cudaGraphInstantiate_3 hipGraphInstantiateWithFlags\n" in text
    assert "#define portkit_cudaGraphInstantiate_5 hipGraphInstantiate\n" in text
    source = out / "capture.cu"
    nvcc = nvcc_compiles(source, header.parent, cuda_headers)
    assert nvcc.returncode == 0, f"nvcc: {nvcc.stderr[-2000:]}"
    hipcc = hipcc_compiles(source, header.parent)
    assert hipcc.returncode == 0, f"hipcc: {hipcc.stderr[-2000:]}"


def test_unportable_names_are_listed(tmp_path: Path) -> None:
    (tmp_path / "a.cu").write_text("#include <nccl.h>\nvoid f(ncclComm_t c, ncclComm_t* o) { ncclCommShrink(c, 0, 0, o, 0, 0); }\n")
    header = tmp_path / "gpu.h"
    assert main(["shim", str(tmp_path / "a.cu"), "-o", str(header)]) == 0
    text = header.read_text()
    assert " *   ncclCommShrink (NCCL): " in text
    assert "#define ncclCommShrink" not in text
    assert (tmp_path / "a.cu").read_text().startswith("#include <nccl.h>")  # no --sources: sources untouched


def test_refuses_to_overwrite_a_foreign_header(tmp_path: Path, capsys) -> None:
    (tmp_path / "a.cu").write_text("void f() { cudaDeviceSynchronize(); }\n")
    mine = tmp_path / "gpu.h"
    mine.write_text("// my own header\n")
    assert main(["shim", str(tmp_path / "a.cu"), "-o", str(mine)]) == 2
    assert "was not generated by portkit" in capsys.readouterr().err
    assert mine.read_text() == "// my own header\n"


def test_neutral_style_needs_somewhere_to_write_sources(tmp_path: Path, capsys) -> None:
    (tmp_path / "a.cu").write_text("void f() { cudaDeviceSynchronize(); }\n")
    assert main(["shim", str(tmp_path / "a.cu"), "-o", str(tmp_path / "g.h"), "--style", "neutral"]) == 2
    assert "--sources OUTDIR or --in-place" in capsys.readouterr().err


DUAL = """#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <cuda_bf16.h>
#include <cstdio>
namespace cg = cooperative_groups;
#if defined(__CUDA_ARCH__) && defined(__HIPCC__) && !defined(__HIP_DEVICE_COMPILE__)
#error "__CUDA_ARCH__ is defined in hipcc's host pass"
#endif
#if CUDART_VERSION >= 12000 && defined(__HIPCC__)
#error "a test of CUDA's version holds under hipcc"
#endif
__host__ __device__ int side() {
#ifdef __CUDA_ARCH__
  return 1;
#else
  return 0;
#endif
}
__global__ void k(float* out, const __nv_bfloat16* in) {
  cg::thread_block block = cg::this_thread_block();
  block.sync();
  out[threadIdx.x] = side() + (in != nullptr);
}
"""
# HIP 5.2 (installed) lacks these members, so this file is compiled with nvcc only.
NEWER = """#include <cuda_runtime.h>
#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;
__global__ void tile(const half* a) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> f;
  wmma::load_matrix_sync(f, a, 16);
}
size_t optin() { cudaDeviceProp prop; cudaGetDeviceProperties(&prop, 0); return prop.sharedMemPerBlockOptin; }
"""


def _shim(tmp_path: Path, name: str, text: str) -> tuple[Path, Path, str]:
    (tmp_path / name).mkdir()
    (tmp_path / name / f"{name}.cu").write_text(text)
    header, out = include_dir(tmp_path, f"include-{name}") / "portkit_gpu.h", tmp_path / f"out-{name}"
    assert main(["shim", str(tmp_path / name), "-o", str(header), "--sources", str(out)]) == 0
    return header, out / f"{name}.cu", header.read_text()


def test_the_shim_defines_only_identifiers_and_never_cuda_arch(tmp_path: Path, cuda_headers: Path) -> None:
    """A macro renames every identifier of its name: `#define wmma::fragment ...` or a member's name is no mapping, and
    `#define __CUDA_ARCH__ __HIP_DEVICE_COMPILE__` would define __CUDA_ARCH__ in hipcc's host pass too. A versioned
    header is included by HIP_VERSION, which hip_runtime.h (included first, as nvcc includes cuda_runtime.h) defines."""
    for name, source in (("dual", DUAL), ("newer", NEWER)):
        header, converted, text = _shim(tmp_path, name, source)
        defined = [line.split()[1] for line in text.splitlines() if line.startswith("#define ")]
        assert all(name.split("(")[0].isidentifier() for name in defined), defined
        assert "__CUDA_ARCH__" not in defined
        nvcc = nvcc_compiles(converted, header.parent, cuda_headers)
        assert nvcc.returncode == 0, f"nvcc {name}: {nvcc.stderr[-2000:]}"
        if name == "dual":
            assert " *   __CUDA_ARCH__ -> __HIP_DEVICE_COMPILE__: " in text
            assert " *   CUDART_VERSION -> HIP_VERSION: " in text and "CUDART_VERSION" not in defined
            assert "#include <hip/hip_runtime.h>\n#include <hip/hip_cooperative_groups.h>\n" \
                   "#if HIP_VERSION >= 50700000 /* HIP 5.7.0 added hip/hip_bf16.h */\n#include <hip/hip_bf16.h>\n" \
                   "#else\n#include <hip/hip_bfloat16.h>\n#endif\n" in text
            hipcc = hipcc_compiles(converted, header.parent)
            assert hipcc.returncode == 0, f"hipcc: {hipcc.stderr[-2000:]}"
        else:
            assert " *   wmma::fragment -> rocwmma::fragment: a macro renames every identifier" in text
            assert " *   cudaDeviceProp::sharedMemPerBlockOptin: HIP 6.0.0" in text


def test_a_header_in_a_missing_directory_is_refused_as_scan_refuses_its_output(tmp_path: Path, capsys) -> None:
    """scan -o and report -o do not make a missing directory: one line, exit 2; the shim neither, before it scans."""
    (tmp_path / "a.cu").write_text("#include <cuda_runtime.h>\nvoid f() { cudaDeviceSynchronize(); }\n")
    for command, name in (("scan", "x.json"), ("shim", "x.h")):
        target = tmp_path / "missing" / "dir" / name
        assert main([command, str(tmp_path / "a.cu"), "-o", str(target)]) == 2, command
        assert capsys.readouterr().err == f"portkit: error: {target}: cannot write: No such file or directory\n", command
    assert not (tmp_path / "missing").exists()
    (tmp_path / "file").write_text("")
    assert main(["shim", str(tmp_path / "a.cu"), "-o", str(tmp_path / "file" / "x.h")]) == 2
    assert capsys.readouterr().err == f"portkit: error: {tmp_path / 'file' / 'x.h'}: cannot write: Not a directory\n"
