// Old warp-shuffle names mapped to their _sync forms by the project (HIP has the old names itself).
#define __shfl_down(v, d) __shfl_down_sync(0xffffffff, v, d)
#define __shfl_xor(v, m) __shfl_xor_sync(0xffffffff, v, m)

__global__ void reduce(float *x) {
  float v = x[threadIdx.x];
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down(v, offset);
  v += __shfl_xor(v, 1);
  if (threadIdx.x == 0) x[0] = v;
}
