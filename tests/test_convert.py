"""portkit convert: exact edits, idempotence, build files, real hipcc, the hipify-perl backend."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import EXAMPLES, require_tool
from portkit.analyze.names import CUDA_LOOKING
from portkit.cli import main
from portkit.codes import ASM_LIBRARY
from portkit.convert.edits import EditOptions, apply_nested
from portkit.convert.sources import convert_stable
from portkit.model import Edit, LaunchSyntax, Span
from portkit.outpath import MANIFEST
from portkit.rules import Target
from portkit.run.file import analyze_bytes
from portkit.run.project import run_project
from portkit.run.request import RunRequest
from portkit.settings import RunSettings

CONVERT_INPUTS = Path(__file__).parent / "convert"
FAKE_HIPIFY = Path(__file__).parent / "data" / "fake_hipify_perl.py"
HIP52 = Target(rocm=(5, 2, 0))


def convert_bytes(tmp_path: Path, data: bytes, name: str = "t.cu", database=None, target: Target = HIP52,
                  prefer_roc: bool = False, launch_syntax: str = "cuda") -> bytes:
    """Convert one file's bytes through the same pipeline the command uses."""
    source = tmp_path / name
    source.write_bytes(data)
    settings = RunSettings(paths=(str(source),), root=tmp_path, target=target, jobs=1)
    result = run_project(settings, RunRequest(keep_sources=True, prefer_roc=prefer_roc, rules=database))
    shape = "".join(f.shape for f in result.files)
    return convert_stable(str(source), data, result.findings, result.context, EditOptions(LaunchSyntax(launch_syntax)), True,
                          shape).converted


def convert_tree(tmp_path: Path, tree: dict[str, str]) -> dict[str, str]:
    """Write `tree` (path: text) under tmp_path/in, convert it for HIP 5.2 into tmp_path/out, and read each file back."""
    for name, text in tree.items():
        (tmp_path / "in" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "in" / name).write_text(text)
    assert main(["convert", "--no-cache", "--rocm-version", "5.2", str(tmp_path / "in"), "-o", str(tmp_path / "out")]) == 0
    return {name: (tmp_path / "out" / name).read_text() for name in tree}


def test_a_unit_gets_the_runtime_first_when_a_header_it_reaches_gets_it(tmp_path: Path) -> None:
    """nvcc's runtime include came before a unit's first line; the one convert adds to a header comes
    wherever the unit includes that header, after any macro the unit defined."""
    tree = {
        "lib/kernels.cuh": "#pragma once\n__global__ void zero(T* x) { x[threadIdx.x] = T(); }\n",
        "lib/wrap.h": '#pragma once\n#include "kernels.cuh"\n',
        "app/main.cpp": '// two levels down\n#define T float\n#include "../lib/wrap.h"\nint f() { return 0; }\n',
        "app/explicit.cu": '#define T float\n#include <cuda_runtime.h>\n#include "../lib/wrap.h"\n',
        "app/plain.c": "int g(void) { return 0; }\n",
        "other/kernels.cuh": "#pragma once\ninline int host_twice(int x) { return 2 * x; }\n",
        "other/use.cpp": '#define T int\n#include "kernels.cuh"\n',  # beside it: the host-only header
    }
    out = convert_tree(tmp_path, tree)
    assert out["app/main.cpp"] == tree["app/main.cpp"].replace("#define", "#include <hip/hip_runtime.h>\n#define")
    assert out["lib/kernels.cuh"].startswith("#pragma once\n#include <hip/hip_runtime.h>\n")
    # Its own include comes after its macro too: nvcc's came first, so the runtime goes first (and stays below).
    assert out["app/explicit.cu"] == "#include <hip/hip_runtime.h>\n" + tree["app/explicit.cu"].replace(
        "cuda_runtime.h", "hip/hip_runtime.h")
    for unchanged in ("lib/wrap.h", "app/plain.c", "other/kernels.cuh", "other/use.cpp"):
        assert out[unchanged] == tree[unchanged], unchanged
    assert main(["convert", "--no-cache", "--rocm-version", "5.2", str(tmp_path / "out"), "-o", str(tmp_path / "again")]) == 0
    assert all((tmp_path / "again" / name).read_text() == out[name] for name in tree)


def test_names_a_project_defines_for_compilers_without_cuda_bring_no_runtime_header(tmp_path: Path) -> None:
    """`#else typedef void* cudaStream_t;` is for a build without CUDA: a host file that uses the name through that
    header keeps building with the host compiler, and the fallback is renamed with its uses."""
    require_tool("g++")
    tree = {
        "common.h": "#pragma once\n#ifdef WITH_CUDA\n#include <cuda_runtime.h>\n#else\ntypedef void* cudaStream_t;\n#endif\n",
        "host.cpp": '#include "common.h"\nvoid run(cudaStream_t s) { (void)s; }\n',
        "lonely.cpp": "void plain(cudaStream_t s);\n",  # reaches no fallback: nvcc's runtime it is
        "host.cu": '#include "common.h"\nvoid run(cudaStream_t s);\n',  # nvcc's file, which had the runtime
        "vec.hh": "#pragma once\n#ifndef __CUDACC__\nstruct double2 { double x, y; };\n#endif\n",  # a test needs no header
    }
    out = convert_tree(tmp_path, tree)
    assert out["host.cpp"] == '#include "common.h"\nvoid run(hipStream_t s) { (void)s; }\n'
    assert "#else\ntypedef void* hipStream_t;\n" in out["common.h"]
    assert out["lonely.cpp"] == "#include <hip/hip_runtime.h>\nvoid plain(hipStream_t s);\n"
    assert out["host.cu"].startswith("#include <hip/hip_runtime.h>\n#include \"common.h\"\n")
    assert "hip_runtime" not in out["vec.hh"] and "#ifndef __HIPCC__" in out["vec.hh"]
    subprocess.run(["g++", "-fsyntax-only", "host.cpp"], cwd=tmp_path / "out", check=True)


def test_apply_edits_orders_and_rejects_overlaps() -> None:
    source = b"abcdef"
    edits = [Edit(Span(4, 6), b"EF"), Edit(Span(0, 0), b">"), Edit(Span(0, 1), b"A")]
    assert apply_nested(source, edits).data == b">AbcdEF"
    assert apply_nested(source, []).data == source
    # A partial overlap skips the later edit and says so; the rest of the file is still converted.
    applied = apply_nested(source, [Edit(Span(0, 3), b"x"), Edit(Span(2, 4), b"y"), Edit(Span(5, 6), b"z")])
    assert applied.data == b"xdez" and applied.skipped == (Edit(Span(2, 4), b"y"),)
    # An edit inside another's span is decided by the outer one (a dropped argument, a rewritten test).
    assert apply_nested(source, [Edit(Span(1, 2), b"B"), Edit(Span(0, 4), b"")]).data == b"ef"


def test_comments_strings_and_bytes_are_preserved(tmp_path: Path, database) -> None:
    source = (
        b"\xef\xbb\xbf// cudaMalloc in a comment, caf\xe9\r\n"
        b"#include <cuda_runtime.h>\r\n"
        b"const char* s = \"cudaFree(p)\";\r\n"
        b"void f(float* p) { cudaFree(p); /* cudaFree */ }"
    )
    expected = (
        b"\xef\xbb\xbf// cudaMalloc in a comment, caf\xe9\r\n"
        b"#include <hip/hip_runtime.h>\r\n"
        b"const char* s = \"cudaFree(p)\";\r\n"
        b"void f(float* p) { hipFree(p); /* cudaFree */ }"
    )
    assert convert_bytes(tmp_path, source, database=database) == expected


def test_a_marker_on_the_first_line_goes_after_the_byte_order_mark(tmp_path: Path, database) -> None:
    source = b"\xef\xbb\xbf#ifdef __CUDACC__\n#include <cuda.h>\n#endif\n"
    out = convert_bytes(tmp_path, source, database=database)
    assert out.startswith(b"\xef\xbb\xbf// portkit: PK101 __CUDACC__") and out.count(b"\xef\xbb\xbf") == 1
    assert convert_bytes(tmp_path, out, database=database) == out


def test_markers_use_the_file_line_endings_and_skip_macro_continuations(tmp_path: Path, database) -> None:
    source = (
        b"void f(ncclComm_t c, int* x, ncclComm_t* o) {\r\n"
        b"  ncclCommShrink(c, x, 1, o, nullptr, 0);\r\n"
        b"}\r\n"
        b"#define SHRINK(c, o) do { \\\n"
        b"    ncclCommShrink(c, nullptr, 0, o, nullptr, 0); \\\n"
        b"  } while (0)\n"
    )
    out = convert_bytes(tmp_path, source, database=database).decode()
    lines = out.splitlines(keepends=True)
    assert lines[1].startswith("  // portkit: PK102 ncclCommShrink: ") and lines[1].endswith("\r\n")
    assert lines[2] == "  ncclCommShrink(c, x, 1, o, nullptr, 0);\r\n"
    assert "    /* portkit: PK102 ncclCommShrink: " in lines[5] and lines[5].rstrip().endswith("\\")
    assert len(lines) == len(source.splitlines()) + 1


