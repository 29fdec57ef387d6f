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


def part(header: Path, library_header: str) -> str:
    """The text of the part the shim wrote beside `header` for a library's CUDA header (its name less .h)."""
    return header.with_name(f"{header.stem}_{library_header}.h").read_text()


def units(tree: Path) -> list[Path]:
    return sorted(p for p in tree.rglob("*") if p.suffix in (".cu", ".cpp"))


def nvcc_compiles(source: Path, include: Path, cuda_headers: Path, *flags: str) -> subprocess.CompletedProcess:
    return subprocess.run([require_tool("nvcc"), "-std=c++17", "-arch=sm_80", "-w", "-I", str(include), "-I", str(cuda_headers),
                           *flags, "-x", "cu", "-c", "-o", os.devnull, "-Xcompiler", "-fsyntax-only", str(source)],
                          capture_output=True, text=True)


def hipcc_compiles(source: Path, include: Path, *flags: str) -> subprocess.CompletedProcess:
    return subprocess.run([require_tool("hipcc"), "--offload-arch=gfx90a", "-fsyntax-only", "-x", "hip", "-std=c++17", "-w",
                           "-I", str(include), *flags, str(source)],
                          capture_output=True, text=True, env={**os.environ, "HIP_PLATFORM": "amd"})


@pytest.mark.parametrize("style", ["cuda", "neutral"])
def test_one_tree_builds_with_both_compilers(style: str, tmp_path: Path, cuda_headers: Path) -> None:
    src = make_project(tmp_path)
    header = include_dir(tmp_path) / "portkit_gpu.h"
    out = tmp_path / "out"
    assert main(["shim", str(src), "-o", str(header), "--style", style, "--sources", str(out)]) == 0
    text = header.read_text()
    assert "#if defined(__HIPCC__)" in text and "#include <hiprand/hiprand_kernel.h>" in part(header, "curand_kernel")
    if style == "cuda":
        assert "#define cudaMalloc hipMalloc" in text
    else:
        assert "#define gpuMalloc hipMalloc" in text and "#define gpuMalloc cudaMalloc" in text
        assert "gpuMalloc(&d_x" in (out / "saxpy.cu").read_text()
    assert '#define __shfl_xor_sync(portkit_unused_0, ...) __shfl_xor(__VA_ARGS__)' in text
    for source in units(out):
        assert '#include "portkit_gpu' in source.read_text()
        nvcc = nvcc_compiles(source, header.parent, cuda_headers)
        assert nvcc.returncode == 0, f"nvcc {source.name}: {nvcc.stderr[-2000:]}"
        hipcc = hipcc_compiles(source, header.parent)
        assert hipcc.returncode == 0, f"hipcc {source.name}: {hipcc.stderr[-2000:]}"


def test_option_pricer_still_builds_for_cuda_and_lists_what_does_not_port(tmp_path: Path, cuda_headers: Path) -> None:
    header = include_dir(tmp_path) / "portkit_gpu.h"
    out = tmp_path / "out"
    assert main(["shim", str(EXAMPLES / "option-pricer"), "-o", str(header), "--sources", str(out)]) == 0
    assert "rccl" not in header.read_text().split("*/", 1)[1]  # past the comment that lists the parts
    assert "#include <rccl/rccl.h>" in part(header, "nccl") and "#include <hipsolver/hipsolver.h>" in part(header, "cusolverDn")
    assert "#define cusolverDnSpotrf hipsolverDnSpotrf" in part(header, "cusolverDn")
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


def test_a_constant_an_older_call_takes_otherwise_is_listed_and_the_call_falls_back(tmp_path: Path) -> None:
    """Before HIP 6.0 cublasGemmEx is hipblasGemmEx, whose data types are hipblasDatatype_t: a macro maps CUDA_R_16F
    for every use (HIP_R_16F), so the calls to edit by hand for older HIP are listed instead."""
    (tmp_path / "a.cu").write_text(
        "#include <cublas_v2.h>\nvoid f(cublasHandle_t h, const float *s, const void *a, float *c) {\n"
        "  cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, s, a, CUDA_R_16F, 8, a, CUDA_R_16F, 8, s, c, CUDA_R_32F, 8,\n"
        "               CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);\n}\n")
    header = tmp_path / "gpu.h"
    assert main(["shim", str(tmp_path / "a.cu"), "-o", str(header)]) == 0
    names = part(header, "cublas_v2")
    assert "#define cublasGemmEx hipblasGemmEx_v2\n" in names and "#define CUDA_R_16F HIP_R_16F\n" in names
    assert ("#if HIP_VERSION < 60000000 /* HIP 6.0.0 added cublasGemmEx */\n#undef cublasGemmEx\n"
            "#define cublasGemmEx hipblasGemmEx\n#endif") in names
    assert "#undef CUBLAS_COMPUTE_32F\n#define CUBLAS_COMPUTE_32F HIPBLAS_R_32F\n" in names
    text = header.read_text()
    assert (" *   CUDA_R_16F in cublasGemmEx -> HIPBLAS_R_16F: passed to cublasGemmEx before HIP 6.0.0, where the header "
            "maps cublasGemmEx to hipblasGemmEx; it maps CUDA_R_16F to HIP_R_16F for every use") in text
    assert " *   CUDA_R_32F in cublasGemmEx -> HIPBLAS_R_32F: " in text


def test_refuses_to_overwrite_a_foreign_header(tmp_path: Path, capsys) -> None:
    (tmp_path / "a.cu").write_text("void f() { cudaDeviceSynchronize(); }\n")
    mine = tmp_path / "gpu.h"
    mine.write_text("// my own header\n")
    assert main(["shim", str(tmp_path / "a.cu"), "-o", str(mine)]) == 2
    assert "was not generated by portkit" in capsys.readouterr().err
    assert mine.read_text() == "// my own header\n"


