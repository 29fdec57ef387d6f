// nvcc reads `extern "C"__global__` as a linkage and a keyword; clang reads a string literal with a
// user-defined suffix ("C"__global__) and rejects it.
extern "C"__global__ void scale(float *data, float factor) {
  data[blockIdx.x * blockDim.x + threadIdx.x] *= factor;
}

extern "C"__device__ float twice(float x) { return 2.0f * x; }

void launch(float *data) { scale<<<1, 32>>>(data, 2.0f); }
