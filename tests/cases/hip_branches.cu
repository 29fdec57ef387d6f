// A project that already has a HIP branch. Its HIP spellings are no CUDA names (rocThrust's thrust::hip::par was
// reported as a CUDA-looking name no rule knows). The branch hipcc never compiles for AMD is the project's NVIDIA side:
// its names are reported as anywhere (convert leaves thrust::cuda::par there: tests/test_convert_compiles.py), and a
// project's own switch (USE_HIP) decides nothing.
#include <thrust/sort.h>
#include <thrust/execution_policy.h>

void sort_keys(float* d, int n, cudaStream_t stream)  // expect: PK100
{
#if defined(__HIP_PLATFORM_AMD__)
    hipMalloc((void**)&d, n);
    thrust::sort(thrust::hip::par.on(stream), d, d + n);  // ok: PK105
#else
    cudaMalloc((void**)&d, n);  // expect: PK100
    thrust::sort(thrust::cuda::par.on(stream), d, d + n);  // expect: PK100 PK101
#endif
#if !defined(__HIP_PLATFORM_AMD__)
    thrust::sort(thrust::cuda::par, d, d + n);  // expect: PK100 PK101
#endif
#ifdef USE_HIP
    thrust::sort(thrust::hip::par, d, d + n);  // ok: PK105
#else
    thrust::sort(thrust::cuda::par, d, d + n);  // expect: PK100 PK101
#endif
}
