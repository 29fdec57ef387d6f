// A header that uses CUDA's language extensions and includes nothing.
#ifndef HEADER_ONLY_USES_CUH
#define HEADER_ONLY_USES_CUH

__device__ inline float twice(float v) { return 2.0f * v; }
inline cudaError_t sync_all() { return cudaDeviceSynchronize(); }

#endif
