#include <cuda_runtime.h>
__global__ void reduce(float *x) {
  float v = x[threadIdx.x];
  for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);
  unsigned long long vote = __ballot_sync(__activemask(), v > 0.0f);
  __syncwarp();
  if (threadIdx.x == 0) x[0] = v + vote;
}
