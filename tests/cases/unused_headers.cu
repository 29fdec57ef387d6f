// An include of a CUDA header HIP 5.2 lacks, none of whose names the file uses: no API site, no work.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>  // expect: PK212
#include <cooperative_groups/memcpy_async.h>  // expect: PK102
namespace cg = cooperative_groups;
__global__ void copy(float* out, const float* in) {
  auto block = cg::this_thread_block();
  extern __shared__ float staged[];
  cg::memcpy_async(block, staged, in, sizeof(float) * block.size());  // expect: PK102
  cg::wait(block);  // expect: PK102
  out[block.thread_rank()] = staged[block.thread_rank()];
}
