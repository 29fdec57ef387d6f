// Cache-hinted loads and stores of any type: HIP has the loads for __half and __half2 only.
#include <cuda_runtime.h>
#include <cuda_fp16.h>

struct alignas(16) Packed { float lanes[4]; };

__global__ void stream(const Packed *in, Packed *out, const int4 *indices, int4 *copy, const __half *h, float *f) {
  Packed value = __ldcs(in + threadIdx.x);
  __stcs(out + threadIdx.x, value);
  __stcg(copy + threadIdx.x, __ldcg(indices + threadIdx.x));
  __stwb(f + threadIdx.x, __half2float(__ldca(h + threadIdx.x)) + __ldcs(f + threadIdx.x));
}
