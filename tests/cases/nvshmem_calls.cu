// NVSHMEM has no HIP counterpart: its headers and the calls the rules list are PK102, any other
// nvshmem_*/nvshmemx_* name is CUDA-looking (PK105); the CUDA around them converts as usual.
#include <cuda_runtime.h>  // expect: PK100
#include <nvshmem.h>  // expect: PK102
#include <nvshmemx.h>  // expect: PK102
#include "nvshmem_extra_host.h"  // expect: PK105

__global__ void shift(double *dest, const double *src, size_t count, int peer) {
  nvshmem_double_put_nbi(dest, src, count, peer);  // expect: PK105
}

int exchange(size_t count) {
  nvshmem_init();  // expect: PK102
  int me = nvshmem_my_pe(), peers = nvshmem_n_pes();  // expect: PK102 PK102
  double *buffer = (double *)nvshmem_malloc(count * sizeof(double));  // expect: PK102
  cudaStream_t stream;  // expect: PK100
  cudaStreamCreate(&stream);  // expect: PK100
  nvshmemx_barrier_all_on_stream(stream);  // expect: PK102
  nvshmem_team_t team = NVSHMEM_TEAM_WORLD;  // expect: PK102 PK102
  nvshmem_free(buffer);  // expect: PK102
  nvshmem_finalize();  // expect: PK102
  return me + peers + nvshmem_team_my_pe(team);  // expect: PK102
}
