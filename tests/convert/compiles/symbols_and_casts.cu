// Device symbols passed to the runtime (HIP_SYMBOL(x): x on AMD, &x on NVIDIA), a CUDA type used as a
// functional cast, and launch configurations that are dim3 values already.
#include <cuda.h>
#include <cuda_runtime.h>

__constant__ float table[4];
__device__ int counter;

__global__ void fill(float *out) { out[threadIdx.x] = table[threadIdx.x % 4] + counter; }

void upload(const float *host, const int *start, cudaStream_t s) {
  cudaMemcpyToSymbol(table, host, sizeof(table));
  cudaMemcpyToSymbolAsync(counter, start, sizeof(int), 0, cudaMemcpyHostToDevice, s);
  float back[4];
  cudaMemcpyFromSymbol(back, table, sizeof(back));
  void *address = nullptr;
  size_t size = 0;
  cudaGetSymbolAddress(&address, counter);
  cudaGetSymbolSize(&size, table);
  CUdeviceptr base = CUdeviceptr(address);
  fill<<<dim3(1, 1, 1), dim3(4)>>>(reinterpret_cast<float *>(base));
}
