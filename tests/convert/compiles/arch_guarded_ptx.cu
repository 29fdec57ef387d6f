// Architecture tests that guard Hopper-only inline PTX and intrinsics. Under hipcc __CUDA_ARCH__ is undefined,
// so the original compiles the other branch; the converted file must not switch the NVIDIA-only one on.
#include <cuda_runtime.h>

__device__ double load_reduce(const double *address) {
  double result = 0.0;
#if __CUDA_ARCH__ >= 900
  asm volatile("multimem.ld_reduce.relaxed.sys.global.add.f64 %0, [%1];" : "=d"(result) : "l"(address) : "memory");
#else
  result = *address;
#endif
  return result;
}

__global__ void arrive(int *flag) {
#if __CUDA_ARCH__ < 900
  *flag = 1;
#else
  __cluster_barrier_arrive();
  *flag = 2;
#endif
}

// A test whose new-GPU branch is plain code still counts AMD device code as new enough.
__global__ void accumulate(double *sum, double v) {
#if __CUDA_ARCH__ >= 600
  atomicAdd(sum, v);
#else
  *sum += v;
#endif
}

// A test around a nested one: the inner test keeps its PTX out of AMD device code, so the outer one still switches
// its plain code on (left as CUDA's, it would leave `add_twice` undefined where `twice` calls it).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 600
__device__ void add_twice(float *address, float v) {
#if __CUDA_ARCH__ >= 700
  asm volatile("red.relaxed.gpu.global.add.f32 [%0], %1;" : : "l"(address), "f"(v) : "memory");
#else
  atomicAdd(address, 2 * v);
#endif
}
#endif

__global__ void twice(float *a, float v) {
#ifdef __CUDA_ARCH__
  add_twice(a, v);
#endif
}

// PTX in a #define body, its template on the line after `asm( \` and spliced with a parameter (moderngpu): the
// test around it stays CUDA's, as for asm in code.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 300
#define SHFL_UP_ADD(ptx_type, c_type) \
__device__ inline c_type shfl_up_add(c_type x, int off) { \
  c_type result; \
  asm( \
    "{.reg ."#ptx_type" r0;" \
    "shfl.up.b32 r0, %1, %2, 0;" \
    "mov."#ptx_type" %0, r0; }" \
    : "=f"(result) : "f"(x), "r"(off)); \
  return result; }
SHFL_UP_ADD(f32, float)
#endif
