// Blocks of 32 x N threads for kernels that do no warp work (CUDA Samples' HSOpticalFlow, convolutionFFT2D): a tile
// of the image, not one warp per row, which a 64-lane wavefront runs the same. Another kernel's shuffles do not make
// a tile a row of warps; a device function's do (warp_row_blocks.cu): a kernel may call it.
#include <cuda_runtime.h>

__global__ void tile_copy(const float *x, float *out, int width) {
  out[(blockIdx.y * 8 + threadIdx.y) * width + blockIdx.x * 32 + threadIdx.x] = x[threadIdx.x * width + threadIdx.y];
}

__global__ void row_max(float *x) {
  float v = x[threadIdx.y * blockDim.x + threadIdx.x];
  for (int off = 1; off < warpSize; off *= 2) v = fmaxf(v, __shfl_xor(v, off));
  x[threadIdx.y * blockDim.x + threadIdx.x] = v;
}

void launch(const float *x, float *out, int width, int height) {
  dim3 tile(32, 8);  // ok: PK300
  tile_copy<<<dim3(width / 32, height / 8), tile>>>(x, out, width);
  const dim3 rows = { 32u, 8u, 1 };  // expect: PK300
  row_max<<<height / 8, rows>>>(out);
  dim3 image(32, 32);  // ok: PK300
  tile_copy<<<dim3(width / 32, height / 32), image>>>(x, out, width);
  dim3 cube = {4, 8, 8};  // ok: PK300
  tile_copy<<<dim3(width / 4, height / 8), cube>>>(x, out, width);
}
