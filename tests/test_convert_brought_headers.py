"""Type headers a CUDA library header brings and its HIP header does not (analyze/brought_headers.py): nvcc's
cublas_v2.h includes cuda_fp16.h and cuda_bf16.h, hipBLAS's header includes neither HIP header, so `half` and
`__nv_bfloat16` failed unmarked after convert. Compiled with the real hipcc (HIP 5.2) against the stand-in of HIP
5.2's hipblas.h, which, like upstream's, brings only the runtime."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

from conftest import require_tool
from portkit.cli import main

STAND_IN = Path(__file__).parent / "data" / "hipblas-5.2"
UNIT = """\
#include <cuda_runtime.h>
#include <cublas_v2.h>
typedef __nv_bfloat16 floatX;
__global__ void k(floatX* x, half* h) { x[0] = x[1]; h[0] = h[1]; }
"""


def _converted(tmp_path: Path, files: dict[str, str], version: str = "5.2") -> Path:
    tree, out = tmp_path / "in", tmp_path / "out"
    tree.mkdir()
    for name, text in files.items():
        (tree / name).write_text(text)
    assert main(["convert", "--no-cache", "--rocm-version", version, str(tree), "-o", str(out)]) == 0
    return out


def _hipcc(unit: Path) -> subprocess.CompletedProcess:
    return subprocess.run([require_tool("hipcc"), "--offload-arch=gfx90a", "-fsyntax-only", "-x", "hip", "-w",
                           "-I", str(STAND_IN), str(unit)],
                          capture_output=True, text=True, env={**os.environ, "HIP_PLATFORM": "amd"})


def test_half_and_bfloat16_through_cublas_get_their_hip_headers_and_compile(tmp_path: Path) -> None:
    out = _converted(tmp_path, {"k.cu": UNIT})
    text = (out / "k.cu").read_text()
    # HIP 5.2 has only the class hip_bfloat16 (hip/hip_bfloat16.h): the rule's older_hip spelling of cuda_bf16.h.
    assert "#include <hip/hip_fp16.h>\n#include <hip/hip_bfloat16.h>\n#include <hipblas/hipblas.h>\n" in text
    built = _hipcc(out / "k.cu")
    assert built.returncode == 0, built.stderr[-3000:]
    again = tmp_path / "again"
    assert main(["convert", "--no-cache", "--rocm-version", "5.2", str(out), "-o", str(again)]) == 0
    assert (again / "k.cu").read_text() == text


def test_the_bfloat16_header_is_the_targets(tmp_path: Path) -> None:
    text = (_converted(tmp_path, {"k.cu": UNIT}, "6.0") / "k.cu").read_text()
    assert "#include <hip/hip_fp16.h>\n#include <hip/hip_bf16.h>\n#include <hipblas/hipblas.h>\n" in text


def test_a_translation_unit_that_names_the_types_elsewhere_gets_them_where_cublas_is_included(tmp_path: Path) -> None:
    """llm.c's shape: a common header includes cuBLAS, a header the unit includes after it names the types."""
    out = _converted(tmp_path, {
        "common.h": "#pragma once\n#include <cublas_v2.h>\n",
        "kernels.cuh": "#pragma once\n__global__ void k(half* h) { h[0] = h[1]; }\n",
        "unit.cu": '#include "common.h"\n#include "kernels.cuh"\nint main() { return 0; }\n'})
    assert "#include <hip/hip_fp16.h>\n#include <hipblas/hipblas.h>\n" in (out / "common.h").read_text()
    assert "bfloat16" not in (out / "common.h").read_text()  # no file of the unit names a bfloat16 type
    built = _hipcc(out / "unit.cu")
    assert built.returncode == 0, built.stderr[-3000:]


def test_no_type_header_where_nothing_names_the_types_or_the_file_includes_it(tmp_path: Path) -> None:
    out = _converted(tmp_path, {
        "plain.cu": "#include <cublas_v2.h>\ncublasHandle_t handle;\n",
        "own.cu": "#include <cuda_fp16.h>\n#include <cublas_v2.h>\n__global__ void k(half* h) { h[0] = h[1]; }\n"})
    assert (out / "plain.cu").read_text() == "#include <hipblas/hipblas.h>\nhipblasHandle_t handle;\n"
    assert (out / "own.cu").read_text().count("#include <hip/hip_fp16.h>\n") == 1
