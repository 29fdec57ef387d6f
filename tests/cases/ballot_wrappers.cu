// A ballot returned by a wrapper (darknet's im2col_kernels.cu `__ballot_custom`): the wrapper's return type is where
// the 64-bit mask is kept, and a 32-bit one hands every caller lanes 0-31 only.
#include <cstdint>
typedef unsigned int U32;

template <typename T>
__device__ inline uint32_t ballot_narrow(T val) {
#if CUDART_VERSION >= 9000
  return __ballot_sync(~0ull, val);  // expect: PK302 PK104
#else
  return __ballot(val);
#endif
}

__device__ U32 ballot_aliased(bool p) { return __ballot_sync(~0ull, p); }  // expect: PK202 PK302 PK104
__device__ unsigned long long ballot_wide(bool p) { return __ballot_sync(~0ull, p); }  // expect: PK202 PK104  // ok: PK302
__device__ uint64_t active_wide() { return __activemask(); }  // expect: PK202 PK104  // ok: PK302
__device__ int voters(bool p) { return __popcll(__ballot_sync(~0ull, p)); }  // expect: PK202 PK104 PK100  // ok: PK302

__global__ void pack(const float *src, uint32_t *dst, unsigned long long *wide) {
  uint32_t bits = ballot_narrow(src[threadIdx.x] > 0);
  auto lambda_bits = [](bool p) -> unsigned long long { return __ballot_sync(~0ull, p); };  // expect: PK104  // ok: PK302
  wide[threadIdx.x] = ballot_wide(src[threadIdx.x] > 0) + lambda_bits(true) + active_wide() + voters(true);
  dst[threadIdx.x] = bits + ballot_aliased(true);
}
