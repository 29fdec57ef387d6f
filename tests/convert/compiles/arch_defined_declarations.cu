// `#ifdef __CUDA_ARCH__` (and `#if defined(__CUDA_ARCH__)`) around device functions only, which kernel templates
// call: nvcc's host pass never instantiates those calls; clang's (hipcc) does, so the functions must be declared in
// AMD's host pass as well, as for the compared tests of arch_guarded_declarations.cu.
#include <cuda_runtime.h>

#ifdef __CUDA_ARCH__
__device__ void add_to(double *p, double v) { atomicAdd(p, v); }
#endif

#if defined(__CUDA_ARCH__)
template <typename T> __device__ T twice(T v) { return v + v; }
#endif

// The device side is the #else: the test that switches it on is negated.
#ifndef __CUDA_ARCH__
__device__ float halve(float v) { return v / 2; }
#else
__device__ float halve(float v) { return v * 0.5f; }
#endif

// Older GPUs and the host take the fallback: the rewritten test says so once.
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ < 600
__device__ double add_slowly(double *p, double v) { double old = *p; *p = old + v; return old; }
#else
__device__ double add_slowly(double *p, double v) { return atomicAdd(p, v); }
#endif

// A __host__ __device__ fallback the host may call: the host keeps it.
#ifdef __CUDA_ARCH__
__device__ float scale(float v) { return v * 2; }
#else
__host__ __device__ float scale(float v) { return v + v; }
#endif

template <typename T> __global__ void accumulate(T *p) {
  add_to(p, twice(T(1)));
  add_slowly(p, T(halve(2.0f)));
}

__global__ void scaled(float *f) { f[0] = scale(f[0]); }

void run(double *p, float *f) {
  accumulate<<<1, 64>>>(p);
  scaled<<<1, 64>>>(f);
}
