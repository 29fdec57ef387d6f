// Definitions HIP's own headers make: a redefinition under hipcc.
#include <cuda_runtime.h>  // expect: PK100
__device__ float atomicMax(float *a, float v) { return v; }  // expect: PK202 PK338
__device__ double atomicAdd(double *a, double v) { return v; }  // expect: PK202 PK338
#if !defined(__HIP_PLATFORM_AMD__)
__device__ float atomicMin(float *a, float v) { return v; }  // ok: PK338
#endif
__device__ int atomicAdd(int *a, int v, int w) { return v; }  // ok: PK338
__device__ unsigned __shfl_xor(unsigned v, int m, int w) { return v; }  // expect: PK202 PK338
__device__ float4 __shfl_xor(float4 v, int m, int w) { return v; }  // expect: PK202
#define __shfl_up(v, d) __shfl_up_sync(0xffffffff, v, d)  // expect: PK338 PK104
#define shfl_up_all(v, d) __shfl_up_sync(0xffffffff, v, d)  // expect: PK104
#if !defined(__HIP_PLATFORM_AMD__)
#define __shfl(v, l) __shfl_sync(0xffffffff, v, l)  // expect: PK104
#endif