def test_refuses_to_overwrite_a_foreign_file_where_a_part_goes(tmp_path: Path, capsys) -> None:
    (tmp_path / "a.cu").write_text("#include <cudnn.h>\nvoid f() { cudaDeviceSynchronize(); }\n")
    (tmp_path / "gpu_cudnn.h").write_text("// my own header\n")
    assert main(["shim", str(tmp_path / "a.cu"), "-o", str(tmp_path / "gpu.h")]) == 2
    assert "gpu_cudnn.h: exists and was not generated by portkit" in capsys.readouterr().err
    assert (tmp_path / "gpu_cudnn.h").read_text() == "// my own header\n" and not (tmp_path / "gpu.h").exists()


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
            assert "CUDART_VERSION" not in defined  # HIP_VERSION >= 12000 would hold: the #error above
            assert "#include <hip/hip_runtime.h>\n#include <hip/hip_cooperative_groups.h>\n" \
                   "#if HIP_VERSION >= 50700000 /* hip/hip_bf16.h from HIP 5.7.0 */\n#include <hip/hip_bf16.h>\n" \
                   "#else\n#include <hip/hip_bfloat16.h>\n#endif\n" in text
            hipcc = hipcc_compiles(converted, header.parent)
            assert hipcc.returncode == 0, f"hipcc: {hipcc.stderr[-2000:]}"
        else:
            assert " *   wmma::fragment -> rocwmma::fragment: a macro renames every identifier" in text
            assert " *   cudaDeviceProp::sharedMemPerBlockOptin: HIP 6.0.0" in text


FP8 = """#include <cuda_runtime.h>
#if CUDART_VERSION >= 11080
#include <cuda_fp8.h>
#endif
#include <cuda_bf16.h>
__global__ void k(float* o) { o[0] = 1.0f; }
"""
DEVICE_COPY = "#include <cub/device/device_copy.cuh>\n"


def test_a_header_only_newer_hip_has_is_included_from_that_hip_on(tmp_path: Path, cuda_headers: Path, capsys) -> None:
    """hip/hip_fp8.h came with HIP 6.2 and older HIP has no counterpart: the header includes it from that HIP_VERSION
    on and lists it, so the unit builds with the installed hipcc (HIP 5.2) as with nvcc. hipCUB's DeviceCopy header
    came with 6.2 and includes its own config; hipcub.hpp never includes it, so before 6.2 there is nothing to include."""
    header, converted, text = _shim(tmp_path, "fp8", FP8)
    assert "#if HIP_VERSION >= 60200000 /* hip/hip_fp8.h from HIP 6.2.0 */\n#include <hip/hip_fp8.h>\n#endif\n" in text
    assert " *   <cuda_fp8.h>: HIP 6.2.0\n" in text
    assert ", 1 only in newer HIP releases (listed in the header)" in capsys.readouterr().out
    nvcc = nvcc_compiles(converted, header.parent, cuda_headers)
    assert nvcc.returncode == 0, f"nvcc: {nvcc.stderr[-2000:]}"
    hipcc = hipcc_compiles(converted, header.parent)
    assert hipcc.returncode == 0, f"hipcc: {hipcc.stderr[-2000:]}"
    header, _, _ = _shim(tmp_path, "copy", DEVICE_COPY)
    assert "#if HIP_VERSION >= 60200000 /* hipcub/device/device_copy.hpp from HIP 6.2.0 */\n" \
           "#include <hipcub/device/device_copy.hpp>\n#endif\n" \
        in part(header, "cub_device_device_copy")


def test_members_older_hip_spells_otherwise_are_listed_for_a_hand_edit_that_compiles(tmp_path: Path) -> None:
    """hipDeviceProp_t before HIP 6.0 has no deviceOverlap (convert writes 1) and calls sharedMemPerMultiprocessor
    maxSharedMemoryPerMultiProcessor: no macro renames a member, so the header lists both with the #if to write
    the older spelling under; done as it says, the unit compiles with the installed hipcc (HIP 5.2)."""
    header, converted, text = _shim(tmp_path, "props", PROPERTIES)
    edits = {}
    for member, older in (("deviceOverlap", "1"), ("sharedMemPerMultiprocessor", "maxSharedMemoryPerMultiProcessor")):
        line = next((line for line in text.splitlines() if line.startswith(f" *   cudaDeviceProp::{member} -> ")), "")
        assert f"-> {member} from HIP 6.0.0, {older} before: " in line, text
        edits[member] = (older, line.split(" in its place under `")[1].rstrip("`"))
    failed = hipcc_compiles(converted, header.parent)
    assert failed.returncode != 0 and "no member named 'deviceOverlap'" in failed.stderr
    guard = edits["deviceOverlap"][1]
    assert guard == edits["sharedMemPerMultiprocessor"][1] == "#if defined(__HIPCC__) && HIP_VERSION < 60000000"
    use = '  std::printf("%d %zu\\n", prop.deviceOverlap, prop.sharedMemPerMultiprocessor);\n'
    older = use.replace("prop.deviceOverlap", "1").replace("sharedMemPerMultiprocessor", "maxSharedMemoryPerMultiProcessor")
    source = converted.read_text()
    assert use in source
    converted.write_text(source.replace(use, f"{guard}\n{older}#else\n{use}#endif\n"))
    hipcc = hipcc_compiles(converted, header.parent)
    assert hipcc.returncode == 0, hipcc.stderr[-2000:]


PROPERTIES = """#include <cstdio>
#include <cuda_runtime.h>
int main() {
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  std::printf("%d %zu\\n", prop.deviceOverlap, prop.sharedMemPerMultiprocessor);
  return 0;
}
"""


