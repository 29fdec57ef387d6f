// A project's own HIP code may include HIP headers the pinned 5.2 lacks: hip/hip_math_constants.h arrived in
// HIP 5.3, hip/hip_fp8.h in 6.2. hipcc stops there as at a name the target lacks (PK104); HIP's runtime header is
// in every HIP.
#include <hip/hip_runtime.h>  // ok: PK104
#include <hip/hip_math_constants.h>  // expect: PK104
#include "hip/hip_fp8.h"  // expect: PK104
__device__ float twice_pi() { return 2.0f * HIP_PI_F; }
