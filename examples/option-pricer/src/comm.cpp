// Aggregate per-GPU partial sums with NCCL: one communicator per local device,
// an all-reduce of (sum, count) pairs in double precision.
#include <vector>

#include "common.h"

double allreduce_mean(double local_sum, long long local_count) {
  int devices = 0;
  CUDA_CHECK(cudaGetDeviceCount(&devices));
  if (devices < 1) return local_sum / static_cast<double>(local_count);

  std::vector<ncclComm_t> comms(devices);
  std::vector<int> ids(devices);
  for (int d = 0; d < devices; ++d) ids[d] = d;
  NCCL_CHECK(ncclCommInitAll(comms.data(), devices, ids.data()));

  std::vector<double*> buffers(devices);
  std::vector<cudaStream_t> streams(devices);
  const double host[2] = {local_sum, static_cast<double>(local_count)};
  for (int d = 0; d < devices; ++d) {
    CUDA_CHECK(cudaSetDevice(d));
    CUDA_CHECK(cudaStreamCreateWithFlags(&streams[d], cudaStreamNonBlocking));
    CUDA_CHECK(cudaMalloc(&buffers[d], 2 * sizeof(double)));
    const double* src = d == 0 ? host : nullptr;
    if (src) {
      CUDA_CHECK(cudaMemcpy(buffers[d], src, 2 * sizeof(double), cudaMemcpyHostToDevice));
    } else {
      CUDA_CHECK(cudaMemset(buffers[d], 0, 2 * sizeof(double)));
    }
  }

  NCCL_CHECK(ncclGroupStart());
  for (int d = 0; d < devices; ++d) {
    NCCL_CHECK(ncclAllReduce(buffers[d], buffers[d], 2, ncclDouble, ncclSum,
                             comms[d], streams[d]));
  }
  NCCL_CHECK(ncclGroupEnd());

  double total[2] = {0.0, 0.0};
  CUDA_CHECK(cudaSetDevice(0));
  CUDA_CHECK(cudaStreamSynchronize(streams[0]));
  CUDA_CHECK(cudaMemcpy(total, buffers[0], sizeof(total), cudaMemcpyDeviceToHost));
  for (int d = 0; d < devices; ++d) {
    CUDA_CHECK(cudaSetDevice(d));
    CUDA_CHECK(cudaFree(buffers[d]));
    CUDA_CHECK(cudaStreamDestroy(streams[d]));
    NCCL_CHECK(ncclCommDestroy(comms[d]));
  }
  return total[0] / total[1];
}
