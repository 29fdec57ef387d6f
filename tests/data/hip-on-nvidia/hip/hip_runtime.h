// Stand-in for HIP on NVIDIA's <hip/hip_runtime.h>: there HIP's names are CUDA's (nvidia_hip_runtime_api.h maps each
// to its CUDA call). HIP 5.2's own NVIDIA headers no longer compile against CUDA 13 (cudaDeviceProp lost clockRate),
// so the tests that compile a converted file's NVIDIA side with nvcc map the few names they use here.
#pragma once
#include <cuda_runtime.h>

typedef cudaStream_t hipStream_t;
typedef cudaError_t hipError_t;  // HIP's is an enum of its own, converted from CUDA's
inline hipError_t hipMalloc(void** pointer, size_t size) { return cudaMalloc(pointer, size); }