def test_a_token_with_several_block_markers_gets_each_once_per_line(tmp_path: Path, capsys) -> None:
    """In a #define body a marker is a block comment before the token; __CUDA_ARCH__ gets a name's (PK101) and a
    hazard's (PK320). A second pass (the syntax error's tree changes shape) looked only at the comment right before
    the token (PK320's) and wrote PK101's again, and listed the first pass's markers twice."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "arch.cu").write_text("#define ARCH_OK(x) \\\n  ((__CUDA_ARCH__ >= 700) && (__CUDA_ARCH__ < 900) && (x))\n"
                                 "__device__ int k(long long v) { int x = ; return __ffs(v) + ARCH_OK(1); }\n")
    assert main(["convert", "--no-cache", "--rocm-version", "5.2", str(src), "-o", str(tmp_path / "once")]) == 0
    listed = [line for line in capsys.readouterr().out.splitlines() if "arch.cu:" in line]
    out = (tmp_path / "once" / "arch.cu").read_text()
    body = out.splitlines()[2]
    assert body.count("/* portkit: PK101 __CUDA_ARCH__: ") == 1 and body.count("/* portkit: PK320 __CUDA_ARCH__: ") == 1
    assert len(listed) == 2 and all(line.startswith(f"  {src / 'arch.cu'}:2: ") for line in listed)
    assert main(["convert", "--no-cache", "--rocm-version", "5.2", str(tmp_path / "once"), "-o", str(tmp_path / "twice")]) == 0
    assert (tmp_path / "twice" / "arch.cu").read_text() == out


def test_a_second_pass_lists_its_markers_at_the_original_lines_and_not_the_first_pass_markers(
        tmp_path: Path, capsys) -> None:
    """A file parsed with errors is converted again until stable. The second pass (tree-sitter recovers from the
    broken launch differently once the first pass's edits are in, and finds the launch below it) counted its lines in
    the first pass's output, so the summary gave the launch the line of the marker above it, and listed the first
    pass's PK335 markers again under the names convert wrote (hipDeviceAttribute*), at output lines, "already there"."""
    src = tmp_path / "src"
    src.mkdir()
    lines = ["__global__ void parent(float* out) {  // launched from the device",
             "  child<<<1, >(out);  // launched from the device",
             "  child<<<n, 1>>>(out);  // launched from the device",
             "  (void)lanes; (void)sm;",
             "int compute_capability(int device) {",
             "  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);  // launched from the device",
             "  cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);  // launched from the device",
             "}",
             "int driver_capability(CUdevice device) {  // launched from the device",
             "  int major = 0, minor = 0;"]
    (src / "a.cu").write_text("\n".join(lines) + "\n")
    assert main(["convert", "--no-cache", "--rocm-version", "5.2", str(src), "-o", str(tmp_path / "out")]) == 0
    summary = capsys.readouterr().out
    listed = [line.split(": ", 2)[:2] for line in summary.splitlines() if line.startswith(f"  {src / 'a.cu'}:")]
    assert listed == [[f"  {src / 'a.cu'}:3", "PK330 child"],
                      [f"  {src / 'a.cu'}:6", "PK335 cudaDevAttrComputeCapabilityMajor"],
                      [f"  {src / 'a.cu'}:7", "PK335 cudaDevAttrComputeCapabilityMinor"]]
    assert "3 markers\n" in summary and "the lines are the input file's" in summary
    out = (tmp_path / "out" / "a.cu").read_text().splitlines()
    for (where, marker), code_line in zip(listed, (lines[2], lines[5], lines[6])):
        assert lines[int(where.rpartition(":")[2]) - 1] == code_line
        converted = code_line.replace("cudaDeviceGetAttribute", "hipDeviceGetAttribute")
        converted = converted.replace("cudaDevAttrComputeCapability", "hipDeviceAttributeComputeCapability")
        assert out[out.index(next(line for line in out if line.startswith(f"  // portkit: {marker}:"))) + 1] == converted


def test_names_no_rule_knows_are_marked_where_hipcc_will_not_find_them(tmp_path: Path, database) -> None:
    source = (b"#include <cutil.h>\n#include <thrust/detail/config.h>\n#include <thrust/system/hip/error.h>\n"
              b"#include <nppi.h>\n#include <nvjpeg.h>\n#include <nvscibuf.h>\n#include <nvJitLink.h>\n"
              b'#include "cudla.h"\n#include "nvmedia_image_nvscibuf.h"\n'
              b"void f() { cudaFutureApi(1); thrust::future_algorithm(); }\n")
    out = convert_bytes(tmp_path, source, database=database).decode()
    assert "// portkit: PK105 cutil.h: " in out and "// portkit: PK105 cudaFutureApi: " in out
    for header in ("nppi.h", "nvjpeg.h", "nvscibuf.h", "nvJitLink.h", "cudla.h", "nvmedia_image_nvscibuf.h"):
        # NVIDIA's libraries ROCm has no rule for (Tegra's DLA and NvMedia in "quotes" too)
        assert f"// portkit: PK105 {header}: " in out, header
    # rocThrust ships Thrust's headers (internals too) and mirrors thrust::; a hip/ path is HIP's own.
    assert "PK105 thrust" not in out and out.count("// portkit:") == 8
    assert convert_bytes(tmp_path, out.encode(), database=database).decode() == out


def test_thrust_cuda_backend_headers_become_rocthrusts_hip_ones_or_are_marked(tmp_path: Path, database) -> None:
    # thundersvm's smo_kernel.cu: rocThrust has no thrust/system/cuda/ tree; its twins are under thrust/system/hip/.
    source = (b"#include <thrust/sort.h>\n#include <thrust/system/cuda/detail/par.h>\n"
              b"#include <thrust/system/cuda/detail/core/util.h>\n"
              b"void f(float* k, int n) { thrust::sort(thrust::cuda::par, k, k + n, thrust::less<float>()); }\n")
    out = convert_bytes(tmp_path, source, database=database).decode()
    assert "#include <thrust/system/hip/detail/par.h>\n" in out and "thrust/system/cuda/detail/par.h" not in out
    assert "// portkit: PK102 thrust/system/cuda/detail/core/util.h: " in out
    assert "thrust::less" in out and "PK105" not in out


def test_qualified_templates_are_renamed_whatever_the_spaces_in_their_arguments(tmp_path: Path, database) -> None:
    source = (b"#include <cub/cub.cuh>\n"
              b"template <typename T, int N> __device__ T sum(T v) {\n"
              b"  typedef cub::BlockReduce<T, N, cub::BLOCK_REDUCE_WARP_REDUCTIONS> BlockReduce;\n"
              b"  using Scan = cub::BlockScan<int,N>;\n"
              b"  typedef cub :: WarpReduce<T> Warp;\n"
              b"  __shared__ typename BlockReduce::TempStorage t;\n"
              b"  return BlockReduce(t).Sum(v);\n}\n")
    out = convert_bytes(tmp_path, source, database=database).decode()
    assert "typedef hipcub::BlockReduce<T, N, hipcub::BLOCK_REDUCE_WARP_REDUCTIONS> BlockReduce;" in out
    assert "using Scan = hipcub::BlockScan<int,N>;" in out
    assert "typedef cub :: WarpReduce<T> Warp;" in out  # spaces inside the name: left as written
    assert convert_bytes(tmp_path, out.encode(), database=database).decode() == out


def test_cub_headers_map_to_hipcub_where_hipcub_has_them(tmp_path: Path, database) -> None:
    source = (b"#include <cub/util_type.cuh>\n#include <cub/block/block_load.cuh>\n#include <cub/device/device_copy.cuh>\n"
              b"#include <cub/util_debug.cuh>\n__global__ void k() {}\n")
    out = convert_bytes(tmp_path, source, database=database, target=Target(rocm=(5, 2, 0))).decode()
    # Before ROCm 6.3 hipCUB's per-primitive headers do not compile on their own: the umbrella header instead.
    assert "#include <hipcub/util_type.hpp>\n#include <hipcub/hipcub.hpp>\n" in out
    newer = convert_bytes(tmp_path, source, database=database, target=Target(rocm=(6, 3, 0))).decode()
    assert "#include <hipcub/util_type.hpp>\n#include <hipcub/block/block_load.hpp>\n" in newer
    assert "// portkit: PK104 cub/device/device_copy.cuh: hipcub/device/device_copy.hpp needs HIP 6.2.0" in out
    assert "// portkit: PK105 cub/util_debug.cuh: " in out  # hipCUB has no util_debug


def test_warp_intrinsics_follow_the_target_version(tmp_path: Path, database) -> None:
    source = b"__device__ float f(float v) { return __shfl_down_sync(0xffffffff, v, 1) + __ballot_sync(~0u, v > 0); }\n"
    old = convert_bytes(tmp_path, source, database=database, target=Target(rocm=(5, 2, 0))).decode()
    assert "return __shfl_down(v, 1) + __ballot(v > 0);" in old
    assert "// portkit: PK104 __shfl_down_sync" in old
    new = convert_bytes(tmp_path, source, database=database, target=Target(rocm=(6, 2, 0))).decode()
    # ROCm 6.2-6.4 have the _sync builtins behind a macro, with 64-bit masks.
    assert new.startswith("#ifndef HIP_ENABLE_WARP_SYNC_BUILTINS\n#define HIP_ENABLE_WARP_SYNC_BUILTINS\n#endif\n"
                          "#include <hip/hip_runtime.h>\n")
    full = "0xffffffffffffffffull"
    assert f"return __shfl_down_sync({full}, v, 1) + __ballot_sync({full}, v > 0);" in new
    assert "// portkit: PK101 __shfl_down_sync" in new
    latest = convert_bytes(tmp_path, source, database=database, target=Target(rocm=(7, 0, 0))).decode()
    assert "HIP_ENABLE_WARP_SYNC_BUILTINS" not in latest and f"__shfl_down_sync({full}, v, 1)" in latest


def test_a_shims_alias_for_the_hip_name_is_no_project_name_another_macro_is(tmp_path: Path, database) -> None:
    source = (b"#include <cuda_runtime.h>\n#define cudaFree hipFree\n#define cudaMalloc(p, n) hipMallocManaged(p, n)\n"
              b"void f(float* p) {\n  cudaMalloc(&p, 4);\n  cudaFree(p);\n}\n")
    out = convert_bytes(tmp_path, source, database=database).decode()
    assert "#define cudaFree hipFree\n#define cudaMalloc(p, n) hipMallocManaged(p, n)\n" in out  # the shim as it was
    assert "  cudaMalloc(&p, 4);\n  hipFree(p);\n" in out  # the project's managed allocation stays its own


def test_a_header_hip_needs_first_is_added_only_when_no_earlier_include_brings_it(tmp_path: Path, database) -> None:
    groups = b"#include <cooperative_groups.h>\n__global__ void k(float* x) { x[0] = 1; }\n"
    after = convert_bytes(tmp_path, b"#include <cuda_runtime.h>\n" + groups, database=database).decode()
    assert after.count("#include <hip/hip_runtime.h>") == 1
    first = convert_bytes(tmp_path, groups, database=database).decode()
    # The preamble's runtime include (nvcc's implicit one) comes first, and is the only one.
    assert first.count("#include <hip/hip_runtime.h>") == 1
    assert first.index("#include <hip/hip_runtime.h>") < first.index("#include <hip/hip_cooperative_groups.h>")
    plain = convert_bytes(tmp_path, b"#include <cooperative_groups.h>\nint n;\n", database=database).decode()
    assert "#include <hip/hip_runtime.h>\n#include <hip/hip_cooperative_groups.h>\n" in plain  # the rule's own
    assert plain.count("#include <hip/hip_runtime.h>") == 1


def test_a_signature_cuda_changed_is_written_by_its_argument_count(tmp_path: Path, database) -> None:
    source = (b"#include <cuda_runtime.h>\nvoid f(cudaGraphExec_t* e, cudaGraph_t g) {\n"
              b"  cudaGraphInstantiate(e, g, 0);\n  cudaGraphInstantiate(e, g, NULL, NULL, 0);\n}\n")
    out = convert_bytes(tmp_path, source, database=database).decode()
    assert "  hipGraphInstantiateWithFlags(e, g, 0);\n  hipGraphInstantiate(e, g, NULL, NULL, 0);\n" in out


def hipcc_syntax(text: str, tmp_path: Path) -> subprocess.CompletedProcess:
    """hipcc's verdict on one HIP source (syntax and types, no code generated)."""
    require_tool("hipcc")
    (tmp_path / "f.hip").write_text(text)
    return subprocess.run(["hipcc", "--offload-arch=gfx90a", "-fsyntax-only", "-x", "hip", str(tmp_path / "f.hip")],
                          capture_output=True, text=True, env={**os.environ, "HIP_PLATFORM": "amd", "TMPDIR": str(tmp_path)})


CAPTURE_INFO = b"""#include <cuda_runtime.h>
void f(cudaStream_t s, cudaEvent_t a, cudaEvent_t b, const cudaExternalSemaphore_t* sem,
       const cudaExternalSemaphoreSignalParams* sp, const cudaExternalSemaphoreWaitParams* wp) {
  cudaStreamCaptureStatus st; unsigned long long id; cudaGraph_t g; const cudaGraphNode_t* d; size_t n; float ms;
  cudaStreamGetCaptureInfo(s, &st, &id);
  cudaStreamGetCaptureInfo(s, &st);
  cudaStreamGetCaptureInfo(s, &st, &id, &g, &d, &n);
  cudaStreamGetCaptureInfo_v2(s, &st, &id, &g, &d, &n);
  cudaEventElapsedTime_v2(&ms, a, b);
  cudaSignalExternalSemaphoresAsync_v2(sem, sp, 1);
  cudaWaitExternalSemaphoresAsync_v2(sem, wp, 1, s);
}
"""


def test_cuda_12_spellings_of_capture_info_events_and_semaphores_build_with_hipcc(tmp_path: Path, database) -> None:
    """CUDA 12's cudaStreamGetCaptureInfo takes CUDA 11's three arguments or up to six (hipStreamGetCaptureInfo_v2's);
    the `_v2` names CUDA 12 headers define those calls as are HIP's names too."""
    out = convert_bytes(tmp_path, CAPTURE_INFO, database=database).decode()
    assert "  hipStreamGetCaptureInfo(s, &st, &id);\n  hipStreamGetCaptureInfo_v2(s, &st);\n" in out
    assert out.count("hipStreamGetCaptureInfo_v2(s, &st, &id, &g, &d, &n);") == 2
    assert "hipEventElapsedTime(&ms, a, b);" in out and "hipSignalExternalSemaphoresAsync(sem, sp, 1, 0);" in out
    assert "hipWaitExternalSemaphoresAsync(sem, wp, 1, s);" in out and "cuda" not in out.replace("cuda_runtime", "")
    build = hipcc_syntax(out, tmp_path)
    assert build.returncode == 0, build.stderr[-2000:]


EDGE_DATA = b"""#include <cuda_runtime.h>
void f(cudaStream_t s, cudaGraph_t g, const cudaGraphNode_t* from, const cudaGraphNode_t* to, cudaGraphNode_t n,
       cudaGraphNode_t* out, size_t* count, const cudaGraphEdgeData* edges) {
  cudaStreamCaptureStatus st;
  const cudaGraphNode_t* deps;
  cudaStreamGetCaptureInfo(s, &st, NULL, &g, &deps, NULL, count);
  cudaGraphAddDependencies(g, from, to, nullptr, 1);
  cudaGraphRemoveDependencies(g, from, to, 0, 1);
  cudaGraphNodeGetDependencies(n, out, NULL, count);
  cudaGraphGetEdges(g, out, out, NULL, count);
  cudaGraphAddDependencies(g, from, to, 1);
  cudaGraphAddDependencies(g, from, to, edges, 1);
}
"""


def test_cuda_13_edge_data_passed_as_null_is_dropped_and_any_other_is_marked(tmp_path: Path, database) -> None:
    """CUDA 13 gave the graph calls an edge-data argument HIP's kept signatures lack: NULL there is dropped (and the
    capture-info call counted without it); edge data itself has no HIP form and gets a marker."""
    out = convert_bytes(tmp_path, EDGE_DATA, database=database).decode()
    assert "  hipStreamGetCaptureInfo_v2(s, &st, NULL, &g, &deps, count);\n" in out
    assert "  hipGraphAddDependencies(g, from, to, 1);\n  hipGraphRemoveDependencies(g, from, to, 1);\n" in out
    assert "  hipGraphNodeGetDependencies(n, out, count);\n  hipGraphGetEdges(g, out, out, count);\n" in out
    assert out.count("  hipGraphAddDependencies(g, from, to, 1);\n") == 2
    assert "// portkit: PK102 cudaGraphAddDependencies" in out and "cudaGraphAddDependencies(g, from, to, edges, 1);" in out
    kept = out.replace("cudaGraphAddDependencies(g, from, to, edges, 1);", "").replace(", const cudaGraphEdgeData* edges", "")
    build = hipcc_syntax(kept, tmp_path)
    assert build.returncode == 0, build.stderr[-2000:]


def test_a_uint3_that_becomes_a_dim3_is_built_as_a_dim3_for_hipcc(tmp_path: Path, database) -> None:
    """HIP's dim3 has no constructor from uint3: make_uint3 becomes dim3 where its value is a dim3, nowhere else."""
    source = (Path(__file__).parent / "cases" / "uint3_dimensions.cu").read_bytes()
    out = convert_bytes(tmp_path, source, database=database).decode()
    assert out.count(" dim3(") == 4 and "<<<dim3(n, 1, 1), threads>>>" in out and "uint3 index = make_uint3(1, 2, 3);" in out
    build = hipcc_syntax(out, tmp_path)
    assert build.returncode == 0, build.stderr[-2000:]
    assert "no viable conversion" in hipcc_syntax(out.replace("dim3(n, 1, 1)", "make_uint3(n, 1, 1)"), tmp_path).stderr


def test_hip_launch_syntax(tmp_path: Path, database) -> None:
    source = (b"template <typename T> __global__ void k(T* a, int n) {}\n__global__ void z() {}\n"
              b"void h(float* d, cudaStream_t s) {\n  k<float><<<4, 64, 0, s>>>(d, 3);\n  z<<<1, 1>>>();\n}\n")
    out = convert_bytes(tmp_path, source, database=database, launch_syntax="hip").decode()
    assert "  hipLaunchKernelGGL(HIP_KERNEL_NAME(k<float>), dim3(4), dim3(64), 0, s, d, 3);\n" in out
    assert "  hipLaunchKernelGGL(z, dim3(1), dim3(1), 0, 0);\n" in out
    assert "hipStream_t s" in out


# --- idempotence and the identity -------------------------------------------------

SNIPPETS = [
    "cudaMalloc(&p, n);", "cudaFree(p);", "cudaStream_t s;", "// cudaMemcpy comment", "/* cudaFree */",
    '"cudaMalloc in a string"', "__shfl_down_sync(0xffffffff, v, 1);", "ncclCommShrink(c, x, 1, o, 0, 0);",
    "#include <curand.h>", "#include \"nccl.h\"", "k<<<1, 32>>>(p);", "cusolverDnCreate(&h);", "int x = warpSize;",
    "#define M(x) cudaFree(x)", "asm(\"mov.u32 %0, %%laneid;\" : \"=r\"(l));", "{", "}", "#if __CUDA_ARCH__ >= 700", "#endif",
    "cudaMallocManaged(&p, n);", "curand_init(1, 2, 3, &st);", "\\", "\t", "caf\u00e9",
]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(SNIPPETS), max_size=14), st.sampled_from(["\n", "\r\n"]))
def test_converting_twice_equals_converting_once(tmp_path: Path, database, pieces: list[str], newline: str) -> None:
    source = newline.join(pieces).encode()
    once = convert_bytes(tmp_path, source, database=database)
    assert convert_bytes(tmp_path, once, database=database) == once


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=300))
def test_no_findings_means_identical_bytes(tmp_path: Path, data: bytes) -> None:
    from portkit.rules import RuleDatabase

    empty = RuleDatabase([], [])
    assert convert_bytes(tmp_path, data.replace(b"\0", b""), database=empty) == data.replace(b"\0", b"")


