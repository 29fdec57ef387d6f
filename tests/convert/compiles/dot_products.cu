// CUDA's integer dot products (sm_61+), which HIP lacks: int8 weights times int8 activations.
#include <cuda_runtime.h>

__global__ void int8_dot(const int *weights, const int *activations, const char4 *w4, const char4 *a4,
                         const short2 *w2, int *out, unsigned *uout, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int sum = __dp4a(weights[i], activations[i], 0);
  sum = __dp4a(w4[i], a4[i], sum);
  sum = __dp2a_lo(w2[i], a4[i], sum) + __dp2a_hi(weights[i], activations[i], 0);
  out[i] = sum;
  uout[i] = __dp4a((unsigned)weights[i], (unsigned)activations[i], 1u);
}
