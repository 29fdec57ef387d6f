// Lanes that hold the same key, to aggregate their atomics (HIP added the match intrinsics in 6.2).
__global__ void count_keys(const int *keys, unsigned *counts, float *firsts) {
  int key = keys[blockIdx.x * blockDim.x + threadIdx.x];
  unsigned same = __match_any_sync(0xffffffff, key);
  int leader = __ffs(same) - 1;
  if ((threadIdx.x & 31) == leader) atomicAdd(&counts[key], __popc(same));
  int uniform = 0;
  __match_all_sync(__activemask(), firsts[0], &uniform);
  if (uniform) firsts[1] = 1.0f;
}
