// Thrust's CUDA backend headers: rocThrust has their twins under thrust/system/hip/, or none (then marked);
// its function objects are ordinary Thrust that rocThrust has. Wrapped in a namespace of the project's own (AMGX),
// it does not build with rocThrust before ROCm 5.7.
#include <thrust/sort.h>  // expect: PK100
#include <thrust/system/cuda/detail/par.h>  // expect: PK100
#include <thrust/system/cuda/execution_policy.h>  // expect: PK100
#include <thrust/system/cuda/detail/core/util.h>  // expect: PK102
#include <thrust/system/hip/vector.h>  // ok: PK105 PK102
#define THRUST_CUB_WRAPPED_NAMESPACE inventory  // expect: PK344

void sort_keys(float* k, int* v, int n) {
    thrust::sort_by_key(thrust::cuda::par, k, k + n, v, thrust::less<float>());  // expect: PK100 PK101 PK100
    thrust::sort(k, k + n, thrust::greater<float>());  // expect: PK100 PK100
}
