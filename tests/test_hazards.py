"""Hazards on code as projects write it: constant sizes, inline PTX families, portable warp code,
and a project's own CUDA-looking helpers."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from conftest import require_tool
from portkit.analyze.constants import evaluate, split_arguments
from portkit.codes import API_UNKNOWN, in_group
from portkit.run.project import run_project
from portkit.run.request import RunRequest
from portkit.rules import Target
from portkit.settings import RunSettings


def scan(tmp_path: Path, files: dict[str, str], database):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    settings = RunSettings(paths=(str(tmp_path),), root=tmp_path, target=Target(rocm=(6, 2, 0)), jobs=1, cache=False)
    return run_project(settings, RunRequest(rules=database)).findings


@pytest.mark.parametrize("text, names, value", [
    ("96 * 1024", {}, 98304),
    ("TILE * TILE", {"TILE": "96"}, 9216),
    ("(HALO + 2) * sizeof(float)", {"HALO": "TILE + 1", "TILE": "32"}, 140),
    ("0xffffffffu", {}, 0xFFFFFFFF),
    ("1 << 16", {}, 65536),
    ("(unsigned int)48 * 1024UL", {}, 49152),
    ("N / 2", {"N": "N + 1"}, None),  # a cycle is not a constant
    ("FULL_MASK", {"FULL_MASK": "0xffffffff"}, 0xFFFFFFFF),
    ("n * 4", {}, None),
    ("sizeof(MyStruct) * 4", {}, None),
    ("__import__('os')", {}, None),
])
def test_constant_expressions(text: str, names: dict[str, str], value: int | None) -> None:
    assert evaluate(text, names) == value


def test_launch_configurations_split_at_top_level_commas() -> None:
    assert split_arguments("dim3(1, 2), 256, 96 * 1024, s") == ["dim3(1, 2)", "256", "96 * 1024", "s"]


def test_portable_warp_code_raises_no_hazard(tmp_path: Path, database) -> None:
    findings = scan(tmp_path, {"warp.cu": """