@pytest.mark.parametrize("source, analyses", [
    # Renamed names, an inserted #include: the tree keeps its shape, so analysing it again would find nothing new.
    (b"__global__ void k(int *p) { int x = ; cudaMalloc(&p, 4); }\n", 0),
    # A cast around an argument changes the shape: the converted text is analysed again.
    (b"__device__ int k(long long v) { int x = ; return __ffs(v); }\n", 1),
])
def test_a_broken_file_is_analysed_again_only_when_its_shape_changed(
        tmp_path: Path, database, monkeypatch, source: bytes, analyses: int) -> None:
    import portkit.run.file as run_file

    analysed: list[bytes] = []
    analyse = run_file.analyze_held
    monkeypatch.setattr(run_file, "analyze_held", lambda job, path, data, prepared=None: (
        analysed.append(data), analyse(job, path, data, prepared))[1])
    once = convert_bytes(tmp_path, source, database=database)
    assert b"hip/hip_runtime.h" in once and len(analysed) == analyses
    assert convert_bytes(tmp_path, once, database=database) == once


def test_tree_shape_ignores_names_comments_and_includes_only() -> None:
    from portkit.parse import prepare_source
    from portkit.parse.recovery import tree_shape

    def shape(text: bytes) -> str:
        return tree_shape(prepare_source(text).tree.root_node)

    broken = shape(b"void f() { int x = ; cudaFree(p); }\n")
    assert shape(b'#include "hip/hip_runtime.h"\nvoid f() { int x = ; // PORTKIT: note\n hipFree(p); }\n') == broken
    assert shape(b"void f() { int x = ; cudaFree((void*)p); }\n") != broken
    assert shape(b"void f() { int x = 0; cudaFree(p); }\n") != broken


def test_the_pipeline_hands_convert_only_the_findings_it_acts_on(tmp_path: Path, database, monkeypatch) -> None:
    from portkit.convert.sources import acted_on

    monkeypatch.setenv("PORTKIT_CACHE_DIR", str(tmp_path / "cache"))
    data = (b"__global__ void k(float *x) { __syncthreads(); x[threadIdx.x] = __shfl_down_sync(0xffffffff, 1.0f, 1); }\n"
            b"void h(float *d) { cudaMallocManaged(&d, 4); k<<<1, 32>>>(d); cuSomethingNew(d); cudaFree(d); }\n")
    source = tmp_path / "k.cu"
    source.write_bytes(data)
    settings = RunSettings(paths=(str(source),), root=tmp_path, target=HIP52, jobs=1)
    every = run_project(settings, RunRequest(keep_sources=True, rules=database)).findings
    fresh, cached = (run_project(settings, RunRequest(keep_sources=True, rules=database, wanted=acted_on)).findings for _ in "12")
    assert fresh == cached == [f for f in every if acted_on(f)] and len(fresh) < len(every)
    dropped = {(f.code, f.name) for f in every if f not in fresh}  # the kernel, and __syncthreads: the same on HIP
    assert {("PK200", "k"), ("PK100", "__syncthreads")} <= dropped
    context, options = run_project(settings, RunRequest(rules=database)).context, EditOptions()
    assert convert_stable(str(source), data, fresh, context, options, True, "").converted == \
        convert_stable(str(source), data, every, context, options, True, "").converted


