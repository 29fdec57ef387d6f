/* portkit: CUDA 13's cudaMemPrefetchAsync and cudaMemAdvise (CUDA 12's _v2 forms) take a memory
 * location; this HIP takes a device id: the location's device, or hipCpuDeviceId for any host
 * location. Delete this block when the targeted HIP has hipMemPrefetchAsync_v2 and hipMemAdvise_v2. */
#ifndef PORTKIT_HELPER_MEM_LOCATION
#define PORTKIT_HELPER_MEM_LOCATION
#include <hip/hip_runtime.h>

inline int portkit_hipMemLocationDevice(hipMemLocation location) {
  return location.type == hipMemLocationTypeDevice ? location.id : hipCpuDeviceId;
}

inline hipError_t portkit_hipMemPrefetchAsync_v2(const void* ptr, size_t count, hipMemLocation location,
                                                 unsigned int flags, hipStream_t stream = 0) {
  (void)flags; /* reserved by CUDA: 0 */
  return hipMemPrefetchAsync(ptr, count, portkit_hipMemLocationDevice(location), stream);
}

inline hipError_t portkit_hipMemAdvise_v2(const void* ptr, size_t count, hipMemoryAdvise advice,
                                          hipMemLocation location) {
  return hipMemAdvise(ptr, count, advice, portkit_hipMemLocationDevice(location));
}
#endif /* PORTKIT_HELPER_MEM_LOCATION */
