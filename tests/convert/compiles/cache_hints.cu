// Cache-hinted loads and stores of vector and scalar types: HIP has the loads for __half and
// __half2 only.
#include <cuda_runtime.h>
#include <cuda_fp16.h>

__global__ void stream(const float4 *in, float4 *out, const int4 *indices, int4 *copy, const __half *h, float *f) {
  float4 value = __ldcs(in + threadIdx.x);
  __stcs(out + threadIdx.x, value);
  __stcg(copy + threadIdx.x, __ldcg(indices + threadIdx.x));
  __stwb(f + threadIdx.x, __half2float(__ldca(h + threadIdx.x)) + __ldcs(f + threadIdx.x));
}