__device__ float warp_sum(float v) {
  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_down(v, o);
  return v;
}
__global__ void k(float* out, int n) {
  int lane = threadIdx.x % warpSize;
  int warp = threadIdx.x / warpSize;
  int chunks = (n + 31) / 32;
  float v = warp_sum(out[threadIdx.x]);
  if (lane == 0) out[warp] = v + chunks;
}
"""}, database)
    assert not [f for f in findings if in_group(f.code, "hazard")]
    assert {f.status.value for f in findings if f.name == "warpSize"} == {"supported"}


@pytest.mark.parametrize("template, family, hip", [
    ("wgmma.fence.sync.aligned;", "mma/wgmma", ""),
    ("fence.proxy.async.shared::cta;", "fence.proxy", ""),
    ("membar.gl;", "membar/fence", "__threadfence"),
    ("atom.global.cas.b32 %0, [%1], %2, %3;", "atom.cas", "atomicCAS"),
    ("red.release.gpu.global.add.u32 [%0], %1;", "atom/red.add", "atomicAdd"),
    ("lop3.b32 %0, %1, %2, %3, 0x96;", "lop3", ""),
    ("cvt.rn.f16.f32 %0, %1;", "cvt f16", "__float2half_rn"),
    ("cvt.rn.bf16x2.f32 %0, %1, %2;", "cvt bf16", "__float2bfloat16"),
    ("cvt.rni.s32.f32 %0, %1;", "cvt", "__float2int_rn"),
    ("ex2.approx.ftz.f32 %0, %1;", "ex2.approx", "__builtin_amdgcn_exp2f"),
    ("rsqrt.approx.f32 %0, %1;", "rsqrt.approx", "__builtin_amdgcn_rsqf"),
    # One family per HIP function: bfind is the most significant set bit (31 - __clz(x)), not a population count.
    ("bfind.u32 %0, %1;", "bfind", "__clz"),
    ("popc.b32 %0, %1;", "popc", "__popc"),
    ("brev.b32 %0, %1;", "brev", "__brev"),
    ("atom.global.min.s32 %0, [%1], %2;", "atom/red.min", "atomicMin"),
    ("red.global.xor.b32 [%0], %1;", "atom/red.xor", "atomicXor"),
    ("atom.global.dec.u32 %0, [%1], %2;", "atom/red.dec", "atomicDec"),
    ("vote.sync.all.pred p, q, 0xffffffff;", "vote.all", "__all"),
    ("vote.sync.ballot.b32 %0, 1, 0xffffffff;", "vote.ballot", "__ballot"),
    ("shfl.sync.bfly.b32 %0, %1, 1, 0x1f, 0xffffffff;", "shfl.bfly", "__shfl_xor_sync"),
    ("shfl.sync.idx.b32 %0, %1, 0, 0x1f, 0xffffffff;", "shfl.sync", "__shfl_sync"),
    ("shf.r.wrap.b32 %0, %1, %2, %3;", "shf.r", "__funnelshift_r"),
    ("bfi.b32 %0, %1, %2, %3, %4;", "bfi", "__bitinsert_u32"),
    ("mul.hi.s32 %0, %1, %2;", "mul.hi", "__mulhi"),
    ("mul.hi.u32 %0, %1, %2;", "mul.hi.u", "__umulhi"),
    ("cos.approx.f32 %0, %1;", "cos.approx", "__cosf"),
    ("mov.u32 %0, %%lanemask_gt;", "%lanemask_gt", "__lanemask_gt"),
    ("mov.u32 %0, %%lanemask_le;", "%lanemask_le/ge", ""),
    ("mov.u64 %0, %%globaltimer;", "%globaltimer", "wall_clock64"),
    ("mov.u32 %0, %%clock;", "%clock", "clock64"),
])
def test_inline_ptx_families(tmp_path: Path, database, template: str, family: str, hip: str) -> None:
    findings = scan(tmp_path, {"asm.cu": f'__device__ void f() {{ asm volatile("{template}"); }}\n'}, database)
    [found] = [f for f in findings if f.library == "ptx"]
    assert (found.name, found.hip) == (family, hip)


def test_a_projects_own_cuda_looking_helpers_are_not_unknown_names(tmp_path: Path, database) -> None:
    findings = scan(tmp_path, {
        "helpers.h": "#pragma once\n#define cudaCheck(x) do { if ((x) != cudaSuccess) abort(); } while (0)\n"
                     "void cudaHelperInit(int device);\nstruct cudaTimer { float ms; };\n",
        "helpers.cu": '#include "helpers.h"\nvoid cudaHelperInit(int device) { cudaCheck(cudaSetDevice(device)); }\n',
        "main.cu": '#include "helpers.h"\nint main() { cudaHelperInit(0); cudaTimer t; cudaFooBar(); return (int)t.ms; }\n',
        # Braces opened under #if and never closed: tree-sitter reads a syntax error, the #define still counts.
        "tolerances.h": "#if defined(__cplusplus)\n{\n  {\n    if (probe(&d) != 0) {\n      for (int i = 0; i < n; i++) {\n"
                        "#define CUBLAS_SGEMM_MAX_ERR (.3)\n",
        "check.cpp": "float tolerance() { return CUBLAS_SGEMM_MAX_ERR; }\n",
    }, database)
    unknown = {f.name for f in findings if f.code == API_UNKNOWN}
    assert unknown == {"cudaFooBar"}  # the one name nobody defines


def test_nvcc_version_macros_outside_if_are_found(tmp_path: Path, database) -> None:
    """hipcc defines no __CUDACC_VER_MAJOR__: outside #if it is an undeclared identifier (tiny-cuda-nn); in #if it
    reads 0, a CUDA-only branch (PK203) that builds."""
    findings = scan(tmp_path, {"v.cu": 'static_assert(__CUDACC_VER_MAJOR__ >= 11, "CUDA 11");\n'
                                       "#if __CUDACC_VER_MINOR__ > 2\n#endif\n"}, database)
    found = {(f.name, f.position.line, f.code) for f in findings if f.name.startswith("__CUDACC")}
    assert ("__CUDACC_VER_MAJOR__", 1, "PK102") in found and ("__CUDACC_VER_MINOR__", 2, "PK102") not in found
    assert any(f.code == "PK203" and f.position.line == 2 for f in findings)


WRAPPED = {
    "CMakeLists.txt": "cmake_minimum_required(VERSION 3.18)\nproject(w LANGUAGES CXX CUDA)\n"
                      "set(CUDA_NVCC_FLAGS ${CUDA_NVCC_FLAGS} -DTHRUST_CUB_WRAPPED_NAMESPACE=amgx)\n"
                      "add_library(w wrap.cu)\ntarget_compile_definitions(w PRIVATE THRUST_CUB_WRAPPED_NAMESPACE=amgx)\n"
                      "# -DTHRUST_CUB_WRAPPED_NAMESPACE=commented\n",
    "wrap.cu": "#define THRUST_CUB_WRAPPED_NAMESPACE amgx\n#include <thrust/device_vector.h>\n"
               "#ifdef THRUST_CUB_WRAPPED_NAMESPACE\nint wrapped = 1;\n#endif\n"
               "namespace amgx { int n() { thrust::device_vector<int> v(4); return (int)v.size(); } }\n",
}


@pytest.mark.parametrize("rocm, expected", [((5, 2, 0), [("CMakeLists.txt", 3), ("CMakeLists.txt", 5), ("wrap.cu", 1)]),
                                            ((5, 7, 0), [])])
def test_thrust_wrapped_namespace_is_reported_where_rocthrust_breaks_on_it(tmp_path: Path, database, rocm, expected) -> None:
    """AMGX's THRUST_CUB_WRAPPED_NAMESPACE, set in a build file or a #define (not where a test reads it): rocThrust
    before ROCm 5.7 opens plain `namespace thrust` in three HIP backend headers and stops there (PK344)."""
    for name, text in WRAPPED.items():
        (tmp_path / name).write_text(text)
    settings = RunSettings(paths=(str(tmp_path),), root=tmp_path, target=Target(rocm=rocm), jobs=1, cache=False)
    findings = [f for f in run_project(settings, RunRequest(rules=database)).findings if f.code == "PK344"]
    assert [(Path(f.path).name, f.position.line) for f in findings] == expected
    assert all("ROCm 5.7" in f.advice and "namespace thrust" in f.message for f in findings)


def test_warp_sizes_in_branches_only_amd_targets_compile_are_the_projects_own(tmp_path: Path, database) -> None:
    """RDNA runs 32-lane wavefronts: a 32 under `#elif defined(__gfx1100__)` or `#if __AMDGCN_WAVEFRONT_SIZE == 32u` is
    the project's own AMD code, no hazard; under a CUDA test (which convert makes AMD's device test) it is one, and
    `< 64` holds for nvcc too (the macro reads 0 there)."""
    findings = scan(tmp_path, {"w.cu": "#if defined(__CUDA_ARCH__)\n#define WARP_THREADS 32\n"
                                       "#elif defined(__gfx1100__) || defined(__gfx1101__)\n#define WARP_THREADS 32\n"
                                       "#elif __AMDGCN_WAVEFRONT_SIZE == 32u\n#define WARP_SIZE 32\n"
                                       "#elif __AMDGCN_WAVEFRONT_SIZE < 64\n#define LANES_PER_WARP 32\n#endif\n"
                                       "__global__ void k(int *o) {\n#if defined(__gfx1100__)\n  o[threadIdx.x / 32] = 1;\n"
                                       "#endif\n  o[threadIdx.x % 32] = 2;\n}\n"}, database)
    assert sorted(f.position.line for f in findings if f.code == "PK300") == [2, 8, 14]


@pytest.mark.parametrize("kernel, reported", [
    ("__global__ void k() { __shared__ cub::BlockLoad<float, 32, 4, cub::BLOCK_LOAD_WARP_TRANSPOSE>::TempStorage t; }\n",
     True),
    ("constexpr int kThreads = 96;\n__global__ void k() {\n"
     "  using S = cub::BlockStore<float, kThreads, 4, cub::BLOCK_STORE_WARP_TRANSPOSE_TIMESLICED>;\n}\n", True),
    ("template <int N> __global__ void k() { using L = cub::BlockLoad<float, N, 4, cub::BLOCK_LOAD_WARP_TRANSPOSE>; }\n"
     "void go() { k<32><<<8, 32>>>(); }\n", True),
    # a multiple of the wavefront, an algorithm rocPRIM does not hold to it, a launch the file does not size
    ("__global__ void k() { using L = cub::BlockLoad<float, 128, 4, cub::BLOCK_LOAD_WARP_TRANSPOSE>; }\n", False),
    ("__global__ void k() { using L = cub::BlockLoad<float, 32, 4, cub::BLOCK_LOAD_TRANSPOSE>; }\n", False),
    ("template <int N> __global__ void k() { using L = cub::BlockLoad<float, N, 4, cub::BLOCK_LOAD_WARP_TRANSPOSE>; }\n"
     "void go(int b) { k<32><<<8, b>>>(); }\n", False),
])
def test_block_primitives_for_blocks_under_a_wavefront(tmp_path: Path, database, kernel: str, reported: bool) -> None:
    """rocPRIM's warp_transpose load and store static_assert a block size that is a multiple of the wavefront."""
    findings = scan(tmp_path, {"b.cu": "#include <cub/cub.cuh>\n" + kernel}, database)
    assert any(f.code == "PK305" for f in findings) == reported


