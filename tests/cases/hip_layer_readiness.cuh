// mamba's alias.cuh in small: libcu++ for nvcc, and under the project's own HIP switch (`#ifndef USE_ROCM` ... #else)
// its own `cuda::std`, an alias of std. Its HIP build compiles `::cuda::std::forward` as std's: that use is settled by
// the project's HIP layer, ready as it is; the libcu++ include beside the switch's HIP branch is code a build with
// the switch does not compile. Neither is billed, and neither lowers the readiness (tests/test_summary.py): only
// __nanosleep, which HIP lacks and nothing settles, is work: 1 ready of 2.
#pragma once
#ifndef USE_ROCM
#include <cuda/std/type_traits>  // expect: PK102
#else
#include <hip/hip_runtime.h>
#include <type_traits>
namespace cuda { namespace std = ::std; }
#endif
template <typename T, typename U>
__host__ __device__ void put(T *p, U &&v) { *p = ::cuda::std::forward<U>(v); }  // expect: PK202 PK102
__device__ inline void pause() { __nanosleep(100); }  // expect: PK202 PK102
