// nvcc's compiler macros (__NVCC__, its version numbers, NVRTC's __CUDACC_RTC__) are the CUDA language's, listed with
// __CUDACC__ and __CUDA_ARCH__ among the device language's names: a file that only tests them uses no runtime API.
#if defined(__NVCC__) && __CUDACC_VER_MAJOR__ >= 11  // expect: PK101 PK203
#define NEW_NVCC 1
#endif
#ifndef __CUDACC_RTC__  // expect: PK101 PK203
#include <cstdio>
#endif
static_assert(__CUDACC_VER_MAJOR__ * 100 + __CUDACC_VER_MINOR__ >= 0, "nvcc");  // expect: PK102 PK102
static const int nvcc_build = __CUDACC_VER_BUILD__;  // expect: PK102
