// Uses of the macros, functions and types the project's own header defines (named like CUDA's):
// never unknown CUDA names, whichever files are named (this file alone, as pre-commit names it).
// A macro whose body calls CUDA is reported at its definition in the header, not at each use.
#include "include/project_macros.h"  // ok: PK105

__global__ void scale(float* p) { p[threadIdx.x] *= 2; }  // expect: PK200

void run(float* host, int n) {
  NVTX_RANGE_FN();  // ok: PK105 PK100
  float* device;
  cudaCheck(cudaMalloc(&device, n * sizeof(float)));  // expect: PK100
  cudaCheck(cudaMemcpy(device, host, n * sizeof(float), cudaMemcpyHostToDevice));  // expect: PK100 PK100
  scale<<<1, n>>>(device);  // expect: PK201
  cudaCheckLast();  // ok: PK105 PK100
  cudaTimer timer;  // ok: PK105 PK100
  cudaCheck(cudaFree(device));  // expect: PK100
}
