// The project's own header: macros and helpers named like CUDA, defined under every #if branch.
#pragma once
#include <cstdio>
#include <cuda_runtime.h>
#ifdef USE_NVTX
#include <nvtx3/nvToolsExt.h>
struct NvtxRange { NvtxRange(const char* n) { nvtxRangePushA(n); } ~NvtxRange() { nvtxRangePop(); } };
#define NVTX_RANGE_FN() NvtxRange nvtx_range_fn(__func__)
#else
#define NVTX_RANGE_FN()
#endif
#define cudaCheck(call)                                             \
  do {                                                              \
    cudaError_t status_ = (call);                                   \
    if (status_ != cudaSuccess) printf("%s\n", cudaGetErrorString(status_)); \
  } while (0)
#if defined(USE_CUDA_TIMERS)
struct cudaTimer { cudaEvent_t start, stop; };
inline void cudaCheckLast() { cudaCheck(cudaGetLastError()); }
#endif
