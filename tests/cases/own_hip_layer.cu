// Uses of CUDA's names that the project's own HIP layer (include/own_hip_layer.h, under its switch PROJECT_HIP)
// defines as HIP's: its HIP build maps them already, so they are settled (listed, billed nowhere: test_summary.py),
// naming the layer's header; convert renames them all the same (harmless under the layer). A name the layer does
// not define (cudaStreamCreate) is the port's work as ever.
#ifdef PROJECT_HIP
#include <hip/hip_runtime.h>
#include "include/own_hip_layer.h"
#else
#include <cuda_runtime.h>  // expect: PK100
#endif
int upload(float* dst, const float* src, int n, cudaStream_t s) {  // expect: PK100
  cudaError_t e = cudaMemcpyAsync(dst, src, n * sizeof(float), cudaMemcpyHostToDevice, s);  // expect: PK100 PK100 PK100
  if (e != cudaSuccess) return 1;  // expect: PK100
  return cudaStreamSynchronize(s) == cudaSuccess ? 0 : 1;  // expect: PK100 PK100
}
int make(cudaStream_t* s) { return cudaStreamCreate(s) == cudaSuccess ? 0 : 1; }  // expect: PK100 PK100 PK100
