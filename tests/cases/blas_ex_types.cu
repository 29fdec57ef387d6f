// hipBLAS's Ex calls before HIP 6.0 (hipblasGemmEx...) take hipblasDatatype_t: the data types passed to them are
// that enum's (CUDA_R_16BF is HIPBLAS_R_16B, which HIP 5.2 has), elsewhere hipDataType's (HIP_R_16BF: HIP 5.7).
// The tensor-op algorithms, deprecated since cuBLAS 11, are hipBLAS's default one.
#include <cublas_v2.h>  // expect: PK100
cublasStatus_t gemm(cublasHandle_t h, int n, const float *alpha, const void *a, const float *beta, float *c) {  // expect: PK100 PK100
  return cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_T, n, n, n, alpha, a, CUDA_R_16F, n, a, CUDA_R_16F, n, beta, c,  // expect: PK104 PK100 PK100 PK100 PK100
                      CUDA_R_32F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT_TENSOR_OP);  // expect: PK100 PK104 PK100
}
cublasStatus_t dot(cublasHandle_t h, int n, const void *x, const void *y, void *r) {  // expect: PK100 PK100
  return cublasDotEx(h, n, x, CUDA_R_16BF, 1, y, CUDA_R_16BF, 1, r, CUDA_R_32F, CUDA_R_32F);  // expect: PK104 PK100 PK100 PK100 PK100
}
cudaDataType_t elsewhere = CUDA_R_16BF;  // expect: PK100 PK104
cublasGemmAlgo_t tuned = CUBLAS_GEMM_ALGO3_TENSOR_OP;  // expect: PK100 PK101