def test_a_header_in_a_missing_directory_is_refused_as_scan_refuses_its_output(tmp_path: Path, capsys) -> None:
    """scan -o and report -o do not make a missing directory: one line, exit 2; the shim and baseline neither,
    before they scan."""
    (tmp_path / "a.cu").write_text("#include <cuda_runtime.h>\nvoid f() { cudaDeviceSynchronize(); }\n")
    for command, name in (("scan", "x.json"), ("shim", "x.h"), ("baseline", "x.json")):
        target = tmp_path / "missing" / "dir" / name
        assert main([command, str(tmp_path / "a.cu"), "-o", str(target)]) == 2, command
        assert capsys.readouterr().err == f"portkit: error: {target}: cannot write: No such file or directory\n", command
    assert not (tmp_path / "missing").exists()
    (tmp_path / "file").write_text("")
    assert main(["shim", str(tmp_path / "a.cu"), "-o", str(tmp_path / "file" / "x.h")]) == 2
    assert capsys.readouterr().err == f"portkit: error: {tmp_path / 'file' / 'x.h'}: cannot write: Not a directory\n"


# darknet's shape: cuDNN only under #ifdef CUDNN, <mma.h> only under a version test; cuRAND (installed for both
# compilers here) under a switch too, so its names are mapped, in both styles, where it is included.
OPTIONAL_LIBRARIES = """#include <cuda_runtime.h>
#ifdef USE_DNN
#include <cudnn.h>
cudnnHandle_t handle;
#endif
#if CUDART_VERSION >= 10000
#include <mma.h>
#endif
#ifdef USE_RAND
#include <curand.h>
curandGenerator_t generator;
#endif
__global__ void k(float* x) { x[0] = 1; }
void run(float* p) { cudaMalloc(&p, 4); k<<<1, 1>>>(p); }
"""
RUNTIME_ONLY = "#include <cuda_runtime.h>\nvoid run(float* p) { cudaMalloc(&p, 4); cudaFree(p); }\n"
# Stand-ins for the libraries, found first: cuDNN and MIOpen as if installed, but an error where the source did not
# ask for them; rocWMMA as absent (HIP 5.2 ships none of the three).
ABSENT = '#error "{name} included where the source did not include it"\n'
STAND_INS = {
    "cudnn.h": "#ifndef USE_DNN\n" + ABSENT.format(name="cudnn.h") + "#endif\ntypedef struct cudnnContext* cudnnHandle_t;\n",
    "miopen/miopen.h": "#ifndef USE_DNN\n" + ABSENT.format(name="MIOpen") + "#endif\ntypedef struct miopenHandle* miopenHandle_t;\n",
    "rocwmma/rocwmma.hpp": ABSENT.format(name="rocWMMA"),
}


@pytest.mark.parametrize("style", ["cuda", "neutral"])
def test_a_library_header_stays_as_optional_as_the_sources_made_it(style: str, tmp_path: Path, cuda_headers: Path) -> None:
    """A source includes a library's part where, and under the condition where, it included the library's CUDA
    header: nvcc builds it without cuDNN and hipcc without MIOpen or rocWMMA, a unit that uses no library builds
    whatever the project's others use, and the library's names are mapped where the library is included."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "layers.cu").write_text(OPTIONAL_LIBRARIES)
    (tmp_path / "src" / "plain.cu").write_text(RUNTIME_ONLY)
    include, out = include_dir(tmp_path), tmp_path / "out"
    for name, text in STAND_INS.items():
        (include / name).parent.mkdir(exist_ok=True)
        (include / name).write_text(text)
    assert main(["shim", str(tmp_path / "src"), "-o", str(include / "portkit_gpu.h"), "--style", style, "--sources", str(out)]) == 0
    body = (include / "portkit_gpu.h").read_text().split("*/", 1)[1]  # after the comment that lists the parts
    assert not any(name in body for name in ("cudnn", "miopen", "mma.h", "rocwmma", "curand", "hiprand")), body
    assert "#include <miopen/miopen.h>" in (include / "portkit_gpu_cudnn.h").read_text()
    assert "#include <rocwmma/rocwmma.hpp>" in (include / "portkit_gpu_mma.h").read_text()
    layers = (out / "layers.cu").read_text()
    assert '#ifdef USE_DNN\n#include "portkit_gpu_cudnn.h"\n' in layers
    assert '#if CUDART_VERSION >= 10000\n#include "portkit_gpu_mma.h"\n#endif' in layers
    assert '#ifdef USE_RAND\n#include "portkit_gpu_curand.h"\n' + ("gpu" if style == "neutral" else "cu") in layers
    for source, flags in ((out / "layers.cu", ()), (out / "layers.cu", ("-DUSE_DNN", "-DUSE_RAND")), (out / "plain.cu", ())):
        nvcc = nvcc_compiles(source, include, cuda_headers, *flags)
        assert nvcc.returncode == 0, f"nvcc {source.name} {flags}: {nvcc.stderr[-2000:]}"
        hipcc = hipcc_compiles(source, include, *flags)
        assert hipcc.returncode == 0, f"hipcc {source.name} {flags}: {hipcc.stderr[-2000:]}"


def test_a_header_among_the_sources_is_left_as_written_when_the_shim_runs_again(tmp_path: Path, cuda_headers: Path) -> None:
    """Regenerating in place: the header and its parts are outputs, and their CUDA includes stay CUDA's (rewritten,
    they would include themselves)."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "layers.cu").write_text(OPTIONAL_LIBRARIES)
    header = tmp_path / "src" / "portkit_gpu.h"
    for _ in range(2):
        assert main(["shim", str(tmp_path / "src"), "-o", str(header), "--in-place", "--no-backup"]) == 0
    assert "#include <cuda_runtime.h>\n" in header.read_text() and "#include <cudnn.h>\n" in part(header, "cudnn")
    for flags in ((), ("-DUSE_RAND",)):
        nvcc = nvcc_compiles(tmp_path / "src" / "layers.cu", tmp_path / "src", cuda_headers, *flags)
        assert nvcc.returncode == 0, f"nvcc {flags}: {nvcc.stderr[-2000:]}"


