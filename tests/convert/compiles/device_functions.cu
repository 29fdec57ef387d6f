#include <cuda_runtime.h>
#include <math_constants.h>

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 600
#else
// An old-GPU fallback that HIP already provides: it must stay out of the AMD build.
__device__ double atomicAdd(double *address, double value) { return value; }
#endif

__global__ void k(unsigned *u, long long *l, float *f, double *sum) {
  u[0] = umin(u[1], u[2]) + umax(u[1], u[2]);
  l[0] = llmin(l[1], l[2]);
  f[0] = __fadd_rd(f[1], f[2]) * CUDART_PI_F;
  atomicAdd(sum, 1.0);
  // Built-in coordinates are unsigned ints in CUDA and proxy objects in HIP: these are ambiguous under hipcc unless cast.
  u[3] = min(u[1], blockDim.x) + max(threadIdx.x, blockDim.x) + umin(u[2], gridDim.x);
#if __CUDA_ARCH__ >= 530
  f[1] = __fmul_rz(f[2], 2.0f);
#endif
}
