"""CUB code converted to hipCUB and compiled with the real hipcc (HIP 5.2 here) against a stand-in of hipCUB 5.2's
headers (tests/data/hipcub-5.2: hipCUB is not installed; its primitives are the installed rocPRIM's)."""
from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from conftest import require_tool
from portkit.cli import main

STAND_IN = Path(__file__).parent / "data" / "hipcub-5.2"

BLOCK_SUM = """\
#include <cub/block/block_reduce.cuh>
template <int N>
__global__ void sum_k(const float *in, float *out) {
  using BlockReduceT = cub::BlockReduce<float, N>;
  __shared__ typename BlockReduceT::TempStorage tmp;
  float s = BlockReduceT(tmp).Sum(in[threadIdx.x]);
  if (threadIdx.x == 0) *out = s;
}
template __global__ void sum_k<128>(const float *, float *);
"""


def convert(tmp_path: Path, name: str, text: str, *options: str) -> Path:
    (tmp_path / "in").mkdir(exist_ok=True)
    (tmp_path / "in" / name).write_text(text)
    out = tmp_path / "out"
    assert main(["convert", "--no-cache", *options, str(tmp_path / "in"), "-o", str(out)]) == 0
    return out / name


def hipcc_errors(unit: Path, *defines: str) -> str:
    """hipcc's errors for the unit compiled for gfx90a against the hipCUB stand-in, or ""."""
    hipcc = require_tool("hipcc")
    run = subprocess.run([hipcc, "--offload-arch=gfx90a", "-fsyntax-only", "-x", "hip", "-std=c++17", *defines,
                          "-I", str(STAND_IN), str(unit)], capture_output=True, text=True,
                         env={**os.environ, "HIP_PLATFORM": "amd"})
    return "" if run.returncode == 0 else run.stderr[-3000:]


def test_a_per_primitive_header_is_hipcubs_umbrella_before_rocm_6_3(tmp_path: Path, capsys) -> None:
    """hipCUB's per-primitive headers compile on their own only from ROCm 6.3 (before, the rocPRIM backend's block
    headers do not include config.hpp: unknown type name 'BEGIN_HIPCUB_NAMESPACE'): for older targets the include is
    hipcub/hipcub.hpp, as hipify-perl writes, with no marker (the same header, spelled as that release needs)."""
    unit = convert(tmp_path, "block_sum.cu", BLOCK_SUM, "--rocm-version", "5.2")
    text = unit.read_text()
    assert "#include <hipcub/hipcub.hpp>\n" in text and "// portkit:" not in text, text
    assert "0 markers" in capsys.readouterr().out
    assert hipcc_errors(unit) == ""
    (tmp_path / "newer").mkdir()
    newer = convert(tmp_path / "newer", "block_sum.cu", BLOCK_SUM, "--rocm-version", "6.3")
    assert "#include <hipcub/block/block_reduce.hpp>\n" in newer.read_text()


def test_cub_warp_threads_is_hipcubs_without_its_argument(tmp_path: Path) -> None:
    """CUB_WARP_THREADS(arch) is hipCUB's HIPCUB_WARP_THREADS, which takes no argument (portkit's helper drops it)."""
    unit = convert(tmp_path, "lanes.cu", "#include <cub/cub.cuh>\n#define LANES CUB_WARP_THREADS(0)\n"
                                         "__global__ void k(int *out) {\n"
                                         "  if (threadIdx.x % LANES == 0) out[threadIdx.x / LANES] = LANES;\n}\n",
                   "--rocm-version", "5.2")
    assert "#define LANES portkit_cub_warp_threads(0)\n" in unit.read_text()
    assert hipcc_errors(unit) == ""


def test_a_cub_macro_no_rule_knows_is_listed(tmp_path: Path, capsys) -> None:
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.cu").write_text("#include <cub/cub.cuh>\nint lanes() { return CUB_SOMETHING_NEW(0); }\n")
    assert main(["scan", "--no-cache", "--details", str(tmp_path / "in")]) == 0
    assert "CUDA-looking names no rule knows (1): CUB_SOMETHING_NEW" in capsys.readouterr().out


RAKING = """\
#include <cub/block/block_raking_layout.cuh>
template <int N> struct Segments {
  static constexpr int value = cub::BlockRakingLayout<float, N>::SEGMENT_LENGTH;
};
__global__ void k(int *out) { out[threadIdx.x] = Segments<128>::value; }
"""


def test_a_cub_name_hipcub_has_only_from_a_later_release_is_marked_for_an_older_target(tmp_path: Path, capsys) -> None:
    """hipcub::BlockRakingLayout came with ROCm 5.4 (5.2 spells it block_raking_layout and its hipcub.hpp does not
    include it): at 5.2 the name and its header are PK104, and a marker stands above each line hipcc rejects; at 5.4 the
    same code converts with no marker."""
    unit = convert(tmp_path, "raking.cu", RAKING, "--rocm-version", "5.2")
    text = unit.read_text()
    assert "// portkit: PK104 cub::BlockRakingLayout: hipcub::BlockRakingLayout needs HIP 5.4.0" in text, text
    assert "// portkit: PK104 cub/block/block_raking_layout.cuh:" in text, text
    capsys.readouterr()
    assert main(["scan", "--no-cache", "--rocm-version", "5.2", "--details", str(tmp_path / "in")]) == 0
    assert "unavailable cub::BlockRakingLayout (cub, 1 sites)" in capsys.readouterr().out
    errors = hipcc_errors(unit)
    lines = text.splitlines()
    rejected = {int(n) for n in re.findall(r"raking\.cu:(\d+):\d+: error:", errors)}
    assert rejected and all(lines[n - 2].lstrip().startswith("// portkit: PK104") for n in rejected), errors
    (tmp_path / "newer").mkdir()
    newer = convert(tmp_path / "newer", "raking.cu", RAKING, "--rocm-version", "5.4").read_text()
    assert "hipcub::BlockRakingLayout<float, N>::SEGMENT_LENGTH" in newer and "// portkit:" not in newer, newer


