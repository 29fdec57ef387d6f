// nvcc's host_defines.h qualifiers, and host-side declarations of the built-in coordinates.
#include <cuda_runtime.h>
typedef struct __builtin_align__(8) { unsigned int lo, hi; } word2;  // expect: PK100
extern __device__ __device_builtin__ void __threadfence(void);  // expect: PK100 PK100
#ifndef __CUDA_ARCH__
extern const dim3 gridDim;  // expect: PK338
extern const uint3 blockIdx;  // expect: PK338
#endif
__global__ void stamp(word2 *w) { w[blockIdx.x].lo = gridDim.x; __threadfence(); }
void host_side() { dim3 gridDim(4); (void)gridDim; }  // ok: PK338
