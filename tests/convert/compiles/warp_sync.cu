#include <cuda_runtime.h>
__global__ void reduce(float *x) {
  float v = x[threadIdx.x];
  for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);
  unsigned long long vote = __ballot_sync(__activemask(), v > 0.0f);
  __syncwarp();
  if (threadIdx.x == 0) x[0] = v + vote;
}
// Warp intrinsics behind a project's function-like macros (pytorch3d's pulsar): rewritten in the body as in code.
#define SHFL_SYNC(mask, v, lane) __shfl_sync((mask), (v), (lane))
#define BALLOT(mask, pred) \
  __ballot_sync((mask), (pred) /* a vote, (not a mask) */)
__global__ void vote(float *x) {
  x[threadIdx.x] = SHFL_SYNC(0xffffffffu, x[threadIdx.x], 0) + (float)BALLOT(0xffffffffu, x[0] > 0.0f);
}
// Intrinsics named through the global namespace (nvdiffrast's cudaraster): the same names, rewritten the same way.
namespace raster {
__device__ bool single_lane() { return (::__ballot_sync(~0u, true) & 1u) == 0; }
__device__ bool any_lane(bool p) { return ::__any_sync(~0u, p) && !::__all_sync(~0u, p); }
}
