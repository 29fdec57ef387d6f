// A project that already has a HIP branch. Its HIP spellings are no CUDA names (rocThrust's thrust::hip::par was
// reported as a CUDA-looking name no rule knows); the branch that NVIDIA builds keep is converted like any code,
// thrust::cuda::par as cudaMalloc.
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
#ifdef USE_HIP
    thrust::sort(thrust::hip::par, d, d + n);  // ok: PK105
#else
    thrust::sort(thrust::cuda::par, d, d + n);  // expect: PK100 PK101
#endif
}
