// min and max of a signed and an unsigned integer in device code: CUDA compares them as the unsigned
// type and returns it; hipcc without the overloads picks a floating-point min, no array index.
#include <cuda_runtime.h>

__device__ unsigned first_free(const int *owners, int count, unsigned limit) {
  unsigned long long seen = 0;
  for (int i = 0; i < count; ++i) seen = max(seen, (long long)owners[i]);
  return owners[min(count - 1, limit)] + (unsigned)seen;
}

__global__ void gather(float *out, const float *in, int n, long stride, unsigned long total) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[min(n - 1, i + 2 * blockDim.x)] + in[max(stride, total) % n] + in[min(n, blockDim.x) - 1];
  out[i] += (float)first_free((const int *)in, n, gridDim.x);
}
