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
