// Members of cooperative groups' classes that HIP added after 5.2 (PK104 on the pinned 5.2 target).
// `auto` never spells the tile's type: a file that names the namespace (here through an alias) decides.
// Convert puts hip_runtime.h once, before hip_cooperative_groups.h (which HIP 5.x needs after it).
#include <cooperative_groups.h>  // expect: PK101 PK204
namespace cg = cooperative_groups;
__global__ void sum(const float *in, float *out) {  // expect: PK200
  cg::thread_block block = cg::this_thread_block();  // expect: PK100 PK100
  auto tile = cg::tiled_partition<32>(block);  // expect: PK101
  float v = in[block.thread_rank()];
  if (tile.meta_group_rank() < tile.meta_group_size()) v += 1.0f;  // expect: PK104 PK104
  dim3 shape = block.group_dim();  // expect: PK104
  out[tile.thread_rank()] = v * shape.x;
}
using cg::grid_group;  // expect: PK100
__global__ void whole(int *out) {  // expect: PK200
  grid_group grid = cg::this_grid();  // expect: PK100 PK100
  out[grid.thread_rank()] = 0;
}
