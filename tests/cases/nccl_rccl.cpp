#include <nccl.h>  // expect: PK100

ncclResult_t reduce_all(float* buf, size_t n, ncclComm_t comm, cudaStream_t s) {  // expect: PK100 PK100 PK100
  ncclGroupStart();  // expect: PK100
  ncclResult_t r = ncclAllReduce(buf, buf, n, ncclFloat32, ncclSum, comm, s);  // expect: PK100 PK100 PK100 PK100
  ncclGroupEnd();  // expect: PK100
  return r;
}

void shrink(ncclComm_t comm, int* excluded, ncclComm_t* out) {  // expect: PK100 PK100
  ncclCommShrink(comm, excluded, 1, out, nullptr, NCCL_SHRINK_DEFAULT);  // expect: PK102 PK102
  ncclCommInitRankScalable(out, 2, 0, 1, nullptr, nullptr);  // expect: PK101
  ncclAlltoAll(nullptr, nullptr, 1, ncclInt8, comm, nullptr);  // expect: PK100 PK100
}
