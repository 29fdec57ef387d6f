// A cuDNN 4-7 era project: its version tests, the suffixed names cuDNN 4-6 kept for older
// arguments, and cuBLAS's workspace call. Each is a rule (never an unknown CUDA name, PK105);
// the cuDNN names are partial (their MIOpen counterparts take other arguments), the version
// macros unsupported (MIOpen defines none), and cublasSetWorkspace unavailable before ROCm 7.0.
#include <cudnn.h>  // expect: PK101
#include <cublas_v2.h>  // expect: PK100
#define CUDNN_AT_LEAST(major, minor) (CUDNN_VERSION >= (major) * 1000 + (minor) * 100)  // expect: PK102
#if CUDNN_MAJOR >= 5 && CUDNN_MINOR >= 1 && CUDNN_PATCHLEVEL > 0  // expect: PK102 PK102 PK102
int newer_cudnn = 1;
#endif

void legacy(cudnnPoolingDescriptor_t p, cudnnFilterDescriptor_t f, cudnnConvolutionDescriptor_t c) {  // expect: PK101 PK101 PK101
  cudnnSetPooling2dDescriptor_v4(p, CUDNN_POOLING_MAX, CUDNN_PROPAGATE_NAN, 2, 2, 0, 0, 2, 2);  // expect: PK101 PK101 PK101
  cudnnSetFilter4dDescriptor_v4(f, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 8, 3, 3, 3);  // expect: PK101 PK101 PK104
  cudnnSetConvolution2dDescriptor_v5(c, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);  // expect: PK101 PK101 PK101
}

void workspace(cublasHandle_t h, void* buffer, size_t bytes) {  // expect: PK100
  cublasSetWorkspace(h, buffer, bytes);  // expect: PK104
}