SEVERAL_HEADERS = """#include <cuda_runtime.h>
#include <cuda.h>
  #  include <cuda_fp16.h>
#ifdef USE_BF16
#include <cuda_bf16.h>
__nv_bfloat16 b;
#endif
#include <cooperative_groups.h>  // kept: a comment shares the line
__global__ void k(__half* h) { h[0] = __float2half(1.0f); }
"""


def test_several_cuda_headers_in_a_row_become_one_include(tmp_path: Path, cuda_headers: Path) -> None:
    """darknet.h includes cuda_runtime.h, curand.h and cublas_v2.h in a row: the header once, not once per CUDA
    header. One under a condition the first is not under stays, as does a line with more than the directive."""
    header, converted, _ = _shim(tmp_path, "several", SEVERAL_HEADERS)
    assert converted.read_text() == SEVERAL_HEADERS.replace(
        "#include <cuda_runtime.h>\n#include <cuda.h>\n  #  include <cuda_fp16.h>\n", '#include "portkit_gpu.h"\n').replace(
        "<cuda_bf16.h>", '"portkit_gpu.h"').replace("<cooperative_groups.h>", '"portkit_gpu.h"')
    for flags in ((), ("-DUSE_BF16",)):
        nvcc = nvcc_compiles(converted, header.parent, cuda_headers, *flags)
        assert nvcc.returncode == 0, f"nvcc {flags}: {nvcc.stderr[-2000:]}"
        hipcc = hipcc_compiles(converted, header.parent, *flags)
        assert hipcc.returncode == 0, f"hipcc {flags}: {hipcc.stderr[-2000:]}"


SPACED_LAUNCH = """#include <cuda_runtime.h>
__global__ void k(float* x) { x[threadIdx.x] = 0.f; }
template <int N> __global__ void t(float* x) { x[threadIdx.x] = N; }
void run(float* x, cudaStream_t s) {
  k << <1, 32 >> > (x);
  t<4> << <dim3(1), 32, 0, s >> > (x);
}
"""


@pytest.mark.parametrize("style", ["cuda", "neutral"])
def test_a_launch_spelled_as_clang_format_writes_it_is_written_as_convert_writes_it(
        style: str, tmp_path: Path, cuda_headers: Path) -> None:
    """clang-format spaces a launch `k << <grid, block >> > (x)`: nvcc takes it, clang reads `<<` and `>>` as shifts.
    The shimmed source spells it `<<<...>>>`, as convert does, so hipcc compiles it too."""
    (tmp_path / "src").mkdir()
    source = tmp_path / "src" / "launch.cu"
    source.write_text(SPACED_LAUNCH)
    header = include_dir(tmp_path) / "portkit_gpu.h"
    assert main(["shim", str(tmp_path / "src"), "-o", str(header), "--style", style, "--in-place", "--no-backup"]) == 0
    text = source.read_text()
    assert "k <<<1, 32 >>> (x);" in text and "t<4> <<<dim3(1), 32, 0, s >>> (x);" in text
    nvcc = nvcc_compiles(source, header.parent, cuda_headers)
    assert nvcc.returncode == 0, f"nvcc: {nvcc.stderr[-2000:]}"
    hipcc = hipcc_compiles(source, header.parent)
    assert hipcc.returncode == 0, f"hipcc: {hipcc.stderr[-2000:]}"


IMPLICIT_RUNTIME = {
    "reduce.cuh": """// Reached only from units that rely on nvcc's implicit cuda_runtime.h.
#pragma once
__device__ inline float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);
  return v;
}
""",
    "sum.cu": """// No CUDA header: nvcc includes cuda_runtime.h by itself.
#include "reduce.cuh"
__global__ void sum(float* x) { x[threadIdx.x] = warp_sum(x[threadIdx.x]); }
cudaError_t launch(float* x, cudaStream_t stream) {
  sum<<<1, 32, 0, stream>>>(x);
  return cudaGetLastError();
}
""",
}


def test_a_source_that_relies_on_nvccs_implicit_runtime_include_includes_the_header(
        tmp_path: Path, cuda_headers: Path) -> None:
    """nvcc includes cuda_runtime.h in every .cu file; hipcc includes nothing. The files convert gives hip_runtime.h
    for that (a unit with no CUDA include, a .cuh that uses CUDA's device syntax) include the shim header instead,
    else its mappings never reach them; nvcc still builds them."""
    (tmp_path / "src").mkdir()
    for name, text in IMPLICIT_RUNTIME.items():
        (tmp_path / "src" / name).write_text(text)
    header = include_dir(tmp_path) / "portkit_gpu.h"
    out = tmp_path / "out"
    assert main(["shim", str(tmp_path / "src"), "-o", str(header), "--sources", str(out)]) == 0
    for name in IMPLICIT_RUNTIME:
        assert '#include "portkit_gpu.h"\n' in (out / name).read_text(), name
    source = out / "sum.cu"
    assert source.read_text().startswith('// No CUDA header: nvcc includes cuda_runtime.h by itself.\n#include "portkit_gpu.h"\n')
    nvcc = nvcc_compiles(source, header.parent, cuda_headers)
    assert nvcc.returncode == 0, f"nvcc: {nvcc.stderr[-2000:]}"
    hipcc = hipcc_compiles(source, header.parent)
    assert hipcc.returncode == 0, f"hipcc: {hipcc.stderr[-2000:]}"
    shimmed = source.read_text()
    assert main(["shim", str(out), "-o", str(header), "--in-place", "--no-backup"]) == 0
    assert source.read_text() == shimmed  # included once, however often the shim runs


AUTO_COORDINATE = """#include <cuda_runtime.h>
__global__ void clear(float* x, unsigned n) {
  for (auto i = blockIdx.y; i < n; i += gridDim.y) x[i] = 0.f;
  unsigned step = min(n, blockDim.x);
  x[step] = 1.f;
}
"""


