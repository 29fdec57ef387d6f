// CUDA 13 prefetches and advises managed memory for a location (a cudaMemLocation and flags);
// HIP 5.2 takes a device id. The location may be a variable, a parameter, a member or an initialiser.
#include <cuda_runtime.h>

struct Placement {
  cudaMemLocation home;
  int device;
};

static void to_device(float *data, size_t bytes, const cudaMemLocation &where, cudaStream_t stream) {
  cudaMemPrefetchAsync(data, bytes, where, 0, stream);
}

int main() {
  float *data;
  size_t bytes = 1 << 20;
  cudaMallocManaged(&data, bytes);
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  cudaMemLocation device_location = {cudaMemLocationTypeDevice, 0};
  Placement placement = {device_location, 0};
  cudaMemAdvise(data, bytes, cudaMemAdviseSetPreferredLocation, device_location);
  cudaMemPrefetchAsync(data, bytes, device_location, 0);
  cudaMemPrefetchAsync(data, bytes, placement.home, 0, stream);
  cudaMemPrefetchAsync(data, bytes, {cudaMemLocationTypeDevice, placement.device}, 0, stream);
  to_device(data, bytes, device_location, stream);
  cudaStreamSynchronize(stream);
  cudaFree(data);
  return 0;
}
