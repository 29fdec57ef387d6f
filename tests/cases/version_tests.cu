// Tests of CUDA's version in #if: they build on AMD (an undefined macro reads 0 there), so each is one
// CUDA-only branch (PK203), not a use of a CUDA name HIP lacks.
#include <cuda_runtime.h>  // expect: PK100
#if defined(CUDART_VERSION) && CUDART_VERSION >= 11000  // expect: PK203
#define HAVE_NEW_RUNTIME 1
#else
#define HAVE_NEW_RUNTIME 0
#endif
#ifdef CUDART_VERSION  // expect: PK203 PK101
#define HAVE_A_RUNTIME 1
#endif
#if CUDA_VERSION >= 11000  // expect: PK203
#define HAVE_NEW_DRIVER 1
#endif
#if __CUDACC_VER_MAJOR__ < 12  // expect: PK203
#define OLD_NVCC 1
#endif
int runtime_version() { return CUDART_VERSION; }  // expect: PK101
