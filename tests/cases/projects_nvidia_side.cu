// The project's own NVIDIA side: the #else of its test for AMD's HIP (own_hip_branches.py). HIP on NVIDIA compiles it,
// so convert renames its names as anywhere; hipcc for AMD never does, so none of it is work for the port: listed, billed
// nowhere, and its warp-size code, right at NVIDIA's 32 lanes, gets no marker (tests/test_summary.py).
#include <cuda_runtime.h>  // expect: PK100
#if defined(__HIP_PLATFORM_AMD__)
__device__ int lane() { return __lane_id(); }  // expect: PK202
#else
__device__ int lane() { return threadIdx.x & 31; }  // expect: PK202 PK300
__device__ unsigned vote(bool p) { unsigned m = __ballot_sync(0xffffffff, p); return m; }  // expect: PK202 PK104 PK301 PK302
#endif
__global__ void k(int *o) { o[threadIdx.x] = lane(); }  // expect: PK200
