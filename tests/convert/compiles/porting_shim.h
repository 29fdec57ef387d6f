// A project's own porting shim: CUDA names defined as their HIP counterparts, included
// only by units built for HIP by hand (porting_shim.cu includes it under a macro).
#pragma once
#include <hip/hip_runtime.h>
#define cudaError_t hipError_t
#define cudaSuccess hipSuccess
#define cudaDeviceProp hipDeviceProp_t
#define cudaGetDeviceProperties hipGetDeviceProperties
#define cudaMalloc(pointer, bytes) hipMalloc(pointer, bytes)
