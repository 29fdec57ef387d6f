// cuda_bf16.h's two names for one type: HIP 5.7 spells it __hip_bfloat16 (PK104 on the pinned 5.2).
#include <cuda_bf16.h>  // expect: PK104 PK204
__global__ void scale(__nv_bfloat16 *a, nv_bfloat16 *b) {}  // expect: PK200 PK104 PK104
