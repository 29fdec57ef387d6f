// A device function under a __CUDA_ARCH__ test and a host one of the same name in its other branch (a function or
// a function-like macro): nvcc compiles each pass with its own; clang (hipcc) type-checks host code in the device
// pass and kernels in the host pass, so each must be callable from both sides there.
#include <cstdio>
#include <cuda_runtime.h>

#ifdef __CUDA_ARCH__
__device__ __forceinline__ unsigned swap_halves(unsigned x) { return __byte_perm(x, x, 0x1032); }
#else
#define swap_halves(x) (((x) << 16) | ((x) >> 16))
#endif

// The host side a function with host-only code in it: never built for the device.
#if defined(__CUDA_ARCH__)
__device__ int bits_set(unsigned x) { return __popc(x); }
#else
static inline int bits_set(unsigned x) {
  static int calls = 0;
  if (++calls == 1) std::printf("counting bits on the host\n");
  int n = 0;
  for (; x; x &= x - 1) n++;
  return n;
}
#endif

// The device side is the #else; the host one says __host__ already.
#ifndef __CUDA_ARCH__
__host__ float half_of(float v) { return v / 2; }
#else
__device__ float half_of(float v) { return __fmul_rn(v, 0.5f); }
#endif

#if __CUDA_ARCH__ >= 350
template <typename T> __device__ T loaded(const T *p) { return __ldg(p); }
#else
template <typename T> T loaded(const T *p) { return *p; }
#endif

__global__ void mix(unsigned *u, float *f) {
  u[threadIdx.x] = swap_halves(u[threadIdx.x]) + bits_set(u[0]) + loaded(u);
  f[threadIdx.x] = half_of(f[threadIdx.x]);
}

unsigned mix_on_host(unsigned *u, float *f) {
  f[0] = half_of(f[0]);
  return swap_halves(u[0]) + bits_set(u[1]) + loaded(u);
}
