// Warp- and block-level reductions. Written for 32-lane warps, which is exactly
// what a port to 64-lane AMD wavefronts has to revisit.
#pragma once

#include <cuda_runtime.h>

__device__ __forceinline__ unsigned lane_id() {
  unsigned lane;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  return lane;
}

__device__ __forceinline__ float warp_sum(float value) {
  for (int offset = 16; offset > 0; offset /= 2) {
    value += __shfl_down_sync(0xffffffff, value, offset);
  }
  return value;
}

template <int BLOCK>
__global__ void block_sum_kernel(const float* values, int n, float* out) {
  __shared__ float partial[BLOCK / 32];
  float sum = 0.0f;
  for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += gridDim.x * BLOCK) {
    sum += values[i];
  }
  sum = warp_sum(sum);
  const unsigned lane = lane_id();
  const int warp = threadIdx.x / 32;
  if (lane == 0) partial[warp] = sum;
  __syncthreads();
  if (warp == 0) {
    sum = lane < BLOCK / 32 ? partial[lane] : 0.0f;
    sum = warp_sum(sum);
    unsigned active = __ballot_sync(0xffffffff, sum != 0.0f);
    if (lane == 0 && active != 0u) atomicAdd(out, sum);
  }
}

inline float device_sum(const float* d_values, int n, cudaStream_t stream) {
  constexpr int kBlock = 256;
  float* d_out = nullptr;
  float result = 0.0f;
  cudaMalloc(&d_out, sizeof(float));
  cudaMemsetAsync(d_out, 0, sizeof(float), stream);
  const int grid = (n + kBlock - 1) / kBlock < 1024 ? (n + kBlock - 1) / kBlock : 1024;
  block_sum_kernel<kBlock><<<grid, kBlock, 0, stream>>>(d_values, n, d_out);
  cudaMemcpyAsync(&result, d_out, sizeof(float), cudaMemcpyDeviceToHost, stream);
  cudaStreamSynchronize(stream);
  cudaFree(d_out);
  return result;
}
