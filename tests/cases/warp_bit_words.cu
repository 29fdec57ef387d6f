// `/ 32` and `% 32` of a thread's offset scaled by a run-time size (darknet's im2col_kernels.cu): bits or items turned
// into 32-bit words, not lanes. A thread's index offset by others, or scaled by a constant, stays lane arithmetic.
#include <cstdint>
#define ITEMS 4

__global__ void transpose_words(const uint32_t *src, uint32_t *dst, int src_h, int src_align, int dst_align) {
  int index = blockIdx.x * blockDim.x + threadIdx.x;
  int i = index % src_h;
  int j = index / src_h;
  dst[j*dst_align / 32 + i] = src[i*src_align + j];  // ok: PK300
  dst[(j * dst_align) % 32] = 0;  // ok: PK300
  int row = j / 32;  // expect: PK300
  int word = (i + j * dst_align) / 32;  // expect: PK300
  int group = j * ITEMS / 32;  // expect: PK300
  dst[row + word + group] = 1;
}

__global__ void repack(const float *input, uint32_t *packed, int items_per_channel) {
  const int index = blockIdx.x * blockDim.x + threadIdx.x;
  const int chan = 32 * (index / items_per_channel);
  const int lane_id = threadIdx.x % warpSize;  // expect: PK100
  packed[chan*items_per_channel / 32 + lane_id] = input[index] > 0;  // ok: PK300
}
