// Accumulators reset with `= {}`: nvcc takes it for half2; hipcc finds the assignment ambiguous.
#include <cuda_fp16.h>

__global__ void accumulate(half2 *out, const half2 *in, int n) {
  half2 sum;
  __half2 count;
  sum = {};
  count = {};
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    sum = __hadd2(sum, in[i]);
    count = __hadd2(count, __float2half2_rn(1.0f));
  }
  out[threadIdx.x] = __h2div(sum, count);
}