def test_a_ballot_stored_in_a_32_bit_alias_another_file_defines(tmp_path: Path, database) -> None:
    """nvdiffrast's U32 comes from a header: the project's aliases name the type; one defined two ways names none."""
    findings = scan(tmp_path, {
        "defs.h": "typedef unsigned int U32;\nusing Mask = U32;\ntypedef unsigned long long U64;\n",
        "twice.h": "typedef unsigned int Word;\n",
        "wide.h": "typedef unsigned long long Word;\n",
        "votes.cu": '#include "defs.h"\n'
                    "__global__ void k(const int* in, int* out) {\n"
                    "  bool p = in[threadIdx.x] > 0;\n"
                    "  U32 a = __ballot_sync(~0ull, p);\n"
                    "  Mask b = __activemask();\n"
                    "  U64 c = __ballot_sync(~0ull, p);\n"
                    "  Word d = __ballot_sync(~0ull, p);\n"
                    "  out[0] = a + b + c + d;\n"
                    "}\n",
    }, database)
    ballots = sorted((f.path.rsplit("/", 1)[-1], f.position.line, f.message) for f in findings if f.code == "PK302")
    assert ballots == [("votes.cu", 4, "the 64-bit result of __ballot_sync is stored in 'U32' (unsigned int)"),
                       ("votes.cu", 5, "the 64-bit result of __activemask is stored in 'Mask' (unsigned int)")]


