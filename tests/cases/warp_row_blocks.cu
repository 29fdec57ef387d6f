// Blocks of one warp per row (tiny-cuda-nn's fully_fused_mlp.cu): x is the warp size and y counts warps. A 64-lane
// wavefront holds two rows, so a kernel whose rows shuffle or vote as warps (itself, or through a device function of
// the file) mixes them. Tiles of kernels that do no warp work: warp_row_tiles.cu.
#include <cuda_runtime.h>

__device__ float row_sum(float v) {
  for (int off = warpSize / 2; off > 0; off /= 2) v += __shfl_down(v, off);
  return v;
}

__global__ void per_row(const float *x, float *out) {
  float v = row_sum(x[threadIdx.y * blockDim.x + threadIdx.x]);
  if (threadIdx.x == 0) out[threadIdx.y] = v;
}

__global__ void per_row_vote(const float *x, unsigned long long *out) {
  unsigned long long votes = __ballot(x[threadIdx.x] > 0);
  if (threadIdx.x == 0) out[threadIdx.y] = votes;
}

void launch(const float *x, float *out, unsigned long long *votes, int rows) {
  const dim3 threads = { 32u, 8u, 1 };  // expect: PK300
  per_row<<<rows / 8, threads>>>(x, out);
  dim3 warps(32, rows);  // expect: PK300
  per_row_vote<<<1, warps>>>(x, votes);
  per_row_vote<<<1, dim3(32, 4)>>>(x, votes);  // expect: PK300 PK201
  dim3 one_row(32, 1);  // ok: PK300
  per_row<<<rows, one_row>>>(x, out);
  dim3 two_warps(64, 4);  // ok: PK300
  per_row<<<rows, two_warps>>>(x, out);
  // x-y tiles of one warp each, stacked in z (llm.c's `dim3 block = {4, 8, 1024 / WARP_SIZE}`): two to a wavefront
  dim3 tiles = {4, 8, rows};  // expect: PK300
  per_row<<<1, tiles>>>(x, out);
  dim3 stacked(8, 4, 1024 / 32);  // expect: PK300
  per_row_vote<<<1, stacked>>>(x, votes);
  dim3 one_tile(4, 8, 1);  // ok: PK300
  per_row<<<rows, one_tile>>>(x, out);
  dim3 flat_tile(4, 8);  // ok: PK300
  per_row<<<rows, flat_tile>>>(x, out);
  dim3 half_tiles(4, 4, 8);  // ok: PK300
  per_row<<<rows, half_tiles>>>(x, out);
}