@pytest.mark.parametrize("style", ["cuda", "neutral"])
def test_a_coordinate_declared_auto_or_passed_to_min_is_written_as_convert_writes_it(
        style: str, tmp_path: Path, cuda_headers: Path) -> None:
    """`auto i = blockIdx.y` is an unsigned int in CUDA and a proxy object in HIP (`i += gridDim.y` has no operator);
    `min(n, blockDim.x)` is ambiguous in HIP. The shimmed source declares and casts to unsigned int, as convert does."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "clear.cu").write_text(AUTO_COORDINATE)
    header = include_dir(tmp_path) / "portkit_gpu.h"
    assert main(["shim", str(tmp_path / "src"), "-o", str(header), "--style", style, "--sources", str(tmp_path / "out")]) == 0
    source = tmp_path / "out" / "clear.cu"
    text = source.read_text()
    assert "for (unsigned int i = blockIdx.y; i < n; i += gridDim.y)" in text
    assert "min(n, static_cast<unsigned int>(blockDim.x))" in text
    nvcc = nvcc_compiles(source, header.parent, cuda_headers)
    assert nvcc.returncode == 0, f"nvcc: {nvcc.stderr[-2000:]}"
    hipcc = hipcc_compiles(source, header.parent)
    assert hipcc.returncode == 0, f"hipcc: {hipcc.stderr[-2000:]}"


COMPUTE_TYPE = """#include <cublas_v2.h>
cublasStatus_t gemm(cublasHandle_t h, int n, const float *alpha, const void *a, const float *beta, float *c) {
  return cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, alpha, a, CUDA_R_16F, n, a, CUDA_R_16F, n, beta, c,
                      CUDA_R_32F, n, CUDA_R_32F, CUBLAS_GEMM_DEFAULT);
}
"""
# The installed hipcc is HIP 5.2: the unit is compiled as the header reads at HIP 6.0 (HIP_VERSION set after the
# runtime header defines it), against the stand-in of ROCm 6.0's hipblas.h that tests/test_convert_hipblas_ex.py uses.
AT_HIP_6 = """#include <hip/hip_runtime.h>
#undef HIP_VERSION
#define HIP_VERSION 60000000
#include "blas.cu"
"""
HIPBLAS_6 = Path(__file__).parent / "data" / "hipblas-6.0"


def test_a_data_type_passed_as_a_compute_type_is_listed_for_a_hand_edit_that_compiles(
        tmp_path: Path, cuda_headers: Path) -> None:
    """cuBLAS takes CUDA_R_32F as cublasGemmEx's compute type; from HIP 6.0 the header maps cublasGemmEx to
    hipblasGemmEx_v2, whose compute type is a hipblasComputeType_t, and CUDA_R_32F to HIP_R_32F for every use
    (convert writes HIPBLAS_COMPUTE_32F there). The header lists the use with its edit; done as it says, the unit
    compiles with hipcc at HIP 6.0 and with nvcc."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "blas.cu").write_text(COMPUTE_TYPE)
    (tmp_path / "hip6.cu").write_text(AT_HIP_6)
    header, out = include_dir(tmp_path) / "portkit_gpu.h", tmp_path / "out"
    assert main(["shim", str(tmp_path / "src"), "-o", str(header), "--sources", str(out)]) == 0
    listed = [line for line in header.read_text().splitlines() if " compute type -> " in line]
    assert listed == [" *   CUDA_R_32F as cublasGemmEx's compute type -> HIPBLAS_COMPUTE_32F: the header maps cublasGemmEx "
                      "to hipblasGemmEx_v2 from HIP 6.0.0, which takes the compute type as HIPBLAS_COMPUTE_32F; it maps "
                      "CUDA_R_32F to HIP_R_32F for every use: write CUBLAS_COMPUTE_32F there, which cuBLAS takes too, and "
                      "run the shim again to map it"]
    failed = hipcc_compiles(tmp_path / "hip6.cu", header.parent, "-I", str(out), "-I", str(HIPBLAS_6))
    assert failed.returncode != 0 and "no matching function for call to 'hipblasGemmEx_v2'" in failed.stderr
    (tmp_path / "src" / "blas.cu").write_text(COMPUTE_TYPE.replace("CUDA_R_32F, CUBLAS_GEMM", "CUBLAS_COMPUTE_32F, CUBLAS_GEMM"))
    shutil.rmtree(out)
    assert main(["shim", str(tmp_path / "src"), "-o", str(header), "--sources", str(out)]) == 0
    assert " compute type -> " not in header.read_text()
    hipcc = hipcc_compiles(tmp_path / "hip6.cu", header.parent, "-I", str(out), "-I", str(HIPBLAS_6))
    assert hipcc.returncode == 0, f"hipcc: {hipcc.stderr[-2000:]}"
    nvcc = nvcc_compiles(out / "blas.cu", header.parent, cuda_headers)
    assert nvcc.returncode == 0, f"nvcc: {nvcc.stderr[-2000:]}"


ARGUMENT_CASTS = """#include <cuda_runtime.h>
#include <cublas_v2.h>
__global__ void first_set(const long long *v, int *out) { out[threadIdx.x] = __ffs(v[threadIdx.x]); }
float *pinned(size_t n) {
  float *p = nullptr;
  cudaHostAlloc(&p, n * sizeof(float), cudaHostAllocDefault);
  cudaFuncSetAttribute(first_set, cudaFuncAttributeMaxDynamicSharedMemorySize, 0);
  return p;
}
cublasStatus_t solve(cublasHandle_t h, int m, int n, float alpha, const float* A, float* B) {
  return cublasStrsm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, m, n, &alpha, A, m, B, m);
}
"""
HIPBLAS_5_2 = Path(__file__).parent / "data" / "hipblas-5.2"