def test_a_ballot_stored_in_a_long_keeps_every_lane(tmp_path: Path, database) -> None:
    """`long` and `unsigned long` are 64-bit where ROCm runs (Linux, LP64; hipcc says so for host and device): a
    ballot stored in one, or in an alias of one, keeps lanes 32-63; `unsigned` and __popc drop them."""
    (tmp_path / "lp64.cu").write_text("static_assert(sizeof(long) == 8 && sizeof(unsigned long) == 8, \"LP64\");\n")
    hipcc = subprocess.run([require_tool("hipcc"), "--offload-arch=gfx90a", "-fsyntax-only", "-x", "hip",
                            str(tmp_path / "lp64.cu")], capture_output=True, text=True, env={**os.environ, "HIP_PLATFORM": "amd"})
    assert hipcc.returncode == 0, hipcc.stderr[-2000:]
    findings = scan(tmp_path, {
        "lanes.h": "typedef unsigned long Lanes;\n",
        "votes.cu": '#include "lanes.h"\n'
                    "typedef long Signed;\n"
                    "__global__ void k(const int* in, long* out) {\n"
                    "  bool p = in[threadIdx.x] > 0;\n"
                    "  unsigned long a = __ballot_sync(~0ull, p);\n"
                    "  long b = __activemask();\n"
                    "  Lanes c = __ballot_sync(~0ull, p);\n"
                    "  Signed d = __ballot_sync(~0ull, p);\n"
                    "  unsigned e = __ballot_sync(~0ull, p);\n"
                    "  out[0] = a + b + c + d + e + __popc(__ballot_sync(~0ull, p));\n"
                    "}\n",
    }, database)
    ballots = sorted((f.position.line, f.message) for f in findings if f.code == "PK302")
    assert ballots == [(9, "the 64-bit result of __ballot_sync is stored in 'unsigned'"),
                       (10, "__popc(__ballot_sync(...)) takes the 64-bit ballot as 32 bits (lanes 0-31 only): use __popcll")]


