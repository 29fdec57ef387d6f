// Geometric Brownian motion paths, two ways: host-API cuRAND fills a buffer of
// normals, or each thread draws its own with the device API (curand_kernel.h).
#include <cmath>

#include <curand_kernel.h>

#include "common.h"

__global__ void evolve_paths(MarketParams market, int paths, int steps,
                             const float* normals, float* out) {
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= paths) return;
  const float dt = market.maturity / steps;
  const float drift = (market.rate - 0.5f * market.volatility * market.volatility) * dt;
  const float diffusion = market.volatility * sqrtf(dt);
  float s = market.spot;
  for (int t = 0; t < steps; ++t) {
    s *= __expf(drift + diffusion * normals[t * paths + p]);
  }
  out[p] = s;
}

__global__ void evolve_paths_device_rng(MarketParams market, int paths, int steps,
                                        unsigned long long seed, float* out) {
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= paths) return;
  curandStatePhilox4_32_10_t state;
  curand_init(seed, p, 0, &state);
  const float dt = market.maturity / steps;
  float s = market.spot;
  for (int t = 0; t < steps; ++t) {
    const float z = curand_normal(&state);
    s *= expf((market.rate - 0.5f * market.volatility * market.volatility) * dt +
              market.volatility * sqrtf(dt) * z);
  }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  out[p] = __fmaf_rn(s, 1.0f, 0.0f);
#else
  out[p] = s;
#endif
}

void simulate_paths(const MarketParams& market, int paths, int steps,
                    unsigned long long seed, float* d_paths, cudaStream_t stream) {
  curandGenerator_t gen;
  float* d_normals = nullptr;
  CUDA_CHECK(cudaMalloc(&d_normals, sizeof(float) * paths * steps));
  CURAND_CHECK(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_PHILOX4_32_10));
  CURAND_CHECK(curandSetStream(gen, stream));
  CURAND_CHECK(curandSetPseudoRandomGeneratorSeed(gen, seed));
  CURAND_CHECK(curandGenerateNormal(gen, d_normals, (size_t)paths * steps, 0.0f, 1.0f));
  const int block = 128;
  evolve_paths<<<(paths + block - 1) / block, block, 0, stream>>>(market, paths, steps,
                                                                d_normals, d_paths);
  CUDA_CHECK(cudaGetLastError());
  CURAND_CHECK(curandDestroyGenerator(gen));
  CUDA_CHECK(cudaFree(d_normals));
}

void simulate_paths_device_rng(const MarketParams& market, int paths, int steps,
                               unsigned long long seed, float* d_paths,
                               cudaStream_t stream) {
  const int block = 128;
  evolve_paths_device_rng<<<(paths + block - 1) / block, block, 0, stream>>>(
      market, paths, steps, seed, d_paths);
  CUDA_CHECK(cudaGetLastError());
}