def test_the_shimmed_sources_cast_call_arguments_as_convert_does(tmp_path: Path, cuda_headers: Path) -> None:
    """No macro casts an argument: hipcc found __ffs(long long) ambiguous, took no float** for hipHostAlloc's void**
    nor a kernel for hipFuncSetAttribute's const void* (rules' cast_args), and HIP before 5.6 no const A for
    hipblasStrsm (const_args). The rewritten sources get convert's casts, which nvcc takes too; a header written
    without the sources lists each such call."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "casts.cu").write_text(ARGUMENT_CASTS)
    header, out = include_dir(tmp_path) / "portkit_gpu.h", tmp_path / "out"
    assert main(["shim", str(tmp_path / "src"), "-o", str(header)]) == 0
    listed = [line.split(" -> ")[0].strip(" *") for line in header.read_text().splitlines() if "'s arguments -> " in line]
    assert listed == ["__ffs's arguments", "cublasStrsm's arguments", "cudaFuncSetAttribute's arguments",
                      "cudaHostAlloc's arguments"]
    assert main(["shim", str(tmp_path / "src"), "-o", str(header), "--sources", str(out)]) == 0
    assert "'s arguments -> " not in header.read_text()
    text = (out / "casts.cu").read_text()
    for cast in ("__ffs(static_cast<int>(v[threadIdx.x]))", "cudaHostAlloc(reinterpret_cast<void**>(&p), ",
                 "cudaFuncSetAttribute(reinterpret_cast<const void*>(first_set), ", "&alpha, const_cast<float*>(A), m, B, m);"):
        assert cast in text, cast
    hipcc = hipcc_compiles(out / "casts.cu", header.parent, "-I", str(HIPBLAS_5_2))
    assert hipcc.returncode == 0, f"hipcc: {hipcc.stderr[-2000:]}"
    nvcc = nvcc_compiles(out / "casts.cu", header.parent, cuda_headers)
    assert nvcc.returncode == 0, f"nvcc: {nvcc.stderr[-2000:]}"


OWN_HIP_LAYER = """#ifndef PROJECT_HIPIFY_H
#define PROJECT_HIPIFY_H
{runtime}#define cudaMalloc hipMalloc
#define cudaFree hipFree
#define cudaFreeHost hipFreeHost
#define cudaMallocHost hipHostMalloc
#define cudaSuccess hipSuccess
#define cudaError_t hipError_t
#endif
"""
# kaldi's way: the layer under the project's HIP switch, CUDA's header beside it; the layer includes no runtime
# header, and the unit includes HIP's before it.
LAYER_IN_A_BRANCH = """#ifdef __IS_HIP_COMPILE__
#include <hip/hip_runtime.h>
#include "hip/hipify.h"
#else
#include <cuda_runtime.h>
#endif
int run() {
  float *d = 0, *h = 0;
  cudaError_t e = cudaMalloc(&d, 64);
  if (e != cudaSuccess) return 1;
  cudaMallocHost(&h, 64);
  cudaFreeHost(h);
  return cudaFree(d) == cudaSuccess;
}
"""
# The layer (with its own runtime header) first, then CUDA's header: the shim comes after the layer.
LAYER_FIRST = """#ifdef __IS_HIP_COMPILE__
#include "hip/hipify.h"
#endif
#include <cuda_runtime.h>
int run() {
  float *h = 0;
  cudaError_t e = cudaMallocHost(&h, 64);
  cudaFreeHost(h);
  return e == cudaSuccess;
}
"""
NO_LAYER = """#include <cuda_runtime.h>
int other() {{ float *d = 0; cudaMalloc(&d, 4); {more}return cudaFree(d) == cudaSuccess; }}
"""


@pytest.mark.parametrize("runtime, unit, more, left, guarded", [
    ("", LAYER_IN_A_BRANCH, "", ["cudaError_t", "cudaFreeHost", "cudaMallocHost"], ["cudaFree", "cudaMalloc", "cudaSuccess"]),
    ("#include <hip/hip_runtime.h>\n", LAYER_FIRST, "cudaFreeHost(d); ", ["cudaError_t", "cudaMallocHost"],
     ["cudaFree", "cudaFreeHost", "cudaMalloc", "cudaSuccess"])], ids=["layer_in_a_branch", "layer_first"])
def test_names_the_projects_own_hip_layer_defines_are_left_to_it_or_guarded(
        runtime: str, unit: str, more: str, left: list[str], guarded: list[str], tmp_path: Path, cuda_headers: Path) -> None:
    """kaldi's hip/hipify.h (included under `#ifdef __IS_HIP_COMPILE__`) defines CUDA's names as HIP's; the shim
    defined them again, some otherwise (cudaFreeHost: hipFreeHost there, hipHostFree here), and every unit got
    macro-redefined warnings. A name the layer defines wherever it is used is left to it, listed in the header's
    comment; one also used where no layer is seen is mapped under `#ifndef NAME`, so the layer's stands where it
    comes first. hipcc with the project's switch builds each unit without a redefinition, nvcc as before."""
    src = tmp_path / "src"
    (src / "hip").mkdir(parents=True)
    (src / "hip" / "hipify.h").write_text(OWN_HIP_LAYER.format(runtime=runtime))
    (src / "unit.cu").write_text(unit)
    (src / "other.cu").write_text(NO_LAYER.format(more=more))
    out = tmp_path / "out"
    header = out / "hip" / "portkit_gpu.h"
    header.parent.mkdir(parents=True)
    assert main(["shim", str(src), "-o", str(header), "--sources", str(out), "--force"]) == 0
    text = header.read_text()
    comment, names = text.split("*/", 1)
    assert [name for name in left if f"#define {name} " not in names and f" *   {name} (" in comment] == left
    assert [name for name in guarded if f"#ifndef {name} /* the project's own HIP layer defines it too */\n"
            f"#define {name} " in names] == guarded
    # The layer is the project's HIP code, compiled by hipcc alone: the shim leaves it as written.
    assert (out / "hip" / "hipify.h").read_text() == OWN_HIP_LAYER.format(runtime=runtime)
    for source in (out / "unit.cu", out / "other.cu"):
        hipcc = subprocess.run([require_tool("hipcc"), "--offload-arch=gfx90a", "-fsyntax-only", "-x", "hip",
                                "-D__IS_HIP_COMPILE__", "-Werror=macro-redefined", "-I", str(header.parent), str(source)],
                               capture_output=True, text=True, env={**os.environ, "HIP_PLATFORM": "amd"})
        assert hipcc.returncode == 0 and "macro redefined" not in hipcc.stderr, f"hipcc {source.name}: {hipcc.stderr[-2000:]}"
        nvcc = nvcc_compiles(source, header.parent, cuda_headers)
        assert nvcc.returncode == 0, f"nvcc {source.name}: {nvcc.stderr[-2000:]}"


