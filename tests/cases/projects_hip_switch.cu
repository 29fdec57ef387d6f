// The project's own HIP switch (parse/hip_switches.py): USE_AMD_ROCM selects its HIP code, so a build with it needs
// none of the CUDA branch beside it. Converted and marked all the same (a build without the switch compiles it),
// but billed nowhere (tests/test_summary.py); the note names the switch.
#include <cuda_runtime.h>  // expect: PK100
#ifdef USE_AMD_ROCM
__device__ inline unsigned lane() { return __lane_id(); }  // expect: PK202
#else
__device__ inline unsigned lane() {  // expect: PK202
  unsigned id;
  asm("mov.u32 %0, %%laneid;" : "=r"(id));  // expect: PK101
  return id;
}
#endif
#if HAVE_GPU
#ifdef USE_AMD_ROCM
__device__ inline unsigned long long vote(bool p) { return __ballot(p); }  // expect: PK202 PK100
#else
__device__ inline unsigned vote(bool p) { return __ballot_sync(0xffffffffu, p); }  // expect: PK202 PK104 PK301 PK302
#endif
#endif
void sync_all() { cudaDeviceSynchronize(); }  // expect: PK100
