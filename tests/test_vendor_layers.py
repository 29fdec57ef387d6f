"""A project's own layers for HIP and for another vendor (parse/vendor_layers.py, run/scope.py,
analyze/vendor_layers.py): their definitions of CUDA's names are no project names, and another vendor's layer is
left as written. Each tree converted for HIP 5.2 and compiled with the real hipcc (--verify)."""
from __future__ import annotations

import json
from pathlib import Path

from conftest import require_tool
from portkit.cli import main

HIP_LAYER = """// the project's own HIP layer, included only when USE_HIP is defined
#pragma once
#include <hip/hip_runtime.h>
#define __trap() abort()
static __device__ __forceinline__ int __vsub4(int a, int b) { return a - b; }
"""

OTHER_VENDORS_LAYER = """// the project's layer for another vendor's CUDA-like API: only its compiler reads this
#pragma once
#include <musa_runtime.h>
#include <musa_bf16.h>
#define CUBLAS_COMPUTE_16F CUDA_R_16F
#define cudaStreamCreate musaStreamCreate
typedef mt_bfloat16 nv_bfloat16;
"""

UNIT = """#if defined(USE_HIP)
#include "hip_layer.h"
#elif defined(USE_MUSA)
#include "musa_layer.h"
#else
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#endif
__global__ void k(int *p, nv_bfloat16 *h) {
  p[threadIdx.x] = __vsub4(p[threadIdx.x], 0x01010101);
  h[threadIdx.x] = h[threadIdx.x];
  if (p[0] < 0) __trap();
}
int main() { cudaStream_t s; cudaStreamCreate(&s); return 0; }
"""


def convert(tmp_path: Path, files: dict[str, str], capsys, *options: str) -> tuple[Path, str]:
    tree, out = tmp_path / "in", tmp_path / "out"
    tree.mkdir(parents=True)
    for name, text in files.items():
        (tree / name).write_text(text)
    main(["convert", "--no-cache", "--rocm-version", "5.2", *options, str(tree), "-o", str(out)])
    return out, capsys.readouterr().out


def test_names_a_vendor_layer_defines_stay_cudas_where_it_is_included_in_one_branch(tmp_path: Path, capsys) -> None:
    require_tool("hipcc")
    files = {"hip_layer.h": HIP_LAYER, "musa_layer.h": OTHER_VENDORS_LAYER, "k.cu": UNIT}
    out, report = convert(tmp_path, files, capsys, "--verify")
    assert "hipcc: 1 build, 0 stop at a marked site (expected), 0 fail unmarked" in report, report
    # Both layers left as written: the HIP one is already HIP's, the other vendor's is only its compiler's.
    assert (out / "hip_layer.h").read_text() == HIP_LAYER
    assert (out / "musa_layer.h").read_text() == OTHER_VENDORS_LAYER
    # Converting the output again changes nothing.
    again, _ = convert(tmp_path / "second", {name: (out / name).read_text() for name in files}, capsys)
    for name in files:
        assert (again / name).read_text() == (out / name).read_text(), name


def test_a_hip_layer_included_unconditionally_is_the_projects_own(tmp_path: Path, capsys) -> None:
    """A header with HIP's runtime that every includer includes unconditionally (a converted tree's) keeps its names."""
    require_tool("hipcc")
    unit = '#include "own.h"\n__global__ void k(int *p) { p[0] = __vsub4(p[0], 1); }\n'
    own = ("#pragma once\n#include <hip/hip_runtime.h>\n"
           "static __device__ __forceinline__ int __vsub4(int a, int b) { return a - b; }\n")
    out, report = convert(tmp_path, {"own.h": own, "k.cu": unit}, capsys, "--verify")
    assert "hipcc: 1 build, 0 stop at a marked site (expected), 0 fail unmarked" in report, report
    assert "__vsub4(p[0], 1)" in (out / "k.cu").read_text()


SYCL_HELPER = """// a helper migrated from CUDA to SYCL (dpct), with leftover warp code: only a SYCL compiler reads it
#include <sycl/sycl.hpp>
template <typename T>
T reduce_block(T val, T *x, int tid) {
  if (tid < 32) {
    T total = x[tid] + x[tid + 32];
    for (int i = 16; i >= 1; i >>= 1) total = total + __shfl_down_sync(0xffffffff, total, i);
    return total;
  }
  return val;
}
"""


def test_a_sycl_file_is_another_compilers_and_no_work(tmp_path: Path, capsys) -> None:
    """DeepSpeed's csrc/xpu: SYCL code beside the CUDA code. Its CUDA-looking names and warp hazards are no work for
    the HIP port (settled: billed nowhere), and convert leaves it as written: no rename, no marker, no HIP include."""
    files = {"xpu_shim.h": SYCL_HELPER, "k.cu": "__global__ void k(float *p) { p[threadIdx.x] = 0; }\n"}
    out, _ = convert(tmp_path, files, capsys)
    assert (out / "xpu_shim.h").read_text() == SYCL_HELPER
    main(["scan", "--no-cache", "--rocm-version", "5.2", "-f", "json", str(tmp_path / "in")])
    report = json.loads(capsys.readouterr().out)
    assert [(a["name"], a["billed"]) for a in report["apis"]] == [("__shfl_down_sync", 0)]
    assert [row["code"] for row in report["plan"]["effort"]["inventory"] if row["hours"]] == []