def _shimmed_with_layer(tmp_path: Path, layer: str, includes: str) -> Path:
    """A project of its own HIP layer (src/hip/hipify.h: `layer`) and a.cu, whose `includes` precede a kernel calling
    __fdiv_rd and host code calling cudaMalloc and cudaFree, given the shim (the sources with it in tmp_path/out)."""
    src, out = tmp_path / "src", tmp_path / "out"
    (src / "hip").mkdir(parents=True)
    (src / "hip" / "hipify.h").write_text(layer)
    (src / "a.cu").write_text(includes + "__global__ void k(float *x) { x[0] = __fdiv_rd(x[0], 3.0f); }\n"
                              "int run() { float *d = 0; cudaMalloc(&d, 64); k<<<1, 1>>>(d); return cudaFree(d); }\n")
    out.mkdir()
    assert main(["shim", str(src), "-o", str(out / "portkit_gpu.h"), "--sources", str(out), "--force"]) == 0
    return out


def test_what_the_layer_defines_as_more_than_a_rename_is_left_to_it_and_its_switch_named(tmp_path: Path, capsys) -> None:
    """kaldi's hip/hipify.h defines `__fdiv_rd` as `__fdiv_rn` (another CUDA spelling, which AMD rounds alike) under
    `#ifdef __HIPCC__`: no alias of HIP's name, so the shim mapped it again and every unit that includes both got a
    macro-redefined warning. It is the layer's, left to it like its aliases. A hipcc build without the project's
    switch then compiles neither the layer nor a mapping of those names: portkit says which macro it needs."""
    layer = ("#pragma once\n#include <hip/hip_runtime.h>\n#ifdef __HIPCC__\n#define __fdiv_rd __fdiv_rn\n#endif\n"
             "#define cudaMalloc hipMalloc\n#define cudaFree hipFree\n")
    capsys.readouterr()
    out = _shimmed_with_layer(tmp_path, layer, "#ifdef __IS_HIP_COMPILE__\n#include \"hip/hipify.h\"\n#endif\n"
                                               "#include <cuda_runtime.h>\n")
    comment = (out / "portkit_gpu.h").read_text().split("*/", 1)[0]
    assert " *   __fdiv_rd (" in comment
    assert ("portkit: warning: 3 names are left to the project's own HIP layer (hipify.h): a hipcc build without "
            "__IS_HIP_COMPILE__ does not compile them (the header lists them)\n") in capsys.readouterr().err
    hipcc = subprocess.run([require_tool("hipcc"), "--offload-arch=gfx90a", "-fsyntax-only", "-x", "hip",
                            "-D__IS_HIP_COMPILE__", "-Werror=macro-redefined", "-I", str(out), str(out / "a.cu")],
                           capture_output=True, text=True, env={**os.environ, "HIP_PLATFORM": "amd"})
    assert hipcc.returncode == 0 and "macro redefined" not in hipcc.stderr, hipcc.stderr[-2000:]


def test_the_projects_own_hip_layer_is_left_as_written(tmp_path: Path) -> None:
    """A layer whose definitions make it need HIP's runtime (`#define __fdiv_rd __fdiv_rn`, a device function) got the
    shim's include at its top, before its own definitions, where no `#ifndef` guard of the shim's could help. The layer
    is the project's HIP code, which hipcc alone compiles: the shim writes nothing into it."""
    layer = ("#ifndef MY_HIPIFY_H\n#define MY_HIPIFY_H\n#define cudaMalloc hipMalloc\n#define cudaFree hipFree\n"
             "#define __fdiv_rd __fdiv_rn\n#endif\n")
    out = _shimmed_with_layer(tmp_path, layer, "#ifdef __IS_HIP_COMPILE__\n#include <hip/hip_runtime.h>\n"
                                               "#include \"hip/hipify.h\"\n#else\n#include <cuda_runtime.h>\n#endif\n")
    assert (out / "hip" / "hipify.h").read_text() == layer


def test_a_file_the_scan_could_not_read_is_named_and_fails_the_run(tmp_path: Path, capsys) -> None:
    """`portkit shim data.cu -o gpu.h` on a binary file wrote a header of nothing and exited 0, where scan and
    convert exit 2 on it: the header would lack whatever names the file uses."""
    (tmp_path / "k.cu").write_text("void f(float** p) { cudaMalloc(p, 4); }\n")
    (tmp_path / "data.cu").write_bytes(bytes(range(256)) * 8)
    assert main(["shim", "--no-cache", str(tmp_path / "data.cu"), "-o", str(tmp_path / "gpu.h")]) == 2
    errors = capsys.readouterr().err.splitlines()
    assert errors == [f"portkit: error: {tmp_path / 'data.cu'}: binary file skipped; not scanned (the header lacks what "
                      "it uses; --exclude it if it is no source)"], errors
    assert main(["shim", "--no-cache", str(tmp_path), "-o", str(tmp_path / "gpu.h")]) == 2  # the rest is mapped, all the same
    assert "hipMalloc" in (tmp_path / "gpu.h").read_text()
    assert main(["shim", "--no-cache", str(tmp_path / "k.cu"), "-o", str(tmp_path / "gpu.h")]) == 0


