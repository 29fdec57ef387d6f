// Architecture tests around device functions only (tiny-cuda-nn's vec.h, atomic_add_gmem_h2), which kernel templates
// call with arguments of their type parameter. nvcc's host pass never instantiates those calls; clang's (hipcc) does,
// so the functions must be declared in AMD's host pass as well.
#include <cuda_runtime.h>

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 600  // atomicAdd(double) needs sm_60
// One device function, and a template of one.
__device__ void add_to(double *p, double v) { atomicAdd(p, v); }
template <typename T> __device__ T twice(T v) { return v + v; }
#endif

// A nested test keeps its PTX out of AMD code; the test around it still only declares a device function.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 600
__device__ inline void add_float(float *address, float v) {
#if __CUDA_ARCH__ >= 700
  asm volatile("red.relaxed.gpu.global.add.f32 [%0], %1;" : : "l"(address), "f"(v) : "memory");
#else
  atomicAdd(address, v);
#endif
}
#endif

// The other side defines the same function for older GPUs: AMD takes the first in both passes.
#if __CUDA_ARCH__ >= 600
__device__ float add_max(float *p, float v) { return atomicAdd(p, v); }
#else
__device__ float add_max(float *p, float v) { float old = *p; *p = old + v; return old; }
#endif

template <typename T> __global__ void accumulate(T *p) { add_to(p, twice(T(1))); }

template <typename T> __global__ void add_floats(T *f) {
  add_float(f, T(1));
  add_max(f + 1, T(2));
}

// The other side is a __host__ __device__ fallback, which host code may call: the host keeps it.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 600
__device__ double add_or_store(double *p, double v) { return atomicAdd(p, v); }
#else
__host__ __device__ double add_or_store(double *p, double v) { double old = *p; *p = old + v; return old; }
#endif

__global__ void store(double *p) { add_or_store(p, 1.0); }

void run(double *p, float *f) {
  accumulate<<<1, 64>>>(p);
  add_floats<<<1, 64>>>(f);
  store<<<1, 64>>>(p);
}
