// Uses of the program's own copies of driver API names (driver_api_copy.h).
#include "driver_api_copy.h"

static void done(void *) {}

__global__ void fill(unsigned long long *out) { out[threadIdx.x] = CU_MEMHOSTALLOC_PORTABLE; }

int allocate(tcuMemAlloc alloc, CUdeviceptr *where, CUgraphicsResource resource) {
  CUstreamCallback callback = done;
  callback(resource);
  return alloc(where, sizeof(CUdeviceptr));
}
