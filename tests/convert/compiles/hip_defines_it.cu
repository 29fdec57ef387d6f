// Helpers a CUDA project defines for itself, which HIP's headers already define.
#include <cuda_runtime.h>

__device__ float atomicMax(float *address, float value) {
  int *bits = (int *)address;
  int old = *bits, assumed;
  do {
    assumed = old;
    old = atomicCAS(bits, assumed, __float_as_int(fmaxf(value, __int_as_float(assumed))));
  } while (assumed != old);
  return __int_as_float(old);
}

__device__ float __shfl_down(float v, unsigned delta, int width = 32) { return __shfl_down_sync(0xffffffff, v, delta, width); }

__global__ void peak(float *best, const float *x) { atomicMax(best, __shfl_down(x[threadIdx.x], 1)); }

// A shuffle of a vector type: HIP has none, so this one stays (as in HeCBench's dpid).
__device__ float4 __shfl_down(float4 v, unsigned delta, int width = 32) {
  return make_float4(__shfl_down(v.x, delta, width), __shfl_down(v.y, delta, width), __shfl_down(v.z, delta, width),
                     __shfl_down(v.w, delta, width));
}

__global__ void spread(float4 *x) { x[threadIdx.x] = __shfl_down(x[threadIdx.x], 1); }
