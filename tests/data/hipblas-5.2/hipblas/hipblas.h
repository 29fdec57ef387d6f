// A stand-in for HIP 5.2's hipblas/hipblas.h (hipBLAS 0.51), which Debian does not package: the declarations
// tests/test_convert_hipblas_ex.py and tests/test_convert_compiles.py compile against, as hipBLAS's rocm-5.2.0 header spells them (values included).
#pragma once
#include <hip/hip_runtime.h>
typedef void* hipblasHandle_t;
typedef int64_t hipblasStride;
typedef enum { HIPBLAS_STATUS_SUCCESS = 0, HIPBLAS_STATUS_NOT_SUPPORTED = 7 } hipblasStatus_t;
typedef enum { HIPBLAS_OP_N = 111, HIPBLAS_OP_T = 112, HIPBLAS_OP_C = 113 } hipblasOperation_t;
typedef enum { HIPBLAS_GEMM_DEFAULT = 160 } hipblasGemmAlgo_t;
// Before hipBLAS 2.0 (ROCm 6.0) the Ex calls take these for data, compute and execution types alike.
typedef enum {
  HIPBLAS_R_16F = 150, HIPBLAS_R_32F = 151, HIPBLAS_R_64F = 152, HIPBLAS_C_16F = 153, HIPBLAS_C_32F = 154,
  HIPBLAS_C_64F = 155, HIPBLAS_R_8I = 160, HIPBLAS_R_8U = 161, HIPBLAS_R_32I = 162, HIPBLAS_R_32U = 163,
  HIPBLAS_C_8I = 164, HIPBLAS_C_8U = 165, HIPBLAS_C_32I = 166, HIPBLAS_C_32U = 167, HIPBLAS_R_16B = 168,
  HIPBLAS_C_16B = 169
} hipblasDatatype_t;
hipblasStatus_t hipblasGemmEx(hipblasHandle_t handle, hipblasOperation_t transA, hipblasOperation_t transB, int m, int n,
                              int k, const void* alpha, const void* A, hipblasDatatype_t aType, int lda, const void* B,
                              hipblasDatatype_t bType, int ldb, const void* beta, void* C, hipblasDatatype_t cType, int ldc,
                              hipblasDatatype_t computeType, hipblasGemmAlgo_t algo);
hipblasStatus_t hipblasGemmStridedBatchedEx(hipblasHandle_t handle, hipblasOperation_t transA, hipblasOperation_t transB,
                                            int m, int n, int k, const void* alpha, const void* A,
                                            hipblasDatatype_t aType, int lda, hipblasStride strideA, const void* B,
                                            hipblasDatatype_t bType, int ldb, hipblasStride strideB, const void* beta,
                                            void* C, hipblasDatatype_t cType, int ldc, hipblasStride strideC,
                                            int batchCount, hipblasDatatype_t computeType, hipblasGemmAlgo_t algo);
hipblasStatus_t hipblasDotEx(hipblasHandle_t handle, int n, const void* x, hipblasDatatype_t xType, int incx,
                             const void* y, hipblasDatatype_t yType, int incy, void* result,
                             hipblasDatatype_t resultType, hipblasDatatype_t executionType);
typedef enum { HIPBLAS_FILL_MODE_UPPER = 121, HIPBLAS_FILL_MODE_LOWER = 122, HIPBLAS_FILL_MODE_FULL = 123 } hipblasFillMode_t;
typedef enum { HIPBLAS_DIAG_NON_UNIT = 131, HIPBLAS_DIAG_UNIT = 132 } hipblasDiagType_t;
typedef enum { HIPBLAS_SIDE_LEFT = 141, HIPBLAS_SIDE_RIGHT = 142, HIPBLAS_SIDE_BOTH = 143 } hipblasSideMode_t;
// Before ROCm 5.6 the triangular solves take A (and the batched B) without CUDA's const.
hipblasStatus_t hipblasStrsm(hipblasHandle_t handle, hipblasSideMode_t side, hipblasFillMode_t uplo, hipblasOperation_t transA,
                             hipblasDiagType_t diag, int m, int n, const float* alpha, float* AP, int lda, float* BP, int ldb);
hipblasStatus_t hipblasDtrsm(hipblasHandle_t handle, hipblasSideMode_t side, hipblasFillMode_t uplo, hipblasOperation_t transA,
                             hipblasDiagType_t diag, int m, int n, const double* alpha, double* AP, int lda, double* BP,
                             int ldb);
hipblasStatus_t hipblasStrsmBatched(hipblasHandle_t handle, hipblasSideMode_t side, hipblasFillMode_t uplo,
                                    hipblasOperation_t transA, hipblasDiagType_t diag, int m, int n, const float* alpha,
                                    float* const AP[], int lda, float* BP[], int ldb, int batchCount);
hipblasStatus_t hipblasDtrsmBatched(hipblasHandle_t handle, hipblasSideMode_t side, hipblasFillMode_t uplo,
                                    hipblasOperation_t transA, hipblasDiagType_t diag, int m, int n, const double* alpha,
                                    double* const AP[], int lda, double* BP[], int ldb, int batchCount);
// Before hipBLAS 2.0 (ROCm 6.0) trmm works in place (B = alpha * op(A) * B): no C, no ldc.
hipblasStatus_t hipblasStrmm(hipblasHandle_t handle, hipblasSideMode_t side, hipblasFillMode_t uplo, hipblasOperation_t transA,
                             hipblasDiagType_t diag, int m, int n, const float* alpha, const float* AP, int lda, float* BP,
                             int ldb);
hipblasStatus_t hipblasDtrmm(hipblasHandle_t handle, hipblasSideMode_t side, hipblasFillMode_t uplo, hipblasOperation_t transA,
                             hipblasDiagType_t diag, int m, int n, const double* alpha, const double* AP, int lda,
                             double* BP, int ldb);
