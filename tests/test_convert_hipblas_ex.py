"""hipBLAS's Ex calls per targeted HIP: before 6.0 the calls without _v2, whose data and compute types are
hipblasDatatype_t constants (compiled with hipcc against a stand-in of HIP 5.2's hipblas.h: Debian has no hipBLAS);
from 6.0 the _v2 calls, which take hipDataType."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

from conftest import require_tool
from portkit.cli import main

STAND_IN = Path(__file__).parent / "data" / "hipblas-5.2"
SOURCE = """\
#include <cublas_v2.h>
cublasStatus_t gemm(cublasHandle_t h, int n, const float *alpha, const void *a, const float *beta, float *c) {
  return cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_T, n, n, n, alpha, a, CUDA_R_16F, n, a, CUDA_R_16F, n, beta, c,
                      CUDA_R_32F, n, CUDA_R_32F, CUBLAS_GEMM_DEFAULT_TENSOR_OP);
}
cublasStatus_t strided(cublasHandle_t h, int n, const float *alpha, const void *a, const float *beta, void *c) {
  return cublasGemmStridedBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, alpha, a, CUDA_R_16BF, n, 0, a, CUDA_R_16BF,
                                    n, 0, beta, c, CUDA_R_16BF, n, 0, 4, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}
cublasStatus_t dot(cublasHandle_t h, int n, const void *x, void *r) {
  return cublasDotEx(h, n, x, CUDA_R_64F, 1, x, CUDA_R_64F, 1, r, CUDA_R_64F, CUDA_R_64F);
}
cudaDataType_t elsewhere = CUDA_R_16F;
"""


def converted(tmp_path: Path, version: str) -> Path:
    tree = tmp_path / "in"
    tree.mkdir(exist_ok=True)
    (tree / "blas.cu").write_text(SOURCE)
    out = tmp_path / f"out-{version}"
    assert main(["convert", "--no-cache", "--rocm-version", version, str(tree), "-o", str(out)]) == 0
    return out / "blas.cu"


def test_before_hip_6_the_calls_take_hipblas_datatypes_and_compile(tmp_path: Path) -> None:
    unit = converted(tmp_path, "5.2")
    text = unit.read_text()
    assert ("hipblasGemmEx(h, HIPBLAS_OP_N, HIPBLAS_OP_T, n, n, n, alpha, a, HIPBLAS_R_16F, n, a, HIPBLAS_R_16F, n, beta, c,\n"
            "                      HIPBLAS_R_32F, n, HIPBLAS_R_32F, HIPBLAS_GEMM_DEFAULT);") in text
    assert "hipblasGemmStridedBatchedEx(h, HIPBLAS_OP_N, HIPBLAS_OP_N, n, n, n, alpha, a, HIPBLAS_R_16B, n, 0, a, HIPBLAS_R_16B," in text
    assert "n, 0, beta, c, HIPBLAS_R_16B, n, 0, 4, HIPBLAS_R_32F, HIPBLAS_GEMM_DEFAULT);" in text
    assert "hipblasDotEx(h, n, x, HIPBLAS_R_64F, 1, x, HIPBLAS_R_64F, 1, r, HIPBLAS_R_64F, HIPBLAS_R_64F);" in text
    assert "hipDataType elsewhere = HIP_R_16F;" in text  # outside those calls, the runtime's data type
    hipcc = subprocess.run([require_tool("hipcc"), "--offload-arch=gfx90a", "-fsyntax-only", "-x", "hip", "-w",
                            "-I", str(STAND_IN), str(unit)],
                           capture_output=True, text=True, env={**os.environ, "HIP_PLATFORM": "amd"})
    assert hipcc.returncode == 0, hipcc.stderr[-3000:]


def test_from_hip_6_the_v2_calls_take_hip_data_types(tmp_path: Path) -> None:
    text = converted(tmp_path, "6.0").read_text()
    assert ("hipblasGemmEx_v2(h, HIPBLAS_OP_N, HIPBLAS_OP_T, n, n, n, alpha, a, HIP_R_16F, n, a, HIP_R_16F, n, beta, c,\n"
            "                      HIP_R_32F, n, HIP_R_32F, HIPBLAS_GEMM_DEFAULT);") in text
    assert "n, 0, beta, c, HIP_R_16BF, n, 0, 4, HIPBLAS_COMPUTE_32F, HIPBLAS_GEMM_DEFAULT);" in text
    assert "hipblasDotEx_v2(h, n, x, HIP_R_64F, 1, x, HIP_R_64F, 1, r, HIP_R_64F, HIP_R_64F);" in text
    assert "HIPBLAS_R_" not in text
