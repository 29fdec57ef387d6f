// HIP's older platform macros in a project that already ports itself: ROCm 6.0 no longer defines them, and a test of
// one is silently false there. Their ROCm 4.2 names read the same under every HIP this converts for.
#include <cuda_runtime.h>

#if defined(__HIP_PLATFORM_HCC__)
#define LANES 64
#elif defined(__HIP_PLATFORM_NVCC__)
#define LANES 32
#else
#define LANES 32
#endif

#ifdef __HIP_PLATFORM_HCC__
static_assert(LANES == 64, "hipcc for AMD takes the AMD branch");
#endif

__global__ void fill(int *p) { p[threadIdx.x] = LANES; }

void run(int *p) { fill<<<1, LANES>>>(p); }
