// nvcc's own pragmas (PK211): hipcc on AMD ignores them, with a warning under -Wall.
#pragma nv_diag_suppress 177  // expect: PK211
#include <cuda_runtime.h>  // expect: PK100
#pragma nv_diagnostic push  // expect: PK211
  #  pragma diag_suppress = 550  // expect: PK211
#pragma nv_diag_warning 1444  // expect: PK211
#pragma hd_warning_disable  // expect: PK211
#pragma once  // ok: PK211
#pragma GCC diagnostic ignored "-Wunused"  // ok: PK211
__global__ void k(int *out) {  // expect: PK200
#pragma unroll  // ok: PK211
  for (int i = 0; i < 2; ++i) out[i] = i;
#pragma nv_diag_default 177  // expect: PK211
}
#pragma nv_diagnostic pop  // expect: PK211
#if !defined(__HIP_PLATFORM_AMD__)
#pragma nv_diag_error 20012  // ok: PK211
#endif
const char *text = "#pragma nv_diag_suppress 177";  // ok: PK211
// #pragma nv_diag_suppress 177  ok: PK211
