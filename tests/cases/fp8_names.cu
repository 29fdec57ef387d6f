// CUDA's fp8 (cuda_fp8.h) has HIP names: the OCP types (CUDA's formats) from ROCm 6.3, the storage types,
// saturation and conversions from 6.2. On the pinned 5.2 each is "needs a newer HIP" (PK104), not
// "no HIP equivalent" (PK102).
#include <cuda_fp8.h>  // expect: PK104 PK204
__global__ void quantize(const float *x, __nv_fp8_e4m3 *q, __nv_fp8_storage_t *raw, int n) {  // expect: PK200 PK104 PK104
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    q[i] = __nv_fp8_e4m3(x[i]);  // expect: PK104
    raw[i] = __nv_cvt_float_to_fp8(x[i], __NV_SATFINITE, __NV_E4M3);  // expect: PK104 PK104 PK104
  }
}
