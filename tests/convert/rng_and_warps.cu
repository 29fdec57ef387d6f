// Conversion input: cuRAND host and device APIs, warp intrinsics with masks,
// a template kernel launch, names in comments and strings that must survive.
#include <cstdio>

#include <cuda_runtime.h>
#include <curand.h>
#include <curand_kernel.h>

#define CHECK(call) do { cudaError_t e = (call); if (e != cudaSuccess) { \
    std::printf("cudaError: %s\n", cudaGetErrorString(e)); return 1; } } while (0)

template <typename T>
__global__ void fill(T* out, unsigned long long seed, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  curandStatePhilox4_32_10_t state;
  curand_init(seed, i, 0, &state);
  float v = curand_uniform(&state);
  // Sum across the warp; cudaMemcpy here is a comment, not code.
  for (int offset = warpSize / 2; offset > 0; offset /= 2) {
    v += __shfl_xor_sync(0xffffffff, v, offset);
  }
  unsigned long long votes = __ballot_sync(0xffffffffu, v > 0.5f);
  if (i < n) out[i] = static_cast<T>(v + (votes ? 1 : 0));
}

int main() {
  const int n = 256;
  float* d = nullptr;
  CHECK(cudaMalloc(&d, n * sizeof(float)));
  curandGenerator_t gen;
  if (curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_DEFAULT) != CURAND_STATUS_SUCCESS) return 1;
  curandSetPseudoRandomGeneratorSeed(gen, 7ULL);
  curandGenerateUniform(gen, d, n);
  curandDestroyGenerator(gen);
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  fill<float><<<dim3(n / 64), dim3(64), 0, stream>>>(d, 42ULL, n);
  CHECK(cudaStreamSynchronize(stream));
  std::printf("done: cudaFree follows\n");
  CHECK(cudaFree(d));
  CHECK(cudaStreamDestroy(stream));
  return 0;
}
