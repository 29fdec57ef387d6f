// Error checking shared by the option pricer's translation units.
#pragma once

#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>
#include <curand.h>
#include <cusolverDn.h>
#include <nccl.h>

#define CUDA_CHECK(call)                                                    \
  do {                                                                      \
    cudaError_t err_ = (call);                                              \
    if (err_ != cudaSuccess) {                                              \
      std::fprintf(stderr, "CUDA error %s at %s:%d\n",                      \
                   cudaGetErrorString(err_), __FILE__, __LINE__);           \
      std::exit(1);                                                         \
    }                                                                       \
  } while (0)

#define CURAND_CHECK(call)                                                  \
  do {                                                                      \
    curandStatus_t st_ = (call);                                            \
    if (st_ != CURAND_STATUS_SUCCESS) {                                     \
      std::fprintf(stderr, "cuRAND error %d at %s:%d\n", (int)st_,          \
                   __FILE__, __LINE__);                                     \
      std::exit(1);                                                         \
    }                                                                       \
  } while (0)

#define CUSOLVER_CHECK(call)                                                \
  do {                                                                      \
    cusolverStatus_t st_ = (call);                                          \
    if (st_ != CUSOLVER_STATUS_SUCCESS) {                                   \
      std::fprintf(stderr, "cuSOLVER error %d at %s:%d\n", (int)st_,        \
                   __FILE__, __LINE__);                                     \
      std::exit(1);                                                         \
    }                                                                       \
  } while (0)

#define NCCL_CHECK(call)                                                    \
  do {                                                                      \
    ncclResult_t r_ = (call);                                               \
    if (r_ != ncclSuccess) {                                                \
      std::fprintf(stderr, "NCCL error %s at %s:%d\n",                      \
                   ncclGetErrorString(r_), __FILE__, __LINE__);             \
      std::exit(1);                                                         \
    }                                                                       \
  } while (0)

struct MarketParams {
  float spot;
  float strike;
  float rate;
  float volatility;
  float maturity;
};

// Path simulation (paths.cu)
void simulate_paths(const MarketParams& market, int paths, int steps,
                    unsigned long long seed, float* d_paths, cudaStream_t stream);
void simulate_paths_device_rng(const MarketParams& market, int paths, int steps,
                               unsigned long long seed, float* d_paths,
                               cudaStream_t stream);

// Regression (regression.cu)
void least_squares_fit(cusolverDnHandle_t solver, const float* d_x,
                       const float* d_y, int n, float* h_coeffs);

// Payoff statistics (stats.cu)
void payoff_statistics(const float* d_payoff, int n, float* mean, float* median, float* p95);

// Reductions (reduce.cuh)
float device_sum(const float* d_values, int n, cudaStream_t stream);

// Multi-GPU aggregation (comm.cpp)
double allreduce_mean(double local_sum, long long local_count);
