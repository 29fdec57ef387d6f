// CUDA's double and float classification intrinsics and make_half2, which HIP declares under the same
// names (no rule mapped them, so they were marked as missing).
#include <cuda_runtime.h>
#include <cuda_fp16.h>

__global__ void classify(const float *x, const double *d, int *flags, __half2 *pairs) {
  int i = threadIdx.x;
  flags[i] = __finitef(x[i]) + 2 * __isinff(x[i]) + 4 * __isnanf(x[i]) + 8 * __signbitf(x[i]);
  flags[i] += 16 * __finite(d[i]) + 32 * __isinf(d[i]) + 64 * __isnan(d[i]) + 128 * __signbit(d[i]);
  pairs[i] = make_half2(__float2half(x[i]), __float2half((float)flags[i]));
}
