// CUDA declares rsqrtf, normcdff, sinpif... for host code too; HIP's are device code's only, so a host call is
// work (apex's layer norm), while a device call maps as it is.
#include <cuda_runtime.h>  // expect: PK100
__global__ void k(float *x) { x[0] = rsqrtf(x[1]) + normcdff(x[2]); }  // expect: PK200 PK100 PK100
float host_scale(float v) { return rsqrtf(v) * normcdff(v) + sinpif(v); }  // expect: PK101 PK101 PK101
__host__ __device__ float both(float v) { return rsqrtf(v); }  // expect: PK202 PK100
float host_sqrt(float v) { return sqrtf(v); }  // ok: PK101
