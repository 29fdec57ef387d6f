// A #pragma spelled in a #define body (moderngpu's PRAGMA_UNROLL): nvcc applies it where the macro is used, clang
// stops at the stray `#`. convert writes the _Pragma operator, which both take.
#include <cuda_runtime.h>

#ifdef __CUDA_ARCH__
#define PRAGMA_UNROLL #pragma unroll
#else
#define PRAGMA_UNROLL
#endif
#define UNROLL_BY(n) \
  #pragma unroll 4
#define LABEL "#pragma is text here"

__global__ void fill(float *p) {
  PRAGMA_UNROLL
  for (int i = 0; i < 4; ++i) p[i] = 0.f;
  UNROLL_BY(2)
  for (int i = 4; i < 8; ++i) p[i] = 1.f;
}
