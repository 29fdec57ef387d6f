// Monitoring through NVML (handle-based; ROCm SMI is index-based and counts in other units) and a
// block size picked by occupancy with dynamic shared memory per block size (HIP 5.5 added it).
#include <cstdio>
#include <nvml.h>

#define NVML_CHECK(call)                                                              \
  do {                                                                                \
    nvmlReturn_t status_ = (call);                                                    \
    if (status_ != NVML_SUCCESS) std::fprintf(stderr, "%s\n", nvmlErrorString(status_)); \
  } while (0)

template <typename Op>
__global__ void apply(float *data, int n, Op op) {
  extern __shared__ float staging[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  staging[threadIdx.x] = i < n ? data[i] : 0.0f;
  __syncthreads();
  if (i < n) data[i] = op(staging[threadIdx.x]);
}

struct Twice {
  __device__ float operator()(float x) const { return 2.0f * x; }
};

int pick_block_size() {
  int min_grid = 0, block = 0;
  auto staging_bytes = [](int block_size) { return block_size * sizeof(float); };
  cudaOccupancyMaxPotentialBlockSizeVariableSMem(&min_grid, &block, apply<Twice>, staging_bytes);
  cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(&min_grid, &block, apply<Twice>, staging_bytes, 512,
                                                          cudaOccupancyDefault);
  return block;
}

void report(const char *bus_id) {
  NVML_CHECK(nvmlInit());
  nvmlDevice_t device, first;
  NVML_CHECK(nvmlDeviceGetHandleByPciBusId(bus_id, &device));
  NVML_CHECK(nvmlDeviceGetHandleByIndex(0, &first));
  char name[96];
  unsigned int memory_mhz = 0, celsius = 0, milliwatts = 0, fan = 0, count = 0;
  nvmlMemory_t memory;
  nvmlUtilization_t busy;
  NVML_CHECK(nvmlDeviceGetCount(&count));
  NVML_CHECK(nvmlDeviceGetName(device, name, sizeof name));
  NVML_CHECK(nvmlDeviceGetClockInfo(device, NVML_CLOCK_MEM, &memory_mhz));
  NVML_CHECK(nvmlDeviceGetTemperature(device, NVML_TEMPERATURE_GPU, &celsius));
  NVML_CHECK(nvmlDeviceGetPowerUsage(device, &milliwatts));
  NVML_CHECK(nvmlDeviceGetFanSpeed(first, &fan));
  NVML_CHECK(nvmlDeviceGetMemoryInfo(device, &memory));
  NVML_CHECK(nvmlDeviceGetUtilizationRates(device, &busy));
  std::printf("%u devices; %s: %u MHz, %u C, %u mW, fan %u%%, %llu of %llu bytes free, %u%% busy\n", count, name,
              memory_mhz, celsius, milliwatts, fan, memory.free, memory.total, busy.gpu);
  NVML_CHECK(nvmlShutdown());
}
