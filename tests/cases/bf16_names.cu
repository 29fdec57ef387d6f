// cuda_bf16.h's two names for one type: HIP 5.7 spells it __hip_bfloat16 (PK104 on the pinned 5.2).
#include <cuda_bf16.h>  // expect: PK104 PK204
__global__ void scale(__nv_bfloat16 *a, nv_bfloat16 *b) {}  // expect: PK200 PK104 PK104
// Its pair and conversions came with the same HIP: PK104 on 5.2, not PK102 (no HIP equivalent).
__device__ float sum2(__nv_bfloat162 pair) {  // expect: PK202 PK104
  return __low2float(pair) + __bfloat162float(__high2bfloat16(pair)) + __bfloat162float(__float2bfloat16(1.0f));  // expect: PK100 PK104 PK104 PK104 PK104
}
