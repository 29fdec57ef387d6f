// The register storage class (PK206): C++17 removed it.
#include <cuda_runtime.h>  // expect: PK100
__global__ void k(int *out) {  // expect: PK200
  register int lane = threadIdx.x;  // expect: PK206
  for (register int i = 0; i < 2; ++i) out[i] = lane;  // expect: PK206
  int registered = 1;  // ok: PK206
  const char *text = "register int";  // ok: PK206
  out[0] += registered;  // ok: PK206
}
