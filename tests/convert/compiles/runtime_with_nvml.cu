// Runtime names and no runtime include, but a CUDA library header that does not bring the runtime
// (nvml.h; HIP's rocm_smi.h neither): nvcc's implicit cuda_runtime.h declared cudaMalloc, hipcc needs the header.
#include <cstdio>
#include <nvml.h>

int allocate(float **data, size_t n) {
  unsigned int devices = 0;
  if (nvmlDeviceGetCount(&devices) != NVML_SUCCESS) return 1;
  cudaError_t status = cudaMalloc(data, n * sizeof(float));
  if (status != cudaSuccess) std::printf("%s\n", cudaGetErrorString(status));
  return status == cudaSuccess ? 0 : 1;
}
