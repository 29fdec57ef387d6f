// Warp-size hazards: each flagged line has a twin that must stay quiet.
#include <cstdint>

#define WARP_SIZE 32  // expect: PK300
#define FULL_MASK 0xffffffff
#define LANES_64 0xffffffffffffffffull
typedef unsigned int U32;
using Mask32 = U32;
typedef unsigned long long U64;
constexpr int kWarpSize = 32;  // expect: PK300
constexpr int kBlock = 256;  // ok: PK300
template <int N> struct Tile { float v[N]; };

__device__ int lane_bad() { return threadIdx.x % 32; }  // expect: PK202 PK300
__device__ int lane_ok() { return threadIdx.x % warpSize; }  // expect: PK202 PK100  // ok: PK300
__device__ int warp_bad() { return threadIdx.x / 32; }  // expect: PK202 PK300
__device__ int warp_shift_bad() { return threadIdx.x >> 5; }  // expect: PK202 PK300
__device__ int mask_bad() { return threadIdx.x & 31; }  // expect: PK202 PK300
__device__ int mask_ok() { return threadIdx.x & (warpSize - 1); }  // expect: PK202 PK100  // ok: PK300
__device__ int lane_named(int i) { int lane = i & 31; return lane; }  // expect: PK202 PK300
__device__ int chunks(int n) { return (n + 31) / 32; }  // expect: PK202  // ok: PK300
__device__ unsigned bits(unsigned v) { return v >> 5; }  // expect: PK202  // ok: PK300
int host_side(int n) { return n / 32 + (n & 31); }  // ok: PK300

__device__ float warp_reduce(float v) {  // expect: PK202
  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_down(v, o);  // expect: PK100 PK100  // ok: PK300
  return v;
}

__device__ float loops(float v, int n) {  // expect: PK202
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(~0ull, v, offset);  // expect: PK300 PK104
  for (int mask = 1; mask < 32; mask *= 2) v += __shfl_xor(v, mask);  // expect: PK300 PK100
  for (int i = 16; i > 0; i /= 2) v += i;  // ok: PK300
  for (int j = 0; j < n / 32; ++j) v += j;  // ok: PK300
  return v;
}

template <int BLOCK>
__global__ void per_block(float* out) {  // expect: PK200
  __shared__ float partial[BLOCK / 32];  // expect: PK300
  out[0] = partial[0];
}

__device__ float shuffles(float v, int lane) {  // expect: PK202
  v += __shfl_down_sync(0xffffffff, v, 1);  // expect: PK301 PK104
  v += __shfl_down_sync(FULL_MASK, v, 1);  // expect: PK301 PK104
  v += __shfl_down_sync(LANES_64, v, 1);  // expect: PK104  // ok: PK301
  v += __shfl_down_sync(-1, v, 1);  // expect: PK301 PK104
  v += __shfl_down_sync(-1ll, v, 1);  // expect: PK104  // ok: PK301
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
  unsigned global = ::__ballot_sync(~0u, p);  // expect: PK301 PK302 PK104
  U32 aliased = __ballot_sync(~0ull, p);  // expect: PK302 PK104
  Mask32 through_two = __activemask();  // expect: PK302 PK104
  U64 aliased_wide = __ballot_sync(~0ull, p);  // expect: PK104  // ok: PK302
  int counted = __popc(__ballot_sync(~0ull, p));  // expect: PK302 PK104 PK100
  int upper = __popc(__ballot_sync(~0ull, p) >> 32);  // expect: PK104 PK100  // ok: PK302
  int counted_wide = __popcll(__ballot_sync(~0ull, p));  // expect: PK104 PK100  // ok: PK302
  return __popc(bits) + __popcll(wide) + __popcll(also_wide) + narrow + global + aliased + through_two + aliased_wide + counted + upper + counted_wide;  // expect: PK100 PK100 PK100
}

__device__ void constants() {  // expect: PK202
  constexpr int width = warpSize;  // expect: PK303 PK100
  float buffer[warpSize];  // expect: PK303 PK100
  Tile<warpSize> tile;  // expect: PK303 PK100
  int runtime = warpSize;  // expect: PK100
  (void)width; (void)buffer; (void)tile; (void)runtime;
}

__global__ void per_lane_and_per_warp(float* out) {  // expect: PK200
  __shared__ float per_lane[32];
  __shared__ float per_warp[WARP_SIZE];
  int lane = threadIdx.x % warpSize;  // expect: PK100
  int warp = threadIdx.x / warpSize;  // expect: PK100
  per_lane[lane] = out[0];  // expect: PK300
  per_warp[warp] = out[1];  // ok: PK300
  out[2] = per_lane[lane] + per_warp[warp];  // ok: PK300
}

__global__ void block_reduce(float* out) {  // expect: PK200
  __shared__ float sums[32];
  int lane = threadIdx.x % warpSize;  // expect: PK100
  int warps = blockDim.x / warpSize;  // expect: PK100
  out[0] = lane < warps ? sums[lane] : 0.0f;  // ok: PK300
}
// A constructor's member initializers under #ifdef (PyTorch's CUB copies): the group is one branch for the parse.
template <int LOGICAL>
struct WarpLane {
  unsigned lane_id, warp;
  __device__ WarpLane(unsigned w)
#ifndef USE_ROCM
      : lane_id(threadIdx.x & 0x1f)  // expect: PK300
#else
      : lane_id(threadIdx.x & 63)
#endif
      , warp(w)
  {}
};
// The warp size and full mask as constexpr functions (XGBoost's WarpThreads()): a call is the constant it returns.
constexpr std::int32_t WarpThreads() { return 32; }  // expect: PK300
__host__ __device__ constexpr uint32_t WarpFullMask(void) { return 0xffffffffu; }
__host__ __device__ constexpr uint64_t WavefrontMask() { return ~0ull; }
__host__ __device__ constexpr uint64_t LowLanes() { return 0xffffull; }
constexpr int Half() { int h = 16; return h; }
int Sixteen() { return 16; }

__device__ float function_constants(float v) {  // expect: PK202
  for (int o = WarpThreads() / 2; o > 0; o /= 2) v += __shfl_xor_sync(WarpFullMask(), v, o);  // expect: PK300 PK301 PK104
  v += __shfl_xor_sync(WavefrontMask(), v, 1);  // expect: PK104  // ok: PK301
  v += __shfl_xor_sync(LowLanes(), v, 1);  // expect: PK104  // ok: PK301
  for (int o = Half(); o > 0; o /= 2) v += __shfl_down(v, o);  // expect: PK100  // ok: PK300
  for (int o = Sixteen(); o > 0; o /= 2) v += __shfl_down(v, o);  // expect: PK100  // ok: PK300
  return v;
}

__global__ void lane_loops(const float* in, float* out, int n) {  // expect: PK200
  int lane = threadIdx.x % warpSize;  // expect: PK100
  for (int i = lane; i < n; i += 32) out[i] = in[i];  // expect: PK300
  for (int i = lane; i < n; i += warpSize) out[i] = in[i];  // expect: PK100  // ok: PK300
  for (int i = threadIdx.x; i < n; i += 32) out[i] = in[i];  // ok: PK300
  int total = 0;
  total += 32;  // ok: PK300
  out[0] = total;
}
