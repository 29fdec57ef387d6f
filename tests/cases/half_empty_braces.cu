// `x = {}` for a half2 variable: nvcc takes it, hipcc finds the assignment ambiguous (PK208).
#include <cuda_fp16.h>  // expect: PK100 PK204
__global__ void reduce(half2 *out, const half2 *in) {  // expect: PK200
  half2 sum;
  __half2 first, second = {};
  sum = {};  // expect: PK208
  first = {};  // expect: PK208
  float scale; scale = {};  // ok: PK208
  sum = __hadd2(sum, in[threadIdx.x]);  // ok: PK208
  out[threadIdx.x] = __hadd2(sum, __hadd2(first, second));
}
__device__ float other(float total) {  // expect: PK202
  float sum;
  sum = {};  // ok: PK208
  return sum + total;
}
