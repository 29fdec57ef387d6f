// Texture references: removed in CUDA 12, still in HIP 5.2.
#include <cuda_runtime.h>
texture<float, 1, cudaReadModeElementType> t;

__global__ void read(float *out) { out[threadIdx.x] = tex1Dfetch(t, threadIdx.x); }

void bind(float *d, size_t n) {
  cudaBindTexture(0, t, d, n);
  cudaUnbindTexture(t);
}
