// Statement macros without a trailing ';' confuse tree-sitter's reading of what follows.
#include <cuda_runtime.h>
#define CHECK(x) { cudaError_t e = (x); if (e != cudaSuccess) return e; }
#define TIMER_START
#define TIMER_STOP

cudaError_t copy(float *d, const float *h, size_t n) {
  CHECK( cudaMemcpy(d, h, n, cudaMemcpyHostToDevice) )
  TIMER_START
  cudaMemcpy(d, h, n, cudaMemcpyHostToDevice);
  TIMER_STOP
  CHECK( cudaDeviceSynchronize() )
}
