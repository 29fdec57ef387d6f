// A stand-in for ROCm 6.0's hipblas/hipblas.h (hipBLAS 2.0), which Debian does not package: the declarations
// tests/test_convert_hipblas_ex.py compiles against, as hipBLAS's rocm-6.0.0 header spells them (values included).
// hipDataType comes from HIP's own <hip/library_types.h>, as in the real header (HIP 5.2's has the types used here).
#pragma once
#include <hip/hip_runtime.h>
#include <hip/library_types.h>
typedef void* hipblasHandle_t;
typedef int64_t hipblasStride;
typedef enum { HIPBLAS_STATUS_SUCCESS = 0, HIPBLAS_STATUS_NOT_SUPPORTED = 7 } hipblasStatus_t;
typedef enum { HIPBLAS_OP_N = 111, HIPBLAS_OP_T = 112, HIPBLAS_OP_C = 113 } hipblasOperation_t;
typedef enum { HIPBLAS_GEMM_DEFAULT = 160 } hipblasGemmAlgo_t;
// From hipBLAS 2.0 the _v2 Ex calls take hipDataType for data types and this for the compute type.
typedef enum {
  HIPBLAS_COMPUTE_16F = 0, HIPBLAS_COMPUTE_16F_PEDANTIC = 1, HIPBLAS_COMPUTE_32F = 2, HIPBLAS_COMPUTE_32F_PEDANTIC = 3,
  HIPBLAS_COMPUTE_32F_FAST_16F = 4, HIPBLAS_COMPUTE_32F_FAST_16BF = 5, HIPBLAS_COMPUTE_32F_FAST_TF32 = 6,
  HIPBLAS_COMPUTE_64F = 7, HIPBLAS_COMPUTE_64F_PEDANTIC = 8, HIPBLAS_COMPUTE_32I = 9, HIPBLAS_COMPUTE_32I_PEDANTIC = 10,
} hipblasComputeType_t;
hipblasStatus_t hipblasGemmEx_v2(hipblasHandle_t handle, hipblasOperation_t transA, hipblasOperation_t transB, int m,
                                 int n, int k, const void* alpha, const void* A, hipDataType aType, int lda,
                                 const void* B, hipDataType bType, int ldb, const void* beta, void* C,
                                 hipDataType cType, int ldc, hipblasComputeType_t computeType, hipblasGemmAlgo_t algo);
hipblasStatus_t hipblasGemmBatchedEx_v2(hipblasHandle_t handle, hipblasOperation_t transA, hipblasOperation_t transB,
                                        int m, int n, int k, const void* alpha, const void* A[], hipDataType aType,
                                        int lda, const void* B[], hipDataType bType, int ldb, const void* beta,
                                        void* C[], hipDataType cType, int ldc, int batchCount,
                                        hipblasComputeType_t computeType, hipblasGemmAlgo_t algo);
hipblasStatus_t hipblasGemmStridedBatchedEx_v2(hipblasHandle_t handle, hipblasOperation_t transA,
                                               hipblasOperation_t transB, int m, int n, int k, const void* alpha,
                                               const void* A, hipDataType aType, int lda, hipblasStride strideA,
                                               const void* B, hipDataType bType, int ldb, hipblasStride strideB,
                                               const void* beta, void* C, hipDataType cType, int ldc,
                                               hipblasStride strideC, int batchCount,
                                               hipblasComputeType_t computeType, hipblasGemmAlgo_t algo);
hipblasStatus_t hipblasDotEx_v2(hipblasHandle_t handle, int n, const void* x, hipDataType xType, int incx,
                                const void* y, hipDataType yType, int incy, void* result, hipDataType resultType,
                                hipDataType executionType);
typedef enum { HIPBLAS_FILL_MODE_UPPER = 121, HIPBLAS_FILL_MODE_LOWER = 122, HIPBLAS_FILL_MODE_FULL = 123 } hipblasFillMode_t;
typedef enum { HIPBLAS_DIAG_NON_UNIT = 131, HIPBLAS_DIAG_UNIT = 132 } hipblasDiagType_t;
typedef enum { HIPBLAS_SIDE_LEFT = 141, HIPBLAS_SIDE_RIGHT = 142, HIPBLAS_SIDE_BOTH = 143 } hipblasSideMode_t;
// From hipBLAS 2.0 trmm takes cuBLAS's arguments: C = alpha * op(A) * B, in place where C is B.
hipblasStatus_t hipblasStrmm(hipblasHandle_t handle, hipblasSideMode_t side, hipblasFillMode_t uplo, hipblasOperation_t transA,
                             hipblasDiagType_t diag, int m, int n, const float* alpha, const float* A, int lda, const float* B,
                             int ldb, float* C, int ldc);
hipblasStatus_t hipblasDtrmm(hipblasHandle_t handle, hipblasSideMode_t side, hipblasFillMode_t uplo, hipblasOperation_t transA,
                             hipblasDiagType_t diag, int m, int n, const double* alpha, const double* A, int lda,
                             const double* B, int ldb, double* C, int ldc);