def test_a_warp_literal_a_macro_spells_is_named_after_the_macro(tmp_path: Path, database) -> None:
    """`threadIdx.x >> LANES_BITS` with `#define LANES_BITS 5`: the finding (and so convert's marker, `PK300 NAME:`)
    was named `5`, a number the marked line does not spell; it is the macro's name, for each warp-literal analyzer."""
    findings = scan(tmp_path, {
        "k.cu": "#define LANES_BITS 5\n#define STEP 32\n#define LANES 32\n"
                "__global__ void k(float *out, int n) {\n"
                "  int lane = threadIdx.x % 32;\n"
                "  out[threadIdx.x >> LANES_BITS] = 1.0f;\n"
                "  for (int i = lane; i < n; i += STEP) out[i] = 0.0f;\n"
                "  float v = out[lane];\n"
                "  for (int m = 1; m < LANES; m *= 2) v += __shfl_xor_sync(~0ull, v, m);\n"
                "  out[lane] = v;\n"
                "}\n",
    }, database)
    named = sorted((f.position.line, f.name) for f in findings if f.code == "PK300")
    assert named == [(5, "32"), (6, "LANES_BITS"), (7, "STEP"), (9, "LANES")], named


def test_warp_literals_a_project_macro_spells_are_flagged_like_the_literal(tmp_path: Path, database) -> None:
    """DeepSpeed's `threadIdx.x >> WARP_SIZE_BITS` with `#define WARP_SIZE_BITS 5` in a header went unflagged while
    `>> 5` was, and so did a full mask the header names; a macro defined two ways is no number, and a use of
    WARP_SIZE is reported once, at its definition."""
    findings = scan(tmp_path, {
        "layers.h": "#define WARP_SIZE_BITS 5\n#define LANE_MASK (0x1f)\n#define FULL_MASK 0xffffffff\n"
                    "#define STEP 32\n#define TWICE 5\n#define WARP_SIZE 32\n",
        "other.h": "#define TWICE 6\n",
        "k.cu": '#include "layers.h"\n'
                "__global__ void k(float *out, int n) {\n"
                "  int warp = threadIdx.x >> WARP_SIZE_BITS;\n"
                "  int lane = threadIdx.x & LANE_MASK;\n"
                "  float v = __shfl_xor_sync(FULL_MASK, out[lane], 1);\n"
                "  for (int i = lane; i < n; i += STEP) out[i] = v;\n"
                "  out[warp] = threadIdx.x >> TWICE;\n"
                "  out[threadIdx.x / WARP_SIZE] = v;\n"
                "}\n",
    }, database)
    hazards = sorted((Path(f.path).name, f.position.line, f.code, f.message) for f in findings if f.code in ("PK300", "PK301"))
    assert hazards == [
        ("k.cu", 3, "PK300", "'threadIdx.x >> WARP_SIZE_BITS (5)' assumes 32-lane warps"),
        ("k.cu", 4, "PK300", "'threadIdx.x & LANE_MASK (0x1f)' assumes 32-lane warps"),
        ("k.cu", 5, "PK301", "__shfl_xor_sync(FULL_MASK, ...) passes a 32-bit full mask (lanes 0-31 of a 64-lane wavefront)"),
        ("k.cu", 6, "PK300", "'i += STEP (32)' steps a lane index (i = lane) by 32 lanes"),
        ("layers.h", 6, "PK300", "WARP_SIZE = 32 fixes the warp size at 32 lanes"),
    ]
