// Warp-size hazards spelled around the detectors' literals (pytorch_scatter's segment_coo_cuda.cu): the lane mask as
// `(32 - 1)`, the last lane as `32 - 1`, and a shuffle called through an object-like macro that names it, so that
// the shuffle's 32-bit mask and its 32-lane loop are the intrinsic's. Each flagged line has a quiet twin.
#define FULL_MASK 0xffffffff
#define SHFL_UP_SYNC __shfl_up_sync
#define SHFL_UP_WIDE __shfl_up_sync  // a comment after the name it stands for
#define ALL_LANES 0xffffffffffffffffull

__global__ void scan(float *x, int n) {
  int lane = threadIdx.x & (32 - 1);  // expect: PK300
  int slot = n & (32 - 1);  // ok: PK300
  int tail = (n + 32 - 1) / 32;  // ok: PK300
  float v = x[threadIdx.x];
  for (int i = 1; i < 32; i *= 2) {  // expect: PK300
    float t = SHFL_UP_SYNC(FULL_MASK, v, i);  // expect: PK301
    if (lane >= i) v += t;
  }
  for (int j = 1; j < 32; j *= 2) {  // ok: PK300
    v += x[j];
  }
  for (int i = 1; i < warpSize; i *= 2) {  // expect: PK100
    v += SHFL_UP_WIDE(ALL_LANES, v, i);  // ok: PK301
  }
  if (lane == 32 - 1) x[threadIdx.x] = v;  // expect: PK300
  if (lane == 31) x[threadIdx.x] += v;  // expect: PK300
  if (lane == warpSize - 1) x[threadIdx.x] -= v;  // expect: PK100  // ok: PK300
  if (n == 32 - 1 || slot == 31) x[tail] = v;  // ok: PK300
}
