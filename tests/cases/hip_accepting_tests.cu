// A test of CUDA's compiler that accepts HIP too is no CUDA-only branch: hipcc takes it (colmap's HOST_DEVICE);
// one that excludes HIP, or reads only the project's own switch, is. The project's own macros read as set: its HIP
// switch beside HIP's platform macro is hipcc's branch (llama.cpp's GGML_USE_HIP).
#include <cuda_runtime.h>  // expect: PK100
#if defined(__CUDACC__) || __HIP__ == 1  // expect: PK101
#define HOST_DEVICE __host__ __device__
#else
#define HOST_DEVICE
#endif
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)  // expect: PK101
#define ON_DEVICE 1
#endif
#if defined(__CUDACC__) && !defined(__HIP__)  // expect: PK101 PK203
#define NVCC_ONLY 1
#endif
#if defined(__CUDACC__) || defined(USE_GPU)  // expect: PK101 PK203
#define GPU_PATH 1
#endif
#if (defined(PROJECT_USE_HIP) && defined(__HIP_PLATFORM_AMD__)) || __CUDA_ARCH__ >= 610  // expect: PK101 PK320
#define HAS_DOT4 1
#endif
#if !defined(__HIP_PLATFORM_AMD__) && defined(PROJECT_FAST) && __CUDA_ARCH__ >= 700  // expect: PK101 PK203 PK320
#define FAST_PATH 1
#endif
HOST_DEVICE inline float twice(float x) { return 2.f * x; }