def test_a_failure_after_writing_began_leaves_a_tree_a_later_run_writes_over(tmp_path: Path, monkeypatch) -> None:
    import portkit.run.file as run_file
    from portkit.convert.project_conversion import ConvertOptions, convert_project

    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "fine.cu").write_text("void f(float *p) { cudaFree(p); }\n")
    # A syntax error whose conversion changes the tree's shape: a second pass, after the first files are written.
    (src / "broken.cu").write_text("__device__ int k(long long v) { int x = ; return __ffs(v); }\n")
    settings = RunSettings(paths=(str(src),), root=tmp_path, target=HIP52, jobs=1)

    def fail(*args, **kwargs):
        raise RuntimeError("interrupted")
    monkeypatch.setattr(run_file, "analyze_held", fail)
    with pytest.raises(RuntimeError):
        convert_project(settings, ConvertOptions(output=out))
    assert (out / "fine.cu").read_text().endswith("hipFree(p); }\n") and not (out / "broken.cu").exists()
    assert list(json.loads((out / MANIFEST).read_text())["files"]) == ["fine.cu"]
    monkeypatch.undo()
    assert main(["convert", "--rocm-version", "5.2", str(src), "-o", str(out)]) == 0
    assert "__ffs(static_cast<int>(v))" in (out / "broken.cu").read_text()


def test_the_second_pass_runs_in_the_first_pass_processes_with_the_project_names(tmp_path: Path, monkeypatch) -> None:
    import portkit.run.workers as workers_module
    from portkit.settings import available_cpus

    if available_cpus() < 2:
        pytest.skip("one CPU: no worker processes")
    src = tmp_path / "src"
    src.mkdir()
    for i in range(20):  # enough files for worker processes
        (src / f"fine{i}.cu").write_text(f"void f{i}(float *p) {{ cudaFree(p); }}\n")
    # Broken files whose conversion changes the tree's shape: parsed and analysed again. One calls a function the
    # project defines in another file under a CUDA name: the second pass must know it is the project's own.
    for i in range(6):
        (src / f"broken{i}.cu").write_text(f"__device__ int k{i}(long long v) {{ int x = ; cudaFuncX(); return __ffs(v); }}\n")
    (src / "own.cu").write_text("void cudaFuncX() {}\n")
    pools: list[int] = []
    start = workers_module._worker_pool
    monkeypatch.setattr(workers_module, "_worker_pool", lambda job, workers: (pools.append(workers), start(job, workers))[1])
    outputs = {}
    for jobs in (2, 1):
        out = tmp_path / f"out{jobs}"
        assert main(["convert", "--no-cache", "--rocm-version", "5.2", "-j", str(jobs), str(src), "-o", str(out)]) == 0
        outputs[jobs] = {p.name: p.read_bytes() for p in out.iterdir()}
    assert pools == [2]  # one pool, for both passes
    assert outputs[2] == outputs[1]
    broken = outputs[2]["broken0.cu"].decode()
    assert "__ffs(static_cast<int>(v))" in broken and "cudaFuncX();" in broken and "portkit:" not in broken


@pytest.mark.parametrize("example", ["saxpy", "option-pricer"])
def test_examples_convert_idempotently(example: str, tmp_path: Path, capsys) -> None:
    once, twice = tmp_path / "once", tmp_path / "twice"
    assert main(["convert", "--rocm-version", "5.2", str(EXAMPLES / example), "-o", str(once)]) == 0
    assert main(["convert", "--rocm-version", "5.2", str(once), "-o", str(twice)]) == 0
    files = sorted(p.relative_to(once) for p in once.rglob("*") if p.is_file() and p.name != MANIFEST)
    assert files == sorted(p.relative_to(EXAMPLES / example) for p in (EXAMPLES / example).rglob("*") if p.is_file())
    for relative in files:
        assert (twice / relative).read_bytes() == (once / relative).read_bytes(), relative


def _cuda_looking_hip_uses(database) -> tuple[str, list[str]]:
    """A file using every CUDA name whose HIP spelling looks like a CUDA name itself (RCCL's ncclAllToAll for
    ncclAlltoAll), each where its kind is used, and those spellings."""
    uses, spellings = [], []
    for rule in database.named_rules():
        written = [name for name in (rule.hip, rule.older_hip) if name and name != rule.cuda]
        if not any(CUDA_LOOKING.match(name) for name in written) or rule.kind == "field":
            continue
        spellings += written
        if rule.kind == "type" and "::" not in rule.cuda:
            uses.append(f"  {rule.cuda}* p{len(uses)} = nullptr; (void)p{len(uses)};")
        elif rule.kind == "type":  # a namespace: `thrust::cuda`
            uses.append(f"  using namespace {rule.cuda};")
        else:
            uses.append(f"  (void){rule.cuda};")
    return "void use() {\n" + "\n".join(uses) + "\n}\n", spellings


@pytest.mark.parametrize("version", ["5.2", "6.4"])
def test_hip_spellings_that_look_like_cuda_names_convert_idempotently(version: str, database, tmp_path: Path) -> None:
    """What convert writes is no CUDA name no rule knows: converting its output again changes nothing."""
    source, spellings = _cuda_looking_hip_uses(database)
    assert spellings  # RCCL's and rocThrust's at least
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "uses.cu").write_text(source)
    once, twice = tmp_path / "once", tmp_path / "twice"
    assert main(["convert", "--no-cache", "--rocm-version", version, str(tmp_path / "in"), "-o", str(once)]) == 0
    converted = (once / "uses.cu").read_text()
    assert "PK105" not in converted
    assert any(name in converted for name in spellings)
    assert main(["convert", "--no-cache", "--rocm-version", version, str(once), "-o", str(twice)]) == 0
    assert (twice / "uses.cu").read_text() == converted


# --- the command, with the real compiler ----------------------------------------


def test_converted_sources_compile_with_hipcc(tmp_path: Path, capsys) -> None:
    require_tool("hipcc")
    out = tmp_path / "out"
    shutil.copytree(CONVERT_INPUTS, tmp_path / "in", ignore=shutil.ignore_patterns("compiles"))
    shutil.copy(EXAMPLES / "saxpy" / "saxpy.cu", tmp_path / "in")
    assert main(["convert", "--rocm-version", "5.2", "--verify", str(tmp_path / "in"), "-o", str(out)]) == 0
    report = capsys.readouterr().out
    # 3 C++ units and a C program
    assert "hipcc: 4 build, 0 stop at a marked site (expected), 0 fail unmarked, 0 not verifiable here" in report


@pytest.mark.parametrize("options", [["--roc"], ["--launch-syntax", "hip"]], ids=["roc", "hip-launch"])
def test_variants_compile_with_hipcc(options: list[str], tmp_path: Path, capsys) -> None:
    require_tool("hipcc")
    source = CONVERT_INPUTS / "rng_and_warps.cu"
    assert main(["convert", "--rocm-version", "5.2", "--verify", *options, str(source), "-o", str(tmp_path)]) == 0
    assert "hipcc: 1 build, 0 stop at a marked site (expected), 0 fail unmarked" in capsys.readouterr().out


def test_verify_reports_missing_rocm_libraries_as_not_verifiable(tmp_path: Path, capsys) -> None:
    require_tool("hipcc")
    assert main(["convert", "--verify", str(EXAMPLES / "option-pricer"), "-o", str(tmp_path)]) == 0
    report = capsys.readouterr().out
    assert "hipcc: 0 build, 0 stop at a marked site (expected), 0 fail unmarked, 5 not verifiable here" in report
    assert "needs <hipsolver/hipsolver.h>, which hipcc did not find" in report


def test_verify_compiles_hip_units_and_the_host_files_convert_changed(tmp_path: Path, capsys) -> None:
    """A C file convert left alone is built by the C compiler, as before: hipcc would read it as C++."""
    require_tool("hipcc")
    source = tmp_path / "in"
    (source / "app").mkdir(parents=True)
    (tmp_path / "include").mkdir()
    (tmp_path / "include" / "sizes.h").write_text("#define BLOCK 64\n")
    (source / "app" / "main.cu").write_text('#include "sizes.h"\n__global__ void k(float *p) { p[threadIdx.x] = 0; }\n'
                                            "int main() { k<<<1, BLOCK>>>(nullptr); return 0; }\n")
    (source / "legacy.c").write_text("void main(void) {}\n")  # C accepts it; C++ does not
    shutil.copy(CONVERT_INPUTS / "nvml_monitor.c", source)
    assert main(["convert", "--verify", str(source), "-o", str(tmp_path / "out")]) == 0
    report = capsys.readouterr().out
    assert "hipcc: 1 build, 0 stop at a marked site (expected), 0 fail unmarked, 1 not verifiable here" in report
    assert "legacy.c" not in report
    assert "main.cu: not verifiable here: needs <sizes.h>, which hipcc did not find" in report
    assert "nvml_monitor.c: pass" not in report  # a unit that compiled is listed with --details
    assert main(["convert", "--verify", "--details", f"--verify-flag=-I{tmp_path / 'include'}", "--verify-flag", "-std=c++14",
                 str(source), "-o", str(tmp_path / "out")]) == 0
    report = capsys.readouterr().out
    assert "hipcc: 2 build, 0 stop at a marked site (expected), 0 fail unmarked, 0 not verifiable here" in report
    assert "main.cu: builds" in report


def test_verify_include_flags_name_the_converted_tree(tmp_path: Path, capsys, monkeypatch) -> None:
    """--verify-flag=-Iheaders was looked for in the shell's directory, so the unit was "not verifiable"; an absolute
    -I into the input tree gave hipcc the header as it was before converting. Both now name the converted copy."""
    require_tool("hipcc")
    source = tmp_path / "in"
    (source / "app").mkdir(parents=True)
    (source / "headers").mkdir()
    (source / "headers" / "ops.cuh").write_text("#include <cuda_runtime.h>\ninline void wait() { cudaDeviceSynchronize(); }\n")
    (source / "app" / "main.cu").write_text('#include "ops.cuh"\n__global__ void k(float *p) { p[threadIdx.x] = 0; }\n'
                                            "int main() { k<<<1, 64>>>(nullptr); wait(); return 0; }\n")
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    for flags in (["--verify-flag=-Iheaders"], ["--verify-flag", "-iquote", "--verify-flag", "headers"],
                  [f"--verify-flag=-I{source / 'headers'}"]):
        assert main(["convert", "--verify", "--details", *flags, str(source), "-o", str(tmp_path / "out")]) == 0, flags
        captured = capsys.readouterr()
        assert "hipcc: 1 build, 0 stop at a marked site (expected), 0 fail unmarked, 0 not verifiable here" in captured.out
        into_input = "points into the input tree, whose headers are not converted: hipcc was given its converted copy " \
            f"{tmp_path / 'out' / 'headers'}"
        assert (into_input in captured.err) == flags[0].startswith(f"--verify-flag=-I{tmp_path}"), flags
    assert main(["convert", "--verify", "--verify-flag=-Inowhere", str(source), "-o", str(tmp_path / "out")]) == 0
    assert "--verify-flag -Inowhere: no such directory in the converted tree nor here" in capsys.readouterr().err


