// A chain with the project's own HIP branch (own_hip_branches.py): convert keeps CUDA's tests and the CUDA branch as
// written, and both are right as they are, hipcc compiling the HIP branch. Listed, saying why, but no work: the
// estimate bills none of it, and convert marks no hazard there (tests/test_summary.py, test_convert_compiles.py).
#if defined(__CUDACC__) && !defined(__HIP__)  // expect: PK204 PK203 PK101
#define LANES 32
__device__ inline unsigned lanes_below(bool p) { return __ballot_sync(0xffffffff, p) & ((1u << (threadIdx.x % 32)) - 1); }  // expect: PK202 PK104 PK301 PK300
#elif defined(__HIP__)
#define LANES 64
__device__ inline unsigned long long lanes_below(bool p) { return __ballot(p) & ((1ull << (threadIdx.x % 64)) - 1); }  // expect: PK202 PK100
#endif
__device__ inline int width() {  // expect: PK202
#if __CUDA_ARCH__ >= 700  // expect: PK101 PK203 PK320
    return 32;
#elif defined(__HIP_DEVICE_COMPILE__)
    return warpSize;  // expect: PK100
#else
    return 0;
#endif
}
