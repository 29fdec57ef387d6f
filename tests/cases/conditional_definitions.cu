// A definition under #if: a fallback for a name a CUDA header declares (its uses stay CUDA's, and
// the fallback is renamed with them, so a build without the library still finds it),
// but the project's own copy of a name no CUDA header declares (a CUDA Samples helper).
#ifdef __DRIVER_TYPES_H__
#define checkCudaErrors(val) report((val), #val)
#endif
void init() { checkCudaErrors(cudaSetDevice(0)); }  // expect: PK100

#ifdef USE_CUDNN
#include <cudnn.h>
#else
typedef void* cudnnHandle_t;  // expect: PK101
#endif
void bind(cudnnHandle_t handle);  // expect: PK101

#if CUBLAS_VER_MAJOR < 11
#define CUBLAS_PEDANTIC_MATH CUBLAS_DEFAULT_MATH  // expect: PK104 PK104
#endif
int mode() { return CUBLAS_PEDANTIC_MATH; }  // expect: PK104

// The project's own where no path through the file leaves the name to CUDA: every branch
// defines it, or the file decides the test itself (a program's copy of the driver API).
#if defined(__LP64__)
typedef unsigned long long CUdeviceptr;  // ok: PK100
#else
typedef unsigned int CUdeviceptr;  // ok: PK100
#endif
#define MY_DRIVER_API 5000
#if MY_DRIVER_API >= 4000
#define CU_MEMHOSTALLOC_PORTABLE 0x01  // ok: PK100
#endif
#if MY_DRIVER_API >= 4000 && defined(BUILD_WITH_CUDA)
#define CU_MEMHOSTREGISTER_PORTABLE 0x01  // expect: PK100
#endif
typedef void (*CUstreamCallback)(void *userData);  // ok: PK100
int pinned(CUdeviceptr p, CUstreamCallback cb) { return CU_MEMHOSTALLOC_PORTABLE + (int)p + (cb != 0); }  // ok: PK100

// A fallback in the branch of a test of CUDA's version that hipcc compiles (the macros undefined there read 0,
// however `defined(...)` is read: convert renames it, a shim does not) is what a HIP build gets: the project's.
#include <cuda_fp16.h>
#if !defined(CUDART_VERSION) || CUDART_VERSION < 12000
__device__ unsigned int __hgt2_mask(half2 a, half2 b) { return 0u; }  // ok: PK102
#endif
#if CUDART_VERSION >= 12000
#else
__device__ unsigned int __hlt2_mask(half2 a, half2 b) { return 0u; }  // ok: PK102
#endif
// Where hipcc's branch is not the fallback's, the name stays CUDA's (the first branch here no compiler of the port
// builds: the newest CUDA skips it too, so the definition is no work; its uses below are).
#if defined(CUDART_VERSION) && CUDART_VERSION < 13000
__device__ unsigned int __hge2_mask(half2 a, half2 b) { return 0u; }  // expect: PK202
#endif
#if CUDART_VERSION >= 12000
__device__ unsigned int __hle2_mask(half2 a, half2 b) { return 0u; }  // expect: PK202 PK102
#endif
__device__ unsigned int masks(half2 a, half2 b) {  // ok: PK102
  return __hgt2_mask(a, b) | __hlt2_mask(a, b) | __hge2_mask(a, b) | __hle2_mask(a, b);  // expect: PK102 PK102
}
