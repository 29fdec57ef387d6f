// Architecture comparisons that are values (a #define body `#if` reads) and ranges of NVIDIA generations: a rewrite
// to __HIP_DEVICE_COMPILE__ would compare 1 with 800, or write a test that says yes and no at once. A comparison in
// code, which nvcc compiles in device code only, is written as AMD's device pass reads it (rodinia dwt2d's enum).
#include <cuda_runtime.h>

#define CC_ADA 890
#define HAS_BF16 (__CUDA_ARCH__ >= 800)
#define HAS_FP8 (__CUDA_ARCH__ >= CC_ADA)
#define ON_DEVICE defined(__CUDA_ARCH__)

#if __CUDA_ARCH__ == 750
#define MAX_THREADS 1024
#elif __CUDA_ARCH__ >= 860 && __CUDA_ARCH__ <= 890
#define MAX_THREADS 1536
#else
#define MAX_THREADS 2048
#endif

struct Banks {
  enum {
#ifdef __CUDA_ARCH__
    COUNT = ((__CUDA_ARCH__ >= 200) ? 32 : 16),
#else
    COUNT = 16,
#endif
  };
};

__global__ void features(int *out) {
  out[3] = Banks::COUNT;
#if HAS_BF16
  out[0] = 1;
#endif
#if HAS_FP8
  out[1] = 1;
#endif
#if ON_DEVICE
  out[2] = MAX_THREADS;
#endif
}
