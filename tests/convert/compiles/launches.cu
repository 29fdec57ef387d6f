#include <cuda_runtime.h>
#include "header_only_uses.cuh"

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) return e_; } while (0)

template <typename T> __global__ void scale(T *x, T f) { x[threadIdx.x] *= f; }
__global__ void plain(float *x) { x[threadIdx.x] = twice(x[threadIdx.x]); }
namespace ops { __global__ void zero(int *x) { x[threadIdx.x] = 0; } }

cudaError_t run(float *d, int *i, cudaStream_t s) {
  scale<float><<<dim3(2), 64, 0, s>>>(d, 2.0f);
  plain<< <1, 32>> >(d);                            // nvcc accepts the spaced chevrons, clang does not
  ops::zero<<<(256 + 127) / 128, 128, 0>>>(i);
  plain<<<1, 32, 0, s>>>(d + cudaGetLastError());   // an API call inside the launch arguments
  CHECK((plain<<<1, 32>>>(d), cudaGetLastError())); // a launch inside a macro argument
  auto later = [=]() { ops::zero<<<1, 1>>>(i); };
  later();
  return sync_all();
}
