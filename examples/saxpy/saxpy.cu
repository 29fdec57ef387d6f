// saxpy: y = a*x + y on the GPU, timed with CUDA events.
// Uses only the CUDA runtime API, so it ports to HIP by renaming alone.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                     \
  do {                                                                       \
    cudaError_t status_ = (call);                                            \
    if (status_ != cudaSuccess) {                                            \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                \
                   cudaGetErrorString(status_));                             \
      std::exit(1);                                                          \
    }                                                                        \
  } while (0)

__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = a * x[i] + y[i];
  }
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 1 << 20;
  const float a = 2.0f;
  std::vector<float> x(n, 1.0f), y(n, 3.0f);

  float *d_x = nullptr, *d_y = nullptr;
  CUDA_CHECK(cudaMalloc(&d_x, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_y, n * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_x, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_y, y.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));

  const int block = 256;
  const int grid = (n + block - 1) / block;
  CUDA_CHECK(cudaEventRecord(start));
  saxpy<<<grid, block>>>(n, a, d_x, d_y);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaEventRecord(stop));
  CUDA_CHECK(cudaEventSynchronize(stop));

  float ms = 0.0f;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  CUDA_CHECK(cudaMemcpy(y.data(), d_y, n * sizeof(float), cudaMemcpyDeviceToHost));

  int wrong = 0;
  for (int i = 0; i < n; ++i) {
    if (y[i] != a * 1.0f + 3.0f) ++wrong;
  }
  std::printf("saxpy n=%d: %.3f ms, %d wrong\n", n, ms, wrong);

  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  CUDA_CHECK(cudaFree(d_x));
  CUDA_CHECK(cudaFree(d_y));
  return wrong == 0 ? 0 : 1;
}
