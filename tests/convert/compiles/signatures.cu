// HIP takes const void* and void** where CUDA's C++ API has templates, requires trailing
// arguments CUDA's C++ API defaults (flags = 0), and kept signatures CUDA 12 changed.
#include <cuda_runtime.h>

__global__ void k(float *x) { x[threadIdx.x] = 1.0f; }

__constant__ float weights[4];
__device__ float partial_sums[4];

// CUDA's calling-convention macro for callbacks: HIP has none.
void CUDART_CB on_done(cudaStream_t stream, cudaError_t status, void *data) { *static_cast<int *>(data) = status; }

int main() {
  float *rows;
  size_t pitch;
  cudaMallocPitch(&rows, &pitch, 64 * sizeof(float), 64);
  cudaFuncSetCacheConfig(k, cudaFuncCachePreferL1);
  cudaFuncAttributes attributes;
  cudaFuncGetAttributes(&attributes, k);
  cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 1024);
  float *pinned;
  cudaHostAlloc(&pinned, 64, cudaHostAllocDefault);
  void *args[] = {&rows};
  cudaLaunchKernel(k, dim3(1), dim3(64), args, 0, 0);
  cudaLaunchCooperativeKernel(k, dim3(1), dim3(64), args);
  cudaStream_t stream;
  cudaEvent_t done;
  cudaStreamCreate(&stream);
  cudaEventCreate(&done);
  cudaEvent_t untimed;
  cudaEventCreate(&untimed, cudaEventDisableTiming);  // the C++ overload with flags: HIP has only ...WithFlags
  cudaStreamWaitEvent(stream, done);
  cudaStreamWaitEvent(stream, done, 0);
  float host[4] = {1, 2, 3, 4};
  cudaMemcpyToSymbolAsync(weights, host, sizeof(host));
  cudaMemcpyFromSymbolAsync(host, partial_sums, sizeof(host), 0);
  cudaGraph_t graph;
  cudaGraphExec_t runnable;
  cudaGraphCreate(&graph, 0);
  cudaGraphInstantiate(&runnable, graph, 0);  // CUDA 12's form: HIP's is CUDA 11's, with five arguments
  int finished = 0;
  cudaStreamAddCallback(stream, on_done, &finished, 0);
  cudaArray_t volume;
  cudaChannelFormatDesc channel = cudaCreateChannelDesc<float>();
  cudaMalloc3DArray(&volume, &channel, make_cudaExtent(8, 8, 8));
  return 0;
}
