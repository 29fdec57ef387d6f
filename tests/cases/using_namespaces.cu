// Names a using-directive or a using-declaration makes visible unqualified are the library's
// (the directive itself carries the namespace: cub's becomes hipcub's, so the names stay).
#include <cooperative_groups.h>  // expect: PK101 PK204
#include <cub/cub.cuh>  // expect: PK100
using namespace cooperative_groups;
using namespace cub;  // expect: PK100
__global__ void sum(const int *in, int *out) {  // expect: PK200
  thread_block block = this_thread_block();  // expect: PK100 PK100
  thread_block_tile<32> tile = tiled_partition<32>(block);  // expect: PK101 PK101
  typedef BlockReduce<int, 128> Reduce;  // expect: PK100
  __shared__ typename Reduce::TempStorage storage;
  int total = Reduce(storage).Sum(in[threadIdx.x]);
  if (tile.meta_group_rank() == 0) out[blockIdx.x] = total;  // expect: PK104
}
