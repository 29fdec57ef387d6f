// A #define in a branch no build of the port takes (`#if defined(_MSC_VER) && _MSC_VER < 1910`) or a keyword's
// under any #if, in a header of the project: other files keep their keywords and their qualifiers.
#include "include/old_msvc_compat.h"

constexpr unsigned kFullMask = 0xffffffffu;

struct Ops {
  HOST_DEVICE_INLINE float Broadcast(float v) const noexcept { return __shfl_sync(kFullMask, v, 0, 16); }  // expect: PK202 PK301 PK104
};

HOST_DEVICE_INLINE float lane_sum(float v) { return v + __shfl_xor_sync(0xffffffff, v, 1); }  // expect: PK202 PK301 PK104

__global__ void k(float* x) { x[threadIdx.x] = Ops{}.Broadcast(x[threadIdx.x]) + lane_sum(1.0f); }  // expect: PK200
