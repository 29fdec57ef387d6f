// Warp-size hazards: each flagged line has a twin that must stay quiet.
#include <cstdint>

template <int N> struct Tile { float v[N]; };

__device__ int lane_bad() { return threadIdx.x % 32; }  // expect: PK202 PK300
__device__ int lane_ok() { return threadIdx.x % warpSize; }  // expect: PK202 PK101  // ok: PK300
__device__ int warp_bad() { return threadIdx.x / 32; }  // expect: PK202 PK300
__device__ int warp_shift_bad() { return threadIdx.x >> 5; }  // expect: PK202 PK300
__device__ int mask_bad() { return threadIdx.x & 31; }  // expect: PK202 PK300
__device__ int mask_ok() { return threadIdx.x & (warpSize - 1); }  // expect: PK202 PK101  // ok: PK300
int host_side(int n) { return n / 32 + (n & 31); }  // ok: PK300

__device__ float shuffles(float v, int lane) {  // expect: PK202
  v += __shfl_down_sync(0xffffffff, v, 1);  // expect: PK301 PK104
  v += __shfl_down_sync(__activemask(), v, 1);  // expect: PK104 PK104
  v += __shfl_sync(0xffffffff, v, lane, 32);  // expect: PK301 PK304 PK104
  v += __shfl_sync(__activemask(), v, lane, 16);  // expect: PK104 PK104
  return v;
}

__device__ int votes(bool p) {  // expect: PK202
  unsigned bits = __ballot_sync(0xffffffffu, p);  // expect: PK301 PK302 PK104
  uint64_t wide = __ballot_sync(~0ull, p);  // expect: PK104
  unsigned long long also_wide = __activemask();  // expect: PK104
  int narrow = __activemask();  // expect: PK302 PK104
  return __popc(bits) + __popcll(wide) + __popcll(also_wide) + narrow;  // expect: PK100 PK100 PK100
}

__device__ void constants() {  // expect: PK202
  constexpr int width = warpSize;  // expect: PK303 PK101
  float buffer[warpSize];  // expect: PK303 PK101
  Tile<warpSize> tile;  // expect: PK303 PK101
  int runtime = warpSize;  // expect: PK101
  (void)width; (void)buffer; (void)tile; (void)runtime;
}
