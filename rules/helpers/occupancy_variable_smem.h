/* portkit: cudaOccupancyMaxPotentialBlockSizeVariableSMem for HIP before 5.5, which lacks it.
 * Tries every block size that is a whole number of wavefronts, up to the kernel's and the
 * device's limits, and keeps the one with the most resident threads per multiprocessor
 * (the larger block on a tie). Delete this block when the code targets HIP 5.5 or newer. */
#ifndef PORTKIT_HELPER_OCCUPANCY_VARIABLE_SMEM
#define PORTKIT_HELPER_OCCUPANCY_VARIABLE_SMEM
#include <hip/hip_runtime.h>

template <typename Kernel, typename SharedMemoryOfBlockSize>
static inline hipError_t portkit_hipOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(
    int *min_grid_size, int *block_size, Kernel kernel, SharedMemoryOfBlockSize shared_memory_of,
    int block_size_limit = 0, unsigned int flags = hipOccupancyDefault) {
  int device = 0;
  hipDeviceProp_t properties;
  hipFuncAttributes attributes;
  hipError_t status = hipGetDevice(&device);
  if (status == hipSuccess) status = hipGetDeviceProperties(&properties, device);
  if (status == hipSuccess) status = hipFuncGetAttributes(&attributes, reinterpret_cast<const void *>(kernel));
  if (status != hipSuccess) return status;
  int limit = properties.maxThreadsPerBlock;
  if (attributes.maxThreadsPerBlock > 0 && attributes.maxThreadsPerBlock < limit) limit = attributes.maxThreadsPerBlock;
  if (block_size_limit > 0 && block_size_limit < limit) limit = block_size_limit;
  const int step = properties.warpSize > 0 ? properties.warpSize : 64;
  int best_size = 0, best_blocks = 0;
  for (int size = limit - limit % step; size > 0; size -= step) {
    int blocks = 0;
    status = hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
        &blocks, reinterpret_cast<const void *>(kernel), size, static_cast<size_t>(shared_memory_of(size)), flags);
    if (status != hipSuccess) return status;
    if (blocks * size > best_blocks * best_size) {
      best_size = size;
      best_blocks = blocks;
    }
  }
  *block_size = best_size;
  *min_grid_size = best_blocks * properties.multiProcessorCount;
  return hipSuccess;
}

template <typename Kernel, typename SharedMemoryOfBlockSize>
static inline hipError_t portkit_hipOccupancyMaxPotentialBlockSizeVariableSMem(
    int *min_grid_size, int *block_size, Kernel kernel, SharedMemoryOfBlockSize shared_memory_of,
    int block_size_limit = 0) {
  return portkit_hipOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(min_grid_size, block_size, kernel,
                                                                       shared_memory_of, block_size_limit);
}
#endif /* PORTKIT_HELPER_OCCUPANCY_VARIABLE_SMEM */
