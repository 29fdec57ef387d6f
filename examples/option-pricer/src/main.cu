// A small Monte Carlo pricer for a European call with a regression-based control
// variate. It exercises what makes a CUDA code base hard to port: cuRAND,
// cuSOLVER, NCCL, warp intrinsics and inline PTX.
#include <cmath>
#include <cstdio>
#include <vector>

#include "common.h"
#include "reduce.cuh"

__global__ void payoffs(const float* terminal, int paths, float strike,
                        float discount, float* out) {
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p < paths) out[p] = discount * fmaxf(terminal[p] - strike, 0.0f);
}

int main() {
  const MarketParams market{100.0f, 105.0f, 0.03f, 0.2f, 1.0f};
  const int paths = 1 << 16;
  const int steps = 64;

  cudaDeviceProp prop;
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s (warp size %d, sm %d.%d)\n", prop.name, prop.warpSize,
              prop.major, prop.minor);

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  float *d_terminal = nullptr, *d_payoff = nullptr;
  CUDA_CHECK(cudaMalloc(&d_terminal, paths * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_payoff, paths * sizeof(float)));

  simulate_paths(market, paths, steps, 1234ULL, d_terminal, stream);
  const float discount = std::exp(-market.rate * market.maturity);
  payoffs<<<(paths + 255) / 256, 256, 0, stream>>>(d_terminal, paths, market.strike,
                                                  discount, d_payoff);
  CUDA_CHECK(cudaGetLastError());
  const float sum = device_sum(d_payoff, paths, stream);
  float mean = 0.0f, median = 0.0f, p95 = 0.0f;
  payoff_statistics(d_payoff, paths, &mean, &median, &p95);
  std::printf("payoff mean %.4f median %.4f p95 %.4f\n", mean, median, p95);

  cusolverDnHandle_t solver;
  CUSOLVER_CHECK(cusolverDnCreate(&solver));
  CUSOLVER_CHECK(cusolverDnSetStream(solver, stream));
  float coeffs[3] = {0.0f, 0.0f, 0.0f};
  least_squares_fit(solver, d_terminal, d_payoff, paths, coeffs);
  CUSOLVER_CHECK(cusolverDnDestroy(solver));

  const double price = allreduce_mean(sum, paths);
  std::printf("price %.4f, fit %.4f %.6f %.8f\n", price, coeffs[0], coeffs[1], coeffs[2]);

  CUDA_CHECK(cudaFree(d_payoff));
  CUDA_CHECK(cudaFree(d_terminal));
  CUDA_CHECK(cudaStreamDestroy(stream));
  return 0;
}
