// Payoff statistics: a cooperative-groups block reduction for the mean, Thrust for
// the order statistics, NVTX ranges so the phases show up in a profiler.
#include <cooperative_groups.h>
#include <nvtx3/nvToolsExt.h>
#include <thrust/device_ptr.h>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/sort.h>

#include "common.h"

namespace cg = cooperative_groups;

__global__ void block_mean(const float* values, int n, float* partial_sums) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  float sum = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    sum += values[i];
  }
  for (int offset = tile.size() / 2; offset > 0; offset /= 2) {
    sum += tile.shfl_down(sum, offset);
  }
  if (tile.thread_rank() == 0) atomicAdd(&partial_sums[blockIdx.x], sum);
}

void payoff_statistics(const float* d_payoff, int n, float* mean, float* median, float* p95) {
  nvtxRangePushA("payoff statistics");
  const int blocks = 64;
  thrust::device_vector<float> partial(blocks, 0.0f);
  block_mean<<<blocks, 256>>>(d_payoff, n, thrust::raw_pointer_cast(partial.data()));
  CUDA_CHECK(cudaGetLastError());
  thrust::host_vector<float> sums = partial;
  float total = 0.0f;
  for (float s : sums) total += s;
  *mean = total / n;

  thrust::device_vector<float> sorted(thrust::device_pointer_cast(d_payoff),
                                      thrust::device_pointer_cast(d_payoff) + n);
  thrust::sort(sorted.begin(), sorted.end());
  *median = sorted[n / 2];
  *p95 = sorted[(n * 95) / 100];
  nvtxRangePop();
}
