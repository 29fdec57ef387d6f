// A project's own names that look like CUDA are not CUDA APIs.
#define CUDA_CHECK_LAST() cudaGetLastError()  // expect: PK100 PK204

struct cudaContextWrapper { int device; };  // ok: PK105

int cudaDeviceCountCached = 0;  // ok: PK105

void cudaHelperInit(cudaContextWrapper* w) {  // ok: PK105
  w->device = cudaDeviceCountCached;  // ok: PK105
  CUDA_CHECK_LAST();  // ok: PK105
}
