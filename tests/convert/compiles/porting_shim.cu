// CUDA's runtime, or the project's shim when built for HIP by hand: converted, the unit builds
// for HIP without the shim, so the names the shim aliases are renamed like any CUDA name.
#ifndef USE_PORTING_SHIM
#include <cuda_runtime.h>
#else
#include "porting_shim.h"
#endif

int device_major(int device) {
  cudaDeviceProp properties;
  return cudaGetDeviceProperties(&properties, device) == cudaSuccess ? properties.major : -1;
}

float *device_buffer(size_t count) {
  float *buffer = nullptr;
  return cudaMalloc(&buffer, count * sizeof(float)) == cudaSuccess ? buffer : nullptr;
}
