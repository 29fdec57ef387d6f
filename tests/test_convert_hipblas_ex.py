"""hipBLAS's calls per targeted HIP (Ex calls, trsm, trmm): before 6.0 the calls without _v2, whose data and compute types are
hipblasDatatype_t constants (compiled with hipcc against a stand-in of HIP 5.2's hipblas.h: Debian has no hipBLAS);
from 6.0 the _v2 calls, which take hipDataType, and a hipblasComputeType_t for the compute type, also where old code
passes a cudaDataType constant there (compiled against a stand-in of ROCm 6.0's hipblas.h)."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

from conftest import require_tool
from portkit.cli import main

STAND_IN = Path(__file__).parent / "data" / "hipblas-5.2"
STAND_IN_6 = Path(__file__).parent / "data" / "hipblas-6.0"
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


# cuBLAS takes a cudaDataType as the compute type of its Gemm Ex calls for backward compatibility (cublas_api.h's
# C++ wrappers, through cublasMigrateComputeType): hipBLAS 2.0's _v2 calls take only a hipblasComputeType_t there.
# Only the data types HIP 5.2's library_types.h has, so that hipcc 5.2 compiles it against the 6.0 stand-in.
DATA_TYPE_COMPUTE = """\
#include <cublas_v2.h>
cublasStatus_t gemm(cublasHandle_t h, int n, bool half, const float *alpha, const void *a, const float *beta, void *c) {
  return cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, alpha, a, CUDA_R_16F, n, a, CUDA_R_16F, n, beta, c,
                      CUDA_R_32F, n, half ? CUDA_R_16F : CUDA_R_32F, CUBLAS_GEMM_DEFAULT);
}
cublasStatus_t batched(cublasHandle_t h, int n, const void *alpha, const void *a[], const void *beta, void *c[]) {
  return cublasGemmBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, alpha, a, CUDA_C_32F, n, a, CUDA_C_32F, n, beta, c,
                             CUDA_C_32F, n, 8, CUDA_C_32F, CUBLAS_GEMM_DEFAULT);
}
cublasStatus_t strided(cublasHandle_t h, int n, const double *alpha, const void *a, const double *beta, void *c) {
  return cublasGemmStridedBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, alpha, a, CUDA_R_64F, n, 0, a, CUDA_R_64F,
                                    n, 0, beta, c, CUDA_R_64F, n, 0, 4, CUDA_R_64F, CUBLAS_GEMM_DEFAULT);
}
cublasStatus_t dot(cublasHandle_t h, int n, const void *x, void *r) {
  return cublasDotEx(h, n, x, CUDA_R_64F, 1, x, CUDA_R_64F, 1, r, CUDA_R_64F, CUDA_R_64F);
}
"""


def converted(tmp_path: Path, version: str, source: str = SOURCE) -> Path:
    tree = tmp_path / "in"
    tree.mkdir(exist_ok=True)
    (tree / "blas.cu").write_text(source)
    out = tmp_path / f"out-{version}"
    assert main(["convert", "--no-cache", "--rocm-version", version, str(tree), "-o", str(out)]) == 0
    return out / "blas.cu"


def _hipcc(unit: Path, stand_in: Path) -> subprocess.CompletedProcess:
    return subprocess.run([require_tool("hipcc"), "--offload-arch=gfx90a", "-fsyntax-only", "-x", "hip", "-w",
                           "-I", str(stand_in), str(unit)],
                          capture_output=True, text=True, env={**os.environ, "HIP_PLATFORM": "amd"})


def test_before_hip_6_the_calls_take_hipblas_datatypes_and_compile(tmp_path: Path) -> None:
    unit = converted(tmp_path, "5.2")
    text = unit.read_text()
    assert ("hipblasGemmEx(h, HIPBLAS_OP_N, HIPBLAS_OP_T, n, n, n, alpha, a, HIPBLAS_R_16F, n, a, HIPBLAS_R_16F, n, beta, c,\n"
            "                      HIPBLAS_R_32F, n, HIPBLAS_R_32F, HIPBLAS_GEMM_DEFAULT);") in text
    assert "hipblasGemmStridedBatchedEx(h, HIPBLAS_OP_N, HIPBLAS_OP_N, n, n, n, alpha, a, HIPBLAS_R_16B, n, 0, a, HIPBLAS_R_16B," in text
    assert "n, 0, beta, c, HIPBLAS_R_16B, n, 0, 4, HIPBLAS_R_32F, HIPBLAS_GEMM_DEFAULT);" in text
    assert "hipblasDotEx(h, n, x, HIPBLAS_R_64F, 1, x, HIPBLAS_R_64F, 1, r, HIPBLAS_R_64F, HIPBLAS_R_64F);" in text
    assert "hipDataType elsewhere = HIP_R_16F;" in text  # outside those calls, the runtime's data type
    hipcc = _hipcc(unit, STAND_IN)
    assert hipcc.returncode == 0, hipcc.stderr[-3000:]


def test_from_hip_6_the_v2_calls_take_hip_data_types(tmp_path: Path) -> None:
    text = converted(tmp_path, "6.0").read_text()
    assert ("hipblasGemmEx_v2(h, HIPBLAS_OP_N, HIPBLAS_OP_T, n, n, n, alpha, a, HIP_R_16F, n, a, HIP_R_16F, n, beta, c,\n"
            "                      HIP_R_32F, n, HIPBLAS_COMPUTE_32F, HIPBLAS_GEMM_DEFAULT);") in text
    assert "n, 0, beta, c, HIP_R_16BF, n, 0, 4, HIPBLAS_COMPUTE_32F, HIPBLAS_GEMM_DEFAULT);" in text
    assert "hipblasDotEx_v2(h, n, x, HIP_R_64F, 1, x, HIP_R_64F, 1, r, HIP_R_64F, HIP_R_64F);" in text
    assert "HIPBLAS_R_" not in text


def test_from_hip_6_a_data_type_passed_as_the_compute_type_is_a_compute_type_and_compiles(tmp_path: Path) -> None:
    unit = converted(tmp_path, "6.0", DATA_TYPE_COMPUTE)
    text = unit.read_text()
    assert ("hipblasGemmEx_v2(h, HIPBLAS_OP_N, HIPBLAS_OP_N, n, n, n, alpha, a, HIP_R_16F, n, a, HIP_R_16F, n, beta, c,\n"
            "                      HIP_R_32F, n, half ? HIPBLAS_COMPUTE_16F : HIPBLAS_COMPUTE_32F, HIPBLAS_GEMM_DEFAULT);") in text
    assert "HIP_C_32F, n, 8, HIPBLAS_COMPUTE_32F, HIPBLAS_GEMM_DEFAULT);" in text  # complex: cuBLAS's 32F too
    assert "n, 0, beta, c, HIP_R_64F, n, 0, 4, HIPBLAS_COMPUTE_64F, HIPBLAS_GEMM_DEFAULT);" in text
    assert "hipblasDotEx_v2(h, n, x, HIP_R_64F, 1, x, HIP_R_64F, 1, r, HIP_R_64F, HIP_R_64F);" in text  # a hipDataType
    hipcc = _hipcc(unit, STAND_IN_6)
    assert hipcc.returncode == 0, hipcc.stderr[-3000:]
    again = tmp_path / "again"
    assert main(["convert", "--no-cache", "--rocm-version", "6.0", str(unit.parent), "-o", str(again)]) == 0
    assert (again / "blas.cu").read_text() == text


def test_before_hip_6_a_data_type_passed_as_the_compute_type_stays_a_hipblas_datatype(tmp_path: Path) -> None:
    text = converted(tmp_path, "5.2", DATA_TYPE_COMPUTE).read_text()
    assert "HIPBLAS_R_32F, n, half ? HIPBLAS_R_16F : HIPBLAS_R_32F, HIPBLAS_GEMM_DEFAULT);" in text
    assert "HIPBLAS_C_32F, n, 8, HIPBLAS_C_32F, HIPBLAS_GEMM_DEFAULT);" in text
    assert "HIPBLAS_COMPUTE" not in text


# cuBLAS takes the triangular matrix A of trsm as const; hipBLAS before ROCm 5.6 declares it without const (and the
# batched form's B as an array of non-const pointers): convert casts them for such a target only.
TRIANGULAR_SOLVES = """\
#include <cublas_v2.h>
cublasStatus_t solve(cublasHandle_t h, int m, int n, float alpha, const float* A, int lda, float* B, int ldb) {
  return cublasStrsm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, m, n, &alpha, A, lda, B, ldb);
}
cublasStatus_t solve(cublasHandle_t h, int m, int n, double alpha, const double* A, int lda, double* B, int ldb) {
  return cublasDtrsm_v2(h, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, CUBLAS_DIAG_UNIT, m, n, &alpha, A, lda, B, ldb);
}
cublasStatus_t solve(cublasHandle_t h, int m, int n, const float* alpha, const float* const A[], float* const B[], int count) {
  return cublasStrsmBatched(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, m, n, alpha, A, m,
                            B, m, count);
}
"""


def test_before_rocm_5_6_trsm_casts_away_the_const_hipblas_lacks(tmp_path: Path) -> None:
    unit = converted(tmp_path, "5.2", TRIANGULAR_SOLVES)
    text = unit.read_text()
    assert "&alpha, const_cast<float*>(A), lda, B, ldb);" in text
    assert "&alpha, const_cast<double*>(A), lda, B, ldb);" in text
    assert "alpha, const_cast<float* const*>(A), m,\n                            const_cast<float**>(B), m, count);" in text
    hipcc = _hipcc(unit, STAND_IN)
    assert hipcc.returncode == 0, hipcc.stderr
    # From ROCm 5.6 hipBLAS takes CUDA's const: the calls stay as written.
    newer = converted(tmp_path, "5.6", TRIANGULAR_SOLVES).read_text()
    assert "const_cast" not in newer and "&alpha, A, lda, B, ldb);" in newer


# cuBLAS's trmm writes C = alpha * op(A) * B in 14 arguments; hipBLAS before 2.0 (ROCm 6.0) has only the in-place
# trmm of 12 (B = alpha * op(A) * B): renamed for such a target the call does not compile, so it is marked instead.
TRIANGULAR_PRODUCTS = """\
#include <cublas_v2.h>
cublasStatus_t product(cublasHandle_t h, int m, int n, const float* alpha, const float* A, const float* B, float* C) {
  return cublasStrmm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, m, n, alpha, A, m, B, m, C, m);
}
cublasStatus_t product(cublasHandle_t h, int m, int n, const double* alpha, const double* A, const double* B, double* C) {
  return cublasDtrmm_v2(h, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, CUBLAS_DIAG_UNIT, m, n, alpha, A, m, B, m, C, m);
}
"""


def test_before_rocm_6_trmm_is_marked_for_its_in_place_signature_and_from_6_it_compiles(tmp_path: Path) -> None:
    tree = tmp_path / "in"
    tree.mkdir()
    (tree / "blas.cu").write_text(TRIANGULAR_PRODUCTS)
    out = tmp_path / "out-5.2"
    # --verify exits 1 where hipcc fails at a site portkit did not mark.
    assert main(["convert", "--no-cache", "--rocm-version", "5.2", "--verify", f"--verify-flag=-I{STAND_IN}", str(tree),
                 "-o", str(out)]) == 0
    text = (out / "blas.cu").read_text()
    for name in ("cublasStrmm", "cublasDtrmm_v2"):
        assert text.count(f"// portkit: PK104 {name}: ") == 1
    assert _hipcc(out / "blas.cu", STAND_IN).returncode != 0  # as written for CUDA, or renamed: no 14-argument trmm
    unit = converted(tmp_path, "6.0", TRIANGULAR_PRODUCTS)
    newer = unit.read_text()
    assert "hipblasStrmm(h, HIPBLAS_SIDE_LEFT, " in newer and "hipblasDtrmm(h, HIPBLAS_SIDE_RIGHT, " in newer
    assert "portkit:" not in newer
    hipcc = _hipcc(unit, STAND_IN_6)
    assert hipcc.returncode == 0, hipcc.stderr[-3000:]