def test_verify_flag_needs_verify(tmp_path: Path, capsys) -> None:
    assert main(["convert", "--verify-flag=-Iinclude", str(CONVERT_INPUTS / "rng_and_warps.cu"),
                 "-o", str(tmp_path)]) == 2
    assert "--verify-flag is for --verify" in capsys.readouterr().err


HOST_FILE_WITH_GPU_BRANCH = """#include <cstdio>
#ifdef __NVCC__
__global__ void zero(double *a) { a[threadIdx.x] = 0; }
#endif
void report() {
#if defined(__CUDACC__)
  void *p = nullptr;
  cudaMalloc(&p, 8);
#endif
  std::puts("host");
}
"""


def test_a_host_file_whose_cuda_is_in_gpu_compiler_branches_still_builds_with_gxx(tmp_path: Path) -> None:
    """g++ builds such a file (mpicxx, a host library): the runtime header goes under __HIPCC__ with the code."""
    require_tool("hipcc")
    require_tool("g++")
    out = convert_bytes(tmp_path, HOST_FILE_WITH_GPU_BRANCH.encode(), name="host.cc")
    assert out.startswith(b"#ifdef __HIPCC__\n#include <hip/hip_runtime.h>\n#endif\n")
    (tmp_path / "out.cc").write_bytes(out)
    subprocess.run(["g++", "-fsyntax-only", str(tmp_path / "out.cc")], check=True)
    subprocess.run(["hipcc", "--offload-arch=gfx90a", "-fsyntax-only", "-x", "hip", str(tmp_path / "out.cc")], check=True,
                   env={**os.environ, "HIP_PLATFORM": "amd"}, capture_output=True)
    # nvcc compiles a .cu file, branches and all: its runtime header stays unconditional.
    assert convert_bytes(tmp_path, HOST_FILE_WITH_GPU_BRANCH.encode(), name="k.cu").startswith(
        b"#include <hip/hip_runtime.h>\n#include <cstdio>")


TABLES_HEADER = """// shared by a C library and its GPU backend
#pragma once
#if defined(IMPL_GPU)
#define TABLE_BEGIN(type, name, size) static const __device__ type name[size] = {
#else
#define TABLE_BEGIN(type, name, size) static const type name[size] = {
#endif
#define TABLE_END() };
TABLE_BEGIN(int, lut, 4) 1, 2, 3, 4 TABLE_END()
"""


def test_a_header_whose_device_syntax_is_in_macro_bodies_still_builds_as_c(tmp_path: Path) -> None:
    """llama.cpp's ggml-common.h: `__device__` only in a #define's text, which a C file never expands. gcc meets
    no runtime header (it stops at HIP's platform check); hipcc gets it."""
    require_tool("hipcc")
    gcc = require_tool("gcc")
    tree = tmp_path / "in"
    tree.mkdir()
    (tree / "tables.h").write_text(TABLES_HEADER)
    (tree / "cpu.c").write_text('#include "tables.h"\nint main(void) { return lut[0]; }\n')
    (tree / "k.cu").write_text('#define IMPL_GPU\n#include "tables.h"\n__global__ void k(int *x) { x[0] = lut[1]; }\n')
    out = tmp_path / "out"
    assert main(["convert", "--no-cache", str(tree), "-o", str(out)]) == 0
    assert (out / "tables.h").read_text().startswith("// shared by a C library and its GPU backend\n#pragma once\n"
                                                     "#ifdef __HIPCC__\n#include <hip/hip_runtime.h>\n#endif\n")
    subprocess.run([gcc, "-fsyntax-only", str(out / "cpu.c")], check=True)
    subprocess.run(["hipcc", "--offload-arch=gfx90a", "-fsyntax-only", "-x", "hip", str(out / "k.cu")], check=True,
                   env={**os.environ, "HIP_PLATFORM": "amd"}, capture_output=True)


@pytest.mark.parametrize("opening", ["// the project's dot products\n#pragma once  // one copy\n",
                                     "/* the project's dot products */\n#ifndef DOT_CUH /* guard */\n#define DOT_CUH\n"])
def test_helpers_go_after_a_pragma_or_guard_line_that_ends_in_a_comment(tmp_path: Path, opening: str) -> None:
    """A comment, then `#pragma once` (or the include guard) with a comment of its own: the runtime include and the
    helper blocks convert adds go below that line, in the header's one copy, and hipcc builds a unit including it
    twice."""
    require_tool("hipcc")
    body = "#include <cuda_runtime.h>\n__device__ inline int dot(int a, int b) { return __dp4a(a, b, 0); }\n"
    closing = "#endif\n" if "#ifndef" in opening else ""
    tree = {"dot.cuh": opening + body + closing,
            "k.cu": '#include "dot.cuh"\n#include "dot.cuh"\n__global__ void k(int *p) { p[0] = dot(p[1], p[2]); }\n'}
    out = convert_tree(tmp_path, tree)
    assert out["dot.cuh"].startswith(opening + "/* portkit: ")
    subprocess.run(["hipcc", "--offload-arch=gfx90a", "-fsyntax-only", "-x", "hip", str(tmp_path / "out" / "k.cu")],
                   check=True, env={**os.environ, "HIP_PLATFORM": "amd"}, capture_output=True)


# A math library for host and GPU compilers alike (glm): its functions are `__host__ __device__` only where a GPU
# compiler builds them, through a macro; g++ builds the host program, hipcc the kernels.
HOST_AND_DEVICE_LIBRARY = {
    "setup.hpp": "#pragma once\n#include <cmath>\n#include <cstdlib>\n#if defined(__CUDACC__)\n"
                 "#  define MYLIB_FUNC_QUALIFIER __host__ __device__ inline\n#else\n#  define MYLIB_FUNC_QUALIFIER inline\n#endif\n"
                 "#if __cplusplus >= 201402L\n#  define MYLIB_CONSTEXPR constexpr\n#else\n#  define MYLIB_CONSTEXPR\n#endif\n",
    # A C library name called in a function the macro makes a device function for GPU compilers only.
    "common.inl": '#include "setup.hpp"\nnamespace mylib {\n'
                  "MYLIB_FUNC_QUALIFIER float magnitude(float x) { return fabsf(x); }\n}\n",
    # glm's matrix_common.inl: an overload of abs, `MYLIB_CONSTEXPR mat<C, R, T> abs` misread as a qualified name.
    "mat.inl": '#include "setup.hpp"\nnamespace mylib {\ntemplate<int C, int R, typename T> struct mat { T v[C * R]; };\n'
               "template<int C, int R, typename T>\n"
               "MYLIB_FUNC_QUALIFIER MYLIB_CONSTEXPR mat<C, R, T> abs(mat<C, R, T> const& x)\n{\n  return x;\n}\n}\n",
    "main.cpp": '#include "common.inl"\n#include "mat.inl"\n'
                "int main() { return mylib::magnitude(-1.0f) == 1.0f && mylib::abs(mylib::mat<2, 2, int>{}).v[0] == 0 ? 0 : 1; }\n",
    "k.cu": '#include "common.inl"\n#include "mat.inl"\n__global__ void k(float* x) { x[0] = mylib::magnitude(x[0]); }\n',
}


def test_a_host_library_whose_device_functions_come_from_a_guarded_macro_still_builds_with_gxx(tmp_path: Path) -> None:
    """glm's matrix_common.inl and glm.cpp got an unconditional runtime include, and g++ stopped at HIP's platform
    check: a C library name is C's to g++, and an overload's misread name no use of CUDA's. What hipcc needs comes
    under __HIPCC__, as the code's device qualifiers do; converting the output again changes nothing."""
    gxx = require_tool("g++")
    require_tool("hipcc")
    out = convert_tree(tmp_path, HOST_AND_DEVICE_LIBRARY)
    assert out["main.cpp"] == HOST_AND_DEVICE_LIBRARY["main.cpp"] and out["mat.inl"] == HOST_AND_DEVICE_LIBRARY["mat.inl"]
    assert out["common.inl"].startswith("#ifdef __HIPCC__\n#include <hip/hip_runtime.h>\n#endif\n")
    subprocess.run([gxx, "-std=c++17", "-fsyntax-only", str(tmp_path / "out" / "main.cpp")], check=True)
    subprocess.run(["hipcc", "--offload-arch=gfx90a", "-fsyntax-only", "-x", "hip", str(tmp_path / "out" / "k.cu")],
                   check=True, env={**os.environ, "HIP_PLATFORM": "amd"}, capture_output=True)
    assert main(["convert", "--no-cache", "--rocm-version", "5.2", str(tmp_path / "out"), "-o", str(tmp_path / "again")]) == 0
    for name in HOST_AND_DEVICE_LIBRARY:
        assert (tmp_path / "again" / name).read_text() == out[name], name


def test_converted_makefile_builds_saxpy_with_hipcc(tmp_path: Path) -> None:
    require_tool("hipcc")
    out = tmp_path / "saxpy"
    assert main(["convert", str(EXAMPLES / "saxpy"), "-o", str(out)]) == 0
    # TMPDIR: hipcc leaves an empty directory per link in the temporary directory.
    build = subprocess.run(["make", "-C", str(out)], capture_output=True, text=True,
                           env={**os.environ, "HIP_PLATFORM": "amd", "TMPDIR": str(tmp_path)})
    assert build.returncode == 0, build.stderr[-2000:]
    assert (out / "saxpy").is_file() and os.access(out / "saxpy", os.X_OK)


BUILD_SCRIPT = """#!/bin/bash
# Build saxpy for an A100: nvcc, sm_80.
set -eu
ARCH=sm_80
NVCC=${NVCC:-nvcc}
FILES=(saxpy.cu)
echo "building ${#FILES[@]} file(s) with $# argument(s) by nvcc"
$NVCC -O3 -arch=${ARCH} --use_fast_math -lineinfo -o saxpy "${FILES[@]}" -lcudart # -arch=sm_80 stays in a comment
"""


def test_converted_build_script_builds_saxpy_with_hipcc(tmp_path: Path) -> None:
    require_tool("hipcc")
    src, out = tmp_path / "src", tmp_path / "out"
    shutil.copytree(EXAMPLES / "saxpy", src, ignore=shutil.ignore_patterns("Makefile"))
    (src / "build.sh").write_text(BUILD_SCRIPT)
    assert main(["convert", str(src), "-o", str(out)]) == 0
    script = (out / "build.sh").read_text()
    assert "ARCH=gfx90a\nNVCC=${NVCC:-hipcc}\n" in script and "${#FILES[@]} file(s) with $# argument(s) by hipcc" in script
    assert "hipcc -O3" not in script and "$NVCC -O3 --offload-arch=${ARCH} -ffast-math -gline-tables-only" in script
    assert script.endswith("-lamdhip64 # -arch=sm_80 stays in a comment\n")
    build = subprocess.run(["bash", "build.sh"], cwd=out, capture_output=True, text=True,
                           env={**os.environ, "HIP_PLATFORM": "amd", "TMPDIR": str(tmp_path)})
    assert build.returncode == 0, build.stderr[-2000:]
    assert (out / "saxpy").is_file() and os.access(out / "saxpy", os.X_OK)


