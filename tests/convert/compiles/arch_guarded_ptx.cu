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

// One test guards the PTX helper and, elsewhere, its call (warp-ctc's moderngpu intrinsics): left as CUDA's at the
// helper, it is left at the call too, or AMD device code would call a function it never defined.
#if __CUDA_ARCH__ >= 200
__device__ unsigned bfe_ptx(unsigned x, unsigned bit, unsigned n) {
  unsigned r;
  asm("bfe.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(bit), "r"(n));
  return r;
}
#endif

__host__ __device__ unsigned bfe(unsigned x, unsigned bit, unsigned n) {
#if __CUDA_ARCH__ >= 200
  return bfe_ptx(x, bit, n);
#else
  return (x >> bit) & ((1u << n) - 1);
#endif
}

// A branch that defines a function HIP declares (warp-ctc's hostdevice.h): switched on, the template would shadow
// HIP's __shfl_down and call itself. The shuffle inside, rewritten to HIP 5.2's __shfl_down, builds, so converting
// the output again decides the same (the test above checks it).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 350
template <typename T> __forceinline__ __device__ T __shfl_down(T input, int delta) {
  return __shfl_down_sync(0xffffffffu, input, delta);
}
#endif
__global__ void shift(float *p) { p[threadIdx.x] = __shfl_down(p[threadIdx.x], 1) + bfe(3u, 1u, 1u); }
