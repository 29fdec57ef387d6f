// Accumulators reset with `= {}`: hipcc finds the half2 and __half assignments ambiguous.
#include <cuda_fp16.h>

__global__ void accumulate(half2 *out, const half2 *in, int n) {
  half2 sum;
  __half count;
  sum = {};
  count = {};
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    sum = __hadd2(sum, in[i]);
    count = __hadd(count, __float2half(1.0f));
  }
  out[threadIdx.x] = __hmul2(sum, __half2half2(count));
}