SINGLE_PASS = """\
#include <cub/cub.cuh>
__global__ void scan_k(cub::ScanTileState<int> state, int *out) {
  __shared__ typename cub::TilePrefixCallbackOp<int, cub::Sum, cub::ScanTileState<int>>::TempStorage prefix_tmp;
  cub::TilePrefixCallbackOp<int, cub::Sum, cub::ScanTileState<int>> prefix(state, prefix_tmp, cub::Sum(), blockIdx.x);
  out[blockIdx.x] = prefix(out[threadIdx.x]);
}
"""


def test_cub_names_hipcub_lacks_are_marked_where_hipcc_rejects_them(tmp_path: Path) -> None:
    """cub::ScanTileState and cub::TilePrefixCallbackOp (CUB's single-pass scan) are no hipCUB names before ROCm 7.0:
    the blanket cub -> hipcub rule wrote hipcub::ScanTileState unmarked. Each line hipcc rejects now has a marker."""
    unit = convert(tmp_path, "single_pass.cu", SINGLE_PASS, "--rocm-version", "5.2")
    text = unit.read_text()
    assert "// portkit: PK104 cub::ScanTileState: hipcub::ScanTileState needs HIP 7.0.0" in text, text
    errors = hipcc_errors(unit)
    lines = text.splitlines()
    rejected = {int(n) for n in re.findall(r"single_pass\.cu:(\d+):\d+: error:", errors)}
    assert rejected and all(lines[n - 2].lstrip().startswith("// portkit: PK10") for n in rejected), errors


ALIAS_IN_ELSE = """\
#ifndef USE_ROCM
  #include <cub/block/block_reduce.cuh>
  #define LANES CUB_WARP_THREADS(0)
#else
  #include <hipcub/hipcub.hpp>
  namespace cub = hipcub;
  using SumOp = cub::BlockReduce<float, 64>;
  #define LANES 64
#endif
__global__ void sum_k(const float *in, float *out) {
  using BlockReduceT = cub::BlockReduce<float, 128>;
  __shared__ typename BlockReduceT::TempStorage tmp;
  float s = BlockReduceT(tmp).Sum(in[threadIdx.x]);
  if (threadIdx.x % LANES == 0) out[threadIdx.x / LANES] = s;
}
"""


def test_an_alias_to_hipcub_in_the_rocm_branch_holds_only_there(tmp_path: Path) -> None:
    """`namespace cub = hipcub;` in the #else of `#ifndef USE_ROCM` holds only where USE_ROCM is defined: elsewhere
    `cub::` is CUDA's, whose headers convert made hipCUB's, so it becomes hipcub:: (which the ROCm branch has too)."""
    unit = convert(tmp_path, "alias.cu", ALIAS_IN_ELSE, "--rocm-version", "5.2")
    text = unit.read_text()
    assert "  using BlockReduceT = hipcub::BlockReduce<float, 128>;\n" in text
    assert "  namespace cub = hipcub;\n  using SumOp = cub::BlockReduce<float, 64>;\n" in text  # in the alias's branch
    assert hipcc_errors(unit) == ""
    assert hipcc_errors(unit, "-DUSE_ROCM") == ""


def test_an_alias_in_a_branch_hipcc_takes_holds_for_the_whole_file(tmp_path: Path) -> None:
    unit = convert(tmp_path, "taken.cu", ALIAS_IN_ELSE.replace("#ifndef USE_ROCM", "#ifndef __HIPCC__"),
                   "--rocm-version", "5.2")
    assert "  using BlockReduceT = cub::BlockReduce<float, 128>;\n" in unit.read_text()
    assert hipcc_errors(unit) == ""


WARP_TRANSPOSE = """\
#include <cub/cub.cuh>
template <int kNThreads, int kNItems>
__global__ void copy_k(const float *in, float *out) {
  using LoadT = cub::BlockLoad<float, kNThreads, kNItems, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  __shared__ typename LoadT::TempStorage tmp;
  float v[kNItems];
  LoadT(tmp).Load(in + blockIdx.x * kNThreads * kNItems, v);
  for (int i = 0; i < kNItems; ++i) out[threadIdx.x * kNItems + i] = v[i];
}
void launch(const float *in, float *out, int n) {
  copy_k<THREADS, 4><<<n / (THREADS * 4), THREADS>>>(in, out);
}
"""


def test_a_warp_transpose_load_for_a_32_thread_block_is_marked_where_rocprim_refuses_it(tmp_path: Path) -> None:
    """rocPRIM's warp_transpose load static_asserts a block size that is a multiple of the wavefront: a kernel launched
    with 32-thread blocks does not compile for gfx90a, and convert marks the primitive (PK305); 64 threads compile."""
    unit = convert(tmp_path, "copy.cu", WARP_TRANSPOSE.replace("THREADS", "32"), "--rocm-version", "5.2")
    text = unit.read_text()
    assert "  // portkit: PK305 cub::BlockLoad<float,kNThreads,kNItems,cub::BLOCK_LOAD_WARP_TRANSPOSE>: " \
           "Use 64 threads or a multiple" in text, text
    assert "BlockSize must be a multiple of hardware warpsize" in hipcc_errors(unit)
    (tmp_path / "wide").mkdir()
    wide = convert(tmp_path / "wide", "copy.cu", WARP_TRANSPOSE.replace("THREADS", "64"), "--rocm-version", "5.2")
    assert "PK305" not in wide.read_text() and hipcc_errors(wide) == ""
