// Shared memory, launches, textures, cooperative groups, graphs, Hopper features.
#include <cuda_runtime.h>  // expect: PK100

__global__ void big_tiles(float* out) {  // expect: PK200
  __shared__ float a[128][128];  // expect: PK310
  __shared__ float b[16][16];
  out[0] = a[0][0] + b[0][0];
}

__global__ void small_tiles(float* out) {  // expect: PK200
  __shared__ double c[64][64];  // ok: PK310
  extern __shared__ float dynamic_part[];  // ok: PK310
  out[0] = c[0][0] + dynamic_part[0];
}

__global__ void child(float* out) { out[0] = 1.0f; }  // expect: PK200

__global__ void parent(float* out) {  // expect: PK200
  child<<<1, 1>>>(out);  // expect: PK201 PK330
}

__global__ void __launch_bounds__(256, 4) bounded(float* out) { out[0] = 0.0f; }  // expect: PK200 PK336
__global__ void __launch_bounds__(256) bounded_ok(float* out) { out[0] = 0.0f; }  // expect: PK200

texture<float, 1, cudaReadModeElementType> old_texture;  // expect: PK331 PK103 PK100

void host(float* d, cudaStream_t s) {  // expect: PK100
  child<<<1, 1, 0, s>>>(d);  // expect: PK201
  cudaFuncSetAttribute(big_tiles, cudaFuncAttributeMaxDynamicSharedMemorySize, 160 * 1024);  // expect: PK310 PK100 PK100
  cudaFuncSetAttribute(small_tiles, cudaFuncAttributeMaxDynamicSharedMemorySize, 48 * 1024);  // expect: PK311 PK100 PK100
  cudaStream_t hi;  // expect: PK100
  cudaStreamCreateWithPriority(&hi, cudaStreamNonBlocking, -1);  // expect: PK334 PK100 PK100
  cudaGraph_t graph;  // expect: PK100
  cudaGraphCreate(&graph, 0);  // expect: PK333 PK100
  void* args[] = {&d};
  cudaLaunchCooperativeKernel((void*)child, 1, 1, args, 0, s);  // expect: PK332 PK100
  cudaDeviceProp prop;  // expect: PK100
  cudaGetDeviceProperties(&prop, 0);  // expect: PK100
  if (prop.major >= 8) { }  // expect: PK320
  int lanes = prop.warpSize;  // expect: PK335
  (void)lanes;
}

// tree-sitter-cuda does not know __cluster_dims__: it is blanked before parsing, so the kernel is kept.
__global__ void __cluster_dims__(2, 1, 1) clustered(float* out) { out[0] = 0.0f; }  // expect: PK337 PK200
