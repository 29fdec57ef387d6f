// nvcc includes cuda_runtime.h in every .cu file; hipcc includes nothing.
#include <cstdio>

__global__ void fill(float *x, float v) { x[blockIdx.x * blockDim.x + threadIdx.x] = v; __syncthreads(); }

int main() {
  float *d;
  cudaMalloc(&d, 256 * sizeof(float));
  fill<<<2, 128>>>(d, 1.0f);
  cudaError_t e = cudaDeviceSynchronize();
  printf("%s\n", cudaGetErrorString(e));
  return cudaFree(d) != cudaSuccess;
}