C_HOST = """#include <cuda_runtime.h>
#include <stdio.h>
int main(void) {
    float *d = 0;
    if (cudaMalloc((void **)&d, 16) != cudaSuccess) { printf("no gpu\\n"); return 1; }
    cudaFree(d);
    return 0;
}
"""
MIXED_MIN = """#include <cuda_runtime.h>
__global__ void clamp(unsigned *o, int a, unsigned b) { o[0] = min(a, b); }
"""


def test_a_c_host_file_of_a_hip_build_takes_hips_side_and_sees_no_cxx(tmp_path: Path, cuda_headers: Path) -> None:
    """A HIP build hands a project's .c files to the C compiler (gcc, or hipcc -x c), which does not define
    __HIPCC__ but must define the HIP platform for hip_runtime.h: the header takes HIP's side there too, and
    keeps its C++-only helpers (min/max overloads the .cu file needs) from C. nvcc still reads the CUDA side."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "host.c").write_text(C_HOST)
    (tmp_path / "src" / "clamp.cu").write_text(MIXED_MIN)
    include = include_dir(tmp_path)
    out = tmp_path / "out"
    assert main(["shim", str(tmp_path / "src"), "-o", str(include / "portkit_gpu.h"), "--sources", str(out)]) == 0
    hip_env = {**os.environ, "HIP_PLATFORM": "amd"}
    for compiler in ([require_tool("gcc")], [require_tool("hipcc"), "--offload-arch=gfx90a"]):
        built = subprocess.run([*compiler, "-x", "c", "-std=c99", "-D__HIP_PLATFORM_AMD__", "-I", str(include), "-c",
                                str(out / "host.c"), "-o", str(tmp_path / "host.o")], capture_output=True, text=True, env=hip_env)
        assert built.returncode == 0, f"{compiler[0]}: {built.stderr[-2000:]}"
    hipcc = hipcc_compiles(out / "clamp.cu", include)
    assert hipcc.returncode == 0, f"hipcc: {hipcc.stderr[-2000:]}"
    for source, language in ((out / "host.c"), "c"), ((out / "clamp.cu"), "cu"):
        nvcc = subprocess.run([require_tool("nvcc"), "-E", "-x", language, "-I", str(include), "-I", str(cuda_headers),
                               str(source), "-o", os.devnull], capture_output=True, text=True)
        assert nvcc.returncode == 0, f"nvcc -E {source.name}: {nvcc.stderr[-2000:]}"


# Names whose HIP counterparts came after HIP 5.2 (the installed one), with nothing for older HIP.
NEWER_NAMES = """#include <cuda_runtime.h>
#include <cuda.h>
bool capturing_legacy() {
    cudaStreamCaptureStatus s;
    cudaStreamIsCapturing(cudaStreamLegacy, &s);
    const char *msg; cuGetErrorName(CUDA_SUCCESS, &msg);
    return s != cudaStreamCaptureStatusNone;
}
"""
ONLY_OLDER_NAMES = """#include <cuda_runtime.h>
bool capturing(cudaStream_t stream) {
    cudaStreamCaptureStatus s;
    cudaStreamIsCapturing(stream, &s);
    return s != cudaStreamCaptureStatusNone;
}
"""


def test_a_name_only_newer_hip_has_is_mapped_from_that_hip_on_and_older_hip_says_what_it_needs(
        tmp_path: Path, cuda_headers: Path) -> None:
    """hipDrvGetErrorName came with HIP 5.4 and hipStreamLegacy with 6.2, with no fallback: the header maps them under
    `#if HIP_VERSION >=`, and before it a use is an error that names the HIP needed (not a HIP name the installed
    HIP 5.2 does not declare). A unit using none of them builds with hipcc 5.2; nvcc builds both."""
    header, converted, text = _shim(tmp_path, "graph", NEWER_NAMES)
    assert "#if HIP_VERSION >= 60200000 /* HIP 6.2.0 added hipStreamLegacy; older HIP has no counterpart */\n" \
           "#define cudaStreamLegacy hipStreamLegacy\n#else" in text
    assert "#if HIP_VERSION >= 50400000 /* HIP 5.4.0 added hipDrvGetErrorName; older HIP has no counterpart */\n" \
           "#define cuGetErrorName hipDrvGetErrorName\n#else" in text
    nvcc = nvcc_compiles(converted, header.parent, cuda_headers)
    assert nvcc.returncode == 0, f"nvcc: {nvcc.stderr[-2000:]}"
    hipcc = hipcc_compiles(converted, header.parent)
    errors = [line for line in hipcc.stderr.splitlines() if "error:" in line]
    assert hipcc.returncode != 0 and len(errors) == 2, hipcc.stderr[-2000:]
    assert "'portkit_cudaStreamLegacy_needs_HIP_6_2_0'" in errors[0] and "'portkit_cuGetErrorName_needs_HIP_5_4_0'" in errors[1]
    (tmp_path / "graph" / "older.cu").write_text(ONLY_OLDER_NAMES)
    header, out = tmp_path / "include-graph" / "portkit_gpu.h", tmp_path / "out-graph"
    assert main(["shim", str(tmp_path / "graph"), "-o", str(header), "--sources", str(out)]) == 0
    nvcc = nvcc_compiles(out / "older.cu", header.parent, cuda_headers)
    assert nvcc.returncode == 0, f"nvcc: {nvcc.stderr[-2000:]}"
    hipcc = hipcc_compiles(out / "older.cu", header.parent)
    assert hipcc.returncode == 0, f"hipcc: {hipcc.stderr[-2000:]}"
