// Cooperative groups through a using-directive: the names stay unqualified, and HIP's header
// (with the runtime header it needs first) comes in for CUDA's.
#include <cooperative_groups.h>
using namespace cooperative_groups;

__global__ void tile_sums(const int *in, int *out) {
  thread_block block = this_thread_block();
  thread_block_tile<32> tile = tiled_partition<32>(block);
  int value = in[block.thread_rank()];
  for (int offset = tile.size() / 2; offset > 0; offset /= 2) value += tile.shfl_down(value, offset);
  if (tile.thread_rank() == 0) out[block.thread_rank() / 32] = value;
}
