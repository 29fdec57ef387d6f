// Tests of the project's macros that HIP's platform decides (include/platform_macros.h): `#ifdef PTX_AVAILABLE` and
// `#if !PROJECT_ON_HIP` hold code hipcc never compiles for AMD, and the #else of `#if PROJECT_ON_HIP` too: the
// project's NVIDIA side, listed but billed nowhere with the header in the project (tests/test_summary.py), and
// converted to what compiles for AMD (tests/test_convert_compiles.py).
#include <cuda_runtime.h>  // expect: PK100
#include "include/platform_macros.h"
__device__ __forceinline__ unsigned lane_id() {  // expect: PK202
#ifdef PTX_AVAILABLE
  unsigned id;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(id));  // expect: PK101
  return id;
#else
  return threadIdx.x % warpSize;
#endif
}
#if !PROJECT_ON_HIP
__device__ unsigned vote(bool p) { return __ballot_sync(0xffffffffu, p); }  // expect: PK202 PK104 PK301 PK302
#endif
#if PROJECT_ON_HIP
__device__ unsigned long long any_lanes(bool p) { return __ballot(p); }  // expect: PK202 PK100
#else
__device__ unsigned any_lanes(bool p) { return __any_sync(0xffffffffu, p); }  // expect: PK202 PK104 PK301
#endif
__global__ void k(unsigned *o) { o[threadIdx.x] = lane_id(); }  // expect: PK200