# --- output modes and safety -----------------------------------------------------


def project(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.cu").write_text("void f(float* p) { cudaFree(p); }\n")
    (src / "notes.txt").write_text("not code\n")
    os.chmod(src / "a.cu", 0o640)
    return src


PTX_INC = """__device__ __forceinline__ int load_acquire(const int* ptr)
{
    int result;
    asm volatile("ld.acquire.gpu.b32 %0, [%1];" : "=r"(result) : "l"(ptr) : "memory");
    return result;
}
"""


def test_a_file_a_source_includes_is_scanned_and_converted_whatever_its_name(tmp_path: Path, capsys) -> None:
    """ginkgo's memory.nvidia.hpp.inc: PTX that a .cu includes is found by scan and marked by convert."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "k.cu").write_text('#include "mem.hpp.inc"\n__global__ void k(const int* f, int* o) { o[0] = load_acquire(f); }\n')
    (src / "mem.hpp.inc").write_text(PTX_INC)
    settings = RunSettings(paths=(str(src),), root=tmp_path, target=HIP52, jobs=1, cache=False)
    result = run_project(settings)
    assert [(Path(f.path).name, f.code, f.library) for f in result.findings if f.library == ASM_LIBRARY] == [
        ("mem.hpp.inc", "PK102", ASM_LIBRARY)]
    assert main(["convert", "--no-cache", "--rocm-version", "5.2", str(src), "-o", str(tmp_path / "out")]) == 0
    assert "2 files analysed" in capsys.readouterr().out
    converted = (tmp_path / "out" / "mem.hpp.inc").read_text()
    assert "// portkit: PK102 asm: PTX is NVIDIA's ISA" in converted and converted != PTX_INC


VENDORED = (b"#pragma once\n#define EIGEN_LANES 4\n// cudaMalloc in a vendored comment, kept as it is\n"
            b"inline int eigen_dummy() { return 1; }\n")


def vendored_project(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    (src / "third_party" / "eigen").mkdir(parents=True)
    (src / "third_party" / "eigen" / "Dense.h").write_bytes(VENDORED)
    (src / "third_party" / "eigen" / "kernels.cu").write_bytes(b"void f(float* p) { cudaFree(p); }\n")
    (src / "k.cu").write_text('#include "third_party/eigen/Dense.h"\n'
                              "__global__ void k(int* p) { p[threadIdx.x] = EIGEN_LANES; }\n"
                              "int host() { return eigen_dummy(); }\n")
    (src / ".gitignore").write_text("build/\n")
    (src / "build").mkdir()
    (src / "build" / "k.o").write_bytes(b"\0object")
    return src


def test_excluded_files_are_copied_as_they_are(tmp_path: Path, capsys) -> None:
    """-x third_party/: not scanned, not converted, but in the output tree, so the converted project builds;
    what .gitignore ignores stays out, as for any copy."""
    src = vendored_project(tmp_path)
    out = tmp_path / "out"
    assert main(["convert", "--no-cache", str(src), "-o", str(out), "-x", "third_party/"]) == 0
    summary = capsys.readouterr().out
    assert "1 file analysed" in summary and "1 other file copied, 2 excluded files copied as they are" in summary
    for name in ("third_party/eigen/Dense.h", "third_party/eigen/kernels.cu"):
        assert (out / name).read_bytes() == (src / name).read_bytes()
    assert not (out / "build").exists()
    assert set(json.loads((out / MANIFEST).read_text())["files"]) == {
        "k.cu", ".gitignore", "third_party/eigen/Dense.h", "third_party/eigen/kernels.cu"}


def test_a_unit_including_an_excluded_header_compiles_with_hipcc(tmp_path: Path) -> None:
    hipcc = require_tool("hipcc")
    src = vendored_project(tmp_path)
    out = tmp_path / "out"
    assert main(["convert", "--no-cache", str(src), "-o", str(out), "-x", "third_party/"]) == 0
    done = subprocess.run([hipcc, "--offload-arch=gfx90a", "-fsyntax-only", "-x", "hip", str(out / "k.cu"), "-I", str(out)],
                          capture_output=True, text=True, env={**os.environ, "HIP_PLATFORM": "amd"})
    assert done.returncode == 0, done.stderr


def ignored_but_committed(tmp_path: Path) -> Path:
    """A project whose .gitignore names files it commits anyway (darknet's src/version.h, "managed by CMake"),
    and a build directory it does not commit."""
    src = tmp_path / "src"
    (src / "configs").mkdir(parents=True)
    (src / "build").mkdir()
    (src / ".gitignore").write_text("gen.h\nconfigs/\nbuild/\n*.gen.cu\n")
    (src / "gen.h").write_text('#define APP_VERSION "1.0"\n')
    (src / "configs" / "net.cfg").write_text("[net]\n")
    (src / "ops.gen.cu").write_text("void release(float* p) { cudaFree(p); }\n")
    (src / "build" / "k.o").write_bytes(b"\0object")
    (src / "k.cu").write_text('#include "gen.h"\n__global__ void k(char* p) { p[0] = APP_VERSION[0]; }\n'
                              "int main() { char* d; cudaMalloc(&d, 1); k<<<1, 1>>>(d); return 0; }\n")
    return src


def test_files_git_tracks_are_copied_and_converted_whatever_gitignore_says(tmp_path: Path, capsys) -> None:
    """git's rule: .gitignore applies only to untracked files. A committed header it names is copied (the tree
    builds with hipcc), a committed source it names is converted; the untracked build output stays out, said so."""
    git = require_tool("git")
    hipcc = require_tool("hipcc")
    src = ignored_but_committed(tmp_path)
    subprocess.run([git, "init", "-q", str(src)], check=True)
    subprocess.run([git, "-C", str(src), "add", "-f", "k.cu", ".gitignore", "gen.h", "configs/net.cfg", "ops.gen.cu"],
                   check=True)
    out = tmp_path / "out"
    assert main(["convert", "--no-cache", str(src), "-o", str(out)]) == 0
    captured = capsys.readouterr()
    assert (out / "gen.h").read_bytes() == (src / "gen.h").read_bytes()
    assert (out / "configs" / "net.cfg").read_bytes() == (src / "configs" / "net.cfg").read_bytes()
    assert "hipFree(p)" in (out / "ops.gen.cu").read_text()
    assert not (out / "build").exists()
    assert f"1 path not copied, ignored by .gitignore and not tracked by git: {src / 'build'}{os.sep}" in captured.err
    done = subprocess.run([hipcc, "--offload-arch=gfx90a", "-fsyntax-only", "-x", "hip", str(out / "k.cu")],
                          capture_output=True, text=True, env={**os.environ, "HIP_PLATFORM": "amd"})
    assert done.returncode == 0, done.stderr


def test_without_git_what_gitignore_keeps_out_of_the_copy_is_reported(tmp_path: Path, capsys) -> None:
    """A tree from an archive has .gitignore files but no git to say what was committed: each path left out is
    named (a header the build needs must not vanish unseen)."""
    src = ignored_but_committed(tmp_path)
    assert main(["convert", "--no-cache", str(src), "-o", str(tmp_path / "out")]) == 0
    err = capsys.readouterr().err
    assert "4 paths not copied, ignored by .gitignore, in no git work tree" in err
    for left_out in ("build" + os.sep, "configs" + os.sep, "gen.h", "ops.gen.cu"):
        assert str(src / left_out) in err


def test_output_tree_mirrors_input_with_modes(tmp_path: Path) -> None:
    src = project(tmp_path)
    assert main(["convert", str(src), "-o", str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "a.cu").read_text() == "#include <hip/hip_runtime.h>\nvoid f(float* p) { hipFree(p); }\n"
    assert (tmp_path / "out" / "notes.txt").read_text() == "not code\n"
    assert (tmp_path / "out" / "a.cu").stat().st_mode & 0o777 == 0o640
    assert (src / "a.cu").read_text() == "void f(float* p) { cudaFree(p); }\n"


@pytest.mark.parametrize("where", ["same", "inside"])
def test_refuses_to_write_into_its_input(where: str, tmp_path: Path, capsys) -> None:
    src = project(tmp_path)
    out = src if where == "same" else src / "hip"
    assert main(["convert", str(src), "-o", str(out)]) == 2
    assert ("is the input" if where == "same" else "lies inside the input") in capsys.readouterr().err
    assert (src / "a.cu").read_text() == "void f(float* p) { cudaFree(p); }\n"


def test_in_place_keeps_a_backup(tmp_path: Path) -> None:
    src = project(tmp_path)
    assert main(["convert", "--in-place", str(src)]) == 0
    assert (src / "a.cu").read_text() == "#include <hip/hip_runtime.h>\nvoid f(float* p) { hipFree(p); }\n"
    assert (src / "a.cu.orig").read_text() == "void f(float* p) { cudaFree(p); }\n"
    assert (src / "a.cu").stat().st_mode & 0o777 == 0o640
    assert main(["convert", "--in-place", str(src)]) == 0  # nothing left to change: the backup stays the original
    assert (src / "a.cu.orig").read_text() == "void f(float* p) { cudaFree(p); }\n"


def test_in_place_without_backup(tmp_path: Path) -> None:
    src = project(tmp_path)
    assert main(["convert", "--in-place", "--no-backup", str(src)]) == 0
    assert not (src / "a.cu.orig").exists()


def test_diff_writes_nothing(tmp_path: Path, capsys) -> None:
    src = project(tmp_path)
    before = sorted(p.name for p in src.iterdir())
    assert main(["convert", "--diff", str(src)]) == 0
    out = capsys.readouterr().out
    assert f"--- a/{src / 'a.cu'}" in out and "-void f(float* p) { cudaFree(p); }" in out and "+void f(float* p) { hipFree(p); }" in out
    assert sorted(p.name for p in src.iterdir()) == before


@pytest.mark.parametrize("argv", [["convert", "x"], ["convert", "--diff", "--in-place", "x"]], ids=["none", "two"])
def test_exactly_one_output_mode(argv: list[str], capsys) -> None:
    assert main(argv) == 2
    assert "choose exactly one of -o OUTDIR, --in-place or --diff" in capsys.readouterr().err


def test_no_write_escapes_through_a_symlink(tmp_path: Path, capsys) -> None:
    src = project(tmp_path)
    (src / "sub").mkdir()
    (src / "sub" / "b.cu").write_text("int b;\n")
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    out.mkdir()
    elsewhere.mkdir()
    os.symlink(elsewhere, out / "sub")
    assert main(["convert", "--force", str(src), "-o", str(out)]) == 2
    assert "a symbolic link inside the output directory; refusing to write through it" in capsys.readouterr().err
    assert list(elsewhere.iterdir()) == []


# --- the hipify-perl backend ------------------------------------------------------


def test_hipify_perl_backend(tmp_path: Path, capsys, monkeypatch) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.cu").write_text("#include <cuda_runtime.h>\n"
                              "void f(float* p, ncclComm_t c) { cudaFree(p); ncclCommShrink(c, 0, 0, 0, 0, 0); }\n")
    log = tmp_path / "argv.jsonl"
    monkeypatch.setenv("FAKE_HIPIFY_LOG", str(log))
    code = main(["convert", "--backend", "hipify-perl", "--hipify-perl", str(FAKE_HIPIFY), "--roc", "--launch-syntax", "hip",
                 str(src), "-o", str(tmp_path / "out")])
    assert code == 0
    out = (tmp_path / "out" / "a.cu").read_text()
    assert out.startswith("#include <hip/hip_runtime.h>\n// portkit: PK102 ncclCommShrink: ")
    assert "hipFree(p);" in out
    assert json.loads(log.read_text()) == ["-quiet-warnings", "-roc", "-hip-kernel-execution-syntax", str(src / "a.cu")]
    assert "1 marker\n" in capsys.readouterr().out


def test_summary_counts_many_markers_by_kind_and_details_lists_each(tmp_path: Path, monkeypatch, capsys) -> None:
    """A big tree's summary fits a screen: more than 20 markers are counted per code and name."""
    src = tmp_path / "src"
    src.mkdir()
    managed = "".join(f"  cudaMallocManaged(&p{i}, 4);\n" for i in range(30))
    (src / "a.cu").write_text("void f() {\n" + "".join(f"  float* p{i};\n" for i in range(30)) + managed + "}\n")
    (src / "b.cu").write_text("void g(float* q) { cudaMallocManaged(&q, 4); }\n"
                              "void h(ncclComm_t c) { ncclCommShrink(c, 0, 0, 0, 0, 0); }\n")
    monkeypatch.setenv("COLUMNS", "100")
    assert main(["convert", str(src), "-o", str(tmp_path / "out")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == "Manual work: 32 markers in 2 files, by kind (each a '// portkit:' comment; --details lists every one):"
    rows = [line.split() for line in lines[3:]]
    assert rows[0][:4] == ["31", "2", "PK101", "cudaMallocManaged"] and rows[1][:4] == ["1", "1", "PK102", "ncclCommShrink"]
    assert len(lines) == 5 and max(len(line) for line in lines[2:]) <= 100
    assert main(["convert", "--details", str(src), "-o", str(tmp_path / "out")]) == 0
    listed = [line for line in capsys.readouterr().out.splitlines() if ".cu:" in line]
    assert len(listed) == 32 and "/a.cu:32: PK101 cudaMallocManaged: " in listed[0]
    (src / "a.cu").write_text("void f(float* p) { cudaMallocManaged(&p, 4); }\n")
    assert main(["convert", str(src), "-o", str(tmp_path / "out")]) == 0  # 3 markers: each listed
    assert sum(".cu:" in line for line in capsys.readouterr().out.splitlines()) == 3


def test_summary_counts_the_build_file_markers_it_lists(tmp_path: Path, capsys) -> None:
    """A converted Makefile's markers are counted in the summary line, not only listed below it (mumax3), and a
    marker text written on several lines is one row."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "k.cu").write_text("__global__ void k(float* x) { x[0] = 1.0f; }\n")
    (src / "Makefile").write_text("k.o: k.cu\n\tnvcc -Xptxas -O3 -c k.cu -o k.o\n"
                                  "j.o: k.cu\n\tnvcc -Xptxas -O3 -c k.cu -o j.o\n")
    assert main(["convert", str(src), "-o", str(tmp_path / "out")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith(", 2 build-file markers") and lines[1] == "Build files, marked where they need a hand:"
    assert lines[2].startswith(f"  {src / 'Makefile'}:2, 4: PK403 -Xptxas -O3: ") and len(lines) == 3, "one row a text"


def test_summary_names_build_files_with_their_input_lines(tmp_path: Path, capsys) -> None:
    """The build-file list names the input file with the input's lines, as scan and the source markers do, not the
    converted file's lines shifted by the markers written above them (caffe: scan's CMakeLists.txt:89, convert's :90)."""
    src = tmp_path / "in"
    src.mkdir()
    (src / "CMakeLists.txt").write_text("cmake_minimum_required(VERSION 3.16)\nproject(demo C CXX)\n"
                                        "find_package(CUDA REQUIRED)\nlist(APPEND CUDA_NVCC_FLAGS -Xcompiler -fPIC)\n"
                                        "list(APPEND CUDA_NVCC_FLAGS -Xcudafe --diag_suppress=set_but_not_used)\n")
    (src / "Makefile").write_text("k.o: k.cu\n\tnvcc -Xptxas -v -c k.cu -o k.o\n\tnvcc -Xcudafe -w -c k.cu -o j.o\n")
    assert main(["scan", "--format", "json", "--no-cache", str(src)]) in (0, 1)
    scanned = {(Path(f["path"]).name, f["code"], f["name"], f["line"]) for f in json.loads(capsys.readouterr().out)["findings"]
               if f["code"] == "PK403"}
    assert main(["convert", str(src), "-o", str(tmp_path / "out")]) == 0
    listed = set()
    for row in capsys.readouterr().out.split("Build files, marked where they need a hand:\n")[1].splitlines():
        path, numbers, code, name = re.fullmatch(r"  (.+):([\d, ]+): (PK\d+) (.+?): .*", row).groups()
        listed |= {(Path(path).name, code, name, int(n)) for n in numbers.split(", ")}
    assert listed == scanned == {
        ("CMakeLists.txt", "PK403", "CUDA_NVCC_FLAGS", 4), ("CMakeLists.txt", "PK403", "CUDA_NVCC_FLAGS", 5),
        ("CMakeLists.txt", "PK403", "-Xcudafe --diag_suppress=set_but_not_used", 5),
        ("Makefile", "PK403", "-Xptxas -v", 2), ("Makefile", "PK403", "-Xcudafe -w", 3)}


def test_build_notes_give_the_input_line_where_convert_adds_lines(database) -> None:
    """cuda_add_library becomes several lines: a note below them still names its line of the input."""
    from portkit.convert.cmake_files import convert_cmake

    text = ("find_package(CUDA)\nfile(GLOB SRC *.cu)\ncuda_add_library(a ${SRC})\n"
            "list(APPEND CUDA_NVCC_FLAGS -Xptxas -v)\nmessage(done)\n")
    result = convert_cmake(text, database, target=HIP52)
    assert result.text.count("\n") > text.count("\n") + 2
    assert [(n.input_line, n.message.split(":")[0]) for n in result.notes] == [(4, "-Xptxas -v"), (4, "CUDA_NVCC_FLAGS")]
    assert [result.text.splitlines()[n.line - 1] for n in result.notes] == ["list(APPEND CUDA_NVCC_FLAGS)"] * 2


PARTIAL_NAMES = """#include <cuda_runtime.h>
#define ALLOC(p, n) \\
  cudaMalloc(&p, n); cudaMallocManaged(&p, n)

__global__ void fill(float *x) { x[threadIdx.x] = 1.0f; }

int main() {
  float *a, *b;
  cudaFree(0); cudaMallocManaged(&a, 4); cudaMallocManaged(&b, 4);
  ALLOC(a, 4);
  fill<<<1, 4>>>(a);
  int v = CUDART_VERSION;
  return v;
}
"""


def test_hipify_perl_output_gets_the_markers_of_the_original(tmp_path: Path, capsys) -> None:
    """The markers were chosen by analysing hipify-perl's output, where a partial name it renamed
    (cudaMallocManaged -> hipMallocManaged) is no CUDA name: no PK101 marker, though the native backend writes one.
    They come from the original's findings now, each on what its line became (hipify-perl adds a line for a
    kernel, and renames before the name shift a macro's block marker), listed with the original's lines as the
    native backend's are; the output still compiles with the real hipcc."""
    hipify_perl = os.environ.get("PORTKIT_HIPIFY_PERL") or shutil.which("hipify-perl")
    if not hipify_perl:
        pytest.skip("hipify-perl (ROCm's HIPIFY, not packaged) not on PATH and PORTKIT_HIPIFY_PERL not set")
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.cu").write_text(PARTIAL_NAMES)
    listed = {}
    for backend in ("native", "hipify-perl"):
        assert main(["convert", "--backend", backend, "--hipify-perl", hipify_perl, "--rocm-version", "5.2", "--details",
                     str(src), "-o", str(tmp_path / backend)]) == 0
        listed[backend] = [line for line in capsys.readouterr().out.splitlines() if "a.cu:" in line]
    assert listed["hipify-perl"] == listed["native"]
    assert [line.split(": ")[0].rsplit(":", 1)[1] + " " + line.split(": ")[1] for line in listed["native"]] == [
        "3 PK101 cudaMallocManaged", "9 PK101 cudaMallocManaged", "12 PK101 CUDART_VERSION"]
    out = (tmp_path / "hipify-perl" / "a.cu").read_text()
    marker = "portkit: PK101 cudaMallocManaged: "
    assert " */ hipMallocManaged(&p, n)" in out and re.search(r"hipMalloc\(&p, n\); /\* " + marker, out)
    lines = out.splitlines()
    marked = [i for i, line in enumerate(lines) if line.strip().startswith("// " + marker)]
    assert [lines[i + 1].strip() for i in marked] == ["hipFree(0); hipMallocManaged(&a, 4); hipMallocManaged(&b, 4);"]
    # hipify-perl leaves CUDART_VERSION (marked once, as the original's finding and the output's are the same)
    hipcc = subprocess.run([require_tool("hipcc"), "--offload-arch=gfx90a", "-fsyntax-only", "-x", "hip",
                            "-DCUDART_VERSION=0", str(tmp_path / "hipify-perl" / "a.cu")], capture_output=True, text=True,
                           env={**os.environ, "HIP_PLATFORM": "amd"})
    assert hipcc.returncode == 0, hipcc.stderr[-2000:]


def test_hipify_perl_found_on_path(tmp_path: Path, monkeypatch) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    wrapper = bin_dir / "hipify-perl"
    wrapper.write_text(f"#!/bin/sh\nexec {sys.executable} {FAKE_HIPIFY} \"$@\"\n")
    wrapper.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    src = project(tmp_path)
    assert main(["convert", "--backend", "hipify-perl", str(src), "-o", str(tmp_path / "out")]) == 0
    assert "hipFree" in (tmp_path / "out" / "a.cu").read_text()


def test_hipify_perl_failure_is_reported(tmp_path: Path, capsys) -> None:
    src = project(tmp_path)
    (src / "b.cu").write_text("// HIPIFY_FAIL\n")
    assert main(["convert", "--backend", "hipify-perl", "--hipify-perl", str(FAKE_HIPIFY), str(src), "-o", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert f"{src / 'b.cu'}: hipify-perl exited 1: error: translation failed" in err


def test_hipify_perl_missing(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    src = project(tmp_path)
    assert main(["convert", "--backend", "hipify-perl", str(src), "-o", str(tmp_path / "o")]) == 2
    assert "hipify-perl not found on PATH" in capsys.readouterr().err


def test_analysis_of_hipified_text_marks_what_is_left(database) -> None:
    from portkit.analyze import Context

    context = Context(database, HIP52)
    findings = analyze_bytes("x.cu", b"void f() { hipFree(0); ncclCommShrink(0, 0, 0, 0, 0, 0); }\n", context)
    assert [(f.code, f.name) for f in findings] == [("PK102", "ncclCommShrink")]


def test_hazards_that_cannot_work_on_amd_are_marked_once(tmp_path: Path, database) -> None:
    """An error-severity hazard convert does not fix gets a marker (a kernel launched from device code); one
    whose token convert renames (`__ballot_sync` -> `__ballot`) keeps one marker when converted again."""
    source = (b"__global__ void child(int *x) { x[threadIdx.x] = 1; }\n"
              b"__global__ void parent(int *x, int *count) {\n"
              b"  child<<<1, 32>>>(x);\n"
              b"  unsigned votes = __ballot_sync(0xffffffff, x[threadIdx.x] > 0);\n"
              b"  if (threadIdx.x == 0) *count = __popc(votes);\n}\n")
    out = convert_bytes(tmp_path, source, database=database)
    text = out.decode()
    lines = text.splitlines()  # after the runtime include convert adds
    assert lines[3].startswith("  // portkit: PK330 child: ") and lines[4] == "  child<<<1, 32>>>(x);"
    assert text.count("// portkit: PK302 ") == 1
    assert convert_bytes(tmp_path, out, database=database) == out


def test_math_h_comes_in_for_host_classification_calls_only(tmp_path: Path, database) -> None:
    """CUDA's runtime header brought <math.h>'s isfinite/isnan to host code; HIP's declares device versions only."""
    host = b"#include <cuda_runtime.h>\nbool ok(double x) { return isfinite(x); }\n"
    assert "#include <math.h>\n" in convert_bytes(tmp_path, host, database=database).decode()
    device = b"#include <cuda_runtime.h>\n__global__ void k(float* x) { x[0] = isnan(x[1]) ? 0.f : 1.f; }\n"
    assert "math.h" not in convert_bytes(tmp_path, device, database=database).decode()
    own = b"#include <cuda_runtime.h>\n#include <math.h>\nbool ok(double x) { return isfinite(x); }\n"
    assert convert_bytes(tmp_path, own, database=database).decode().count("math.h") == 1
    qualified = b"#include <cuda_runtime.h>\n#include <cmath>\nbool ok(double x) { return std::isfinite(x); }\n"
    assert "math.h" not in convert_bytes(tmp_path, qualified, database=database).decode()


@pytest.mark.parametrize("version, expected", [
    ("6.2", ["__device__ float sum2(__hip_bfloat162 pair) {", "__bfloat162float(__high2bfloat16(pair))"]),
    ("5.2", ["// portkit: PK104 __nv_bfloat162", "__device__ float sum2(__nv_bfloat162 pair) {"]),
])
def test_bfloat16_pairs_and_conversions_from_hip_5_7(version: str, expected: list[str], tmp_path: Path) -> None:
    """HIP 5.7 has __hip_bfloat162 and cuda_bf16.h's conversions under their CUDA names: renamed there, marked before."""
    case = Path(__file__).parent / "cases" / "bf16_names.cu"
    assert main(["convert", "--no-cache", "--rocm-version", version, str(case), "-o", str(tmp_path / "out")]) == 0
    text = (tmp_path / "out" / case.name).read_text()
    for piece in expected:
        assert piece in text, (version, piece)
    assert ("portkit:" in text) == (version == "5.2")


def test_utf16_text_with_a_bom_is_analysed_and_written_back_in_utf16(tmp_path: Path, capsys) -> None:
    """A Windows header saved as UTF-16 (its zero bytes are no sign of a binary file): read as text, converted,
    and written in its own encoding and byte order; one without CUDA names is copied as it is."""
    tree, out = tmp_path / "in", tmp_path / "out"
    tree.mkdir()
    header = "#include <cuda_runtime.h>\r\n#define IDS_TITLE 101\r\ninline cudaError_t reset() { return cudaDeviceReset(); }\r\n"
    (tree / "device.h").write_bytes(b"\xff\xfe" + header.encode("utf-16-le"))
    (tree / "strings.h").write_bytes(b"\xfe\xff" + "#define IDS_NAME 102\r\n".encode("utf-16-be"))
    (tree / "main.cu").write_text('#include "device.h"\n__global__ void k() {}\n')
    assert main(["convert", "--no-cache", str(tree), "-o", str(out)]) == 0
    assert "error" not in capsys.readouterr().err
    written = (out / "device.h").read_bytes()
    assert written.startswith(b"\xff\xfe")
    assert written[2:].decode("utf-16-le") == header.replace("cuda_runtime.h", "hip/hip_runtime.h").replace(
        "cudaError_t", "hipError_t").replace("cudaDeviceReset", "hipDeviceReset")
    assert (out / "strings.h").read_bytes() == (tree / "strings.h").read_bytes()


def test_a_hip_header_the_target_lacks_is_reported_and_marked_where_hipcc_stops(tmp_path: Path) -> None:
    """hip/hip_math_constants.h arrived in HIP 5.3: the project's HIP code that includes it does not compile with
    the installed HIP 5.2 (hipcc: file not found). At target 5.2 scan reports it as it reports a name the target
    lacks, and convert marks it, so --verify finds no failure portkit left unmarked; at 6.2 there is nothing to say."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "constants.cu").write_text("#include <hip/hip_runtime.h>\n#include <hip/hip_math_constants.h>\n"
                                      "__device__ float twice_pi() { return 2.0f * HIP_PI_F; }\n")
    out = tmp_path / "out"
    assert main(["convert", "--no-cache", "--rocm-version", "5.2", "--verify", str(src), "-o", str(out)]) == 0
    lines = (out / "constants.cu").read_text().splitlines()
    assert lines[1].startswith("// portkit: PK104 hip/hip_math_constants.h: Target HIP 5.3.0 or newer")
    assert lines[2] == "#include <hip/hip_math_constants.h>"
    settings = RunSettings(paths=(str(src),), root=tmp_path, target=Target(rocm=(6, 2, 0)), jobs=1)
    assert not [f for f in run_project(settings, RunRequest()).findings if f.code == "PK104"]


def test_converting_converted_output_counts_no_marker_as_written(tmp_path: Path, capsys) -> None:
    """Converting DeepSpeed's converted tree again changed nothing but said "746 markers": the summary counts the
    markers it writes, and says how many the files already had."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "k.cu").write_text("__global__ void k(float* o) {\n  int lane = threadIdx.x % 32;\n  o[lane] = 0;\n}\n"
                              "void f(float** p) { cudaMallocManaged(p, 4); }\n")
    assert main(["convert", str(src), "-o", str(tmp_path / "out")]) == 0
    once = capsys.readouterr().out.splitlines()[0]
    assert "1 changed, " in once and ", 2 markers" in once, once
    assert main(["convert", str(tmp_path / "out"), "-o", str(tmp_path / "again")]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.endswith(" 0 changed, 0 edits, 0 markers (2 already there)"), first


def test_converting_converted_output_counts_every_marker_the_first_convert_wrote(tmp_path: Path, capsys) -> None:
    """Converting converted output said "0 markers (8 already there)" after a first convert that wrote 15: a marker
    whose name convert renamed since (`__shfl_down_sync` -> `__shfl_down`, `cooperative_groups.h`) no finding
    asked for any more, so it went uncounted and unlisted. Both runs count the markers in the file, at the
    same lines, and converting again changes nothing."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "k.cu").write_text("#include <cooperative_groups.h>\n"
                              "__global__ void k(float* o) {\n  float v = o[threadIdx.x];\n"
                              "  v += __shfl_down_sync(0xffffffff, v, 16) + __shfl_xor_sync(0xffffffff, v, 1);\n"
                              "  unsigned m = __ballot_sync(0xffffffff, v > 0);\n  o[threadIdx.x % 32] = v + m;\n}\n")
    argv = ["convert", "--no-cache", "--rocm-version", "5.2"]
    assert main([*argv, str(src), "-o", str(tmp_path / "out")]) == 0
    first = capsys.readouterr().out.splitlines()
    written = int(re.search(r", (\d+) markers", first[0]).group(1))
    in_file = (tmp_path / "out" / "k.cu").read_text().count("// portkit: ")
    assert written == in_file >= 8, first
    assert main([*argv, str(tmp_path / "out"), "-o", str(tmp_path / "again")]) == 0
    second = capsys.readouterr().out.splitlines()
    assert second[0].endswith(f" 0 changed, 0 edits, 0 markers ({written} already there)"), second
    assert (tmp_path / "again" / "k.cu").read_text() == (tmp_path / "out" / "k.cu").read_text()
    listed = [line.split(": ", 1)[1].split(":", 1)[0] for line in second if line.startswith("  ")]
    assert sorted(listed) == sorted(line.split(": ", 1)[1].split(":", 1)[0] for line in first if line.startswith("  "))


def test_an_include_convert_commented_out_is_no_marker_when_converting_again(tmp_path: Path, capsys) -> None:
    """A first convert comments out an include the target lacks and no name of the file uses (PK212): done work,
    not counted as a marker. Converting its output again counted that comment as a marker already there (llm.c:
    632 markers written, "634 already there")."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "k.cu").write_text("#include <cooperative_groups.h>\n#include <cooperative_groups/scan.h>\n"
                              "__global__ void k(float* o) { o[threadIdx.x] = __shfl_down_sync(0xffffffff, o[0], 1); }\n")
    argv = ["convert", "--no-cache", "--rocm-version", "5.2"]
    assert main([*argv, str(src), "-o", str(tmp_path / "out")]) == 0
    first = capsys.readouterr().out.splitlines()
    written = int(re.search(r", (\d+) markers", first[0]).group(1))
    assert "// portkit: PK212 unused here" in (tmp_path / "out" / "k.cu").read_text() and written >= 1
    assert main([*argv, str(tmp_path / "out"), "-o", str(tmp_path / "again")]) == 0
    second = capsys.readouterr().out.splitlines()
    assert second[0].endswith(f" 0 changed, 0 edits, 0 markers ({written} already there)"), (first[0], second[0])
