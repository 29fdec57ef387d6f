// A make_uint3(...) that becomes a dim3 (PK207): HIP's dim3 has no constructor from uint3.
#include <cuda_runtime.h>  // expect: PK100
__global__ void k(int *out) { out[threadIdx.x] = 1; }  // expect: PK200
void launch(int *out, int n) {
  dim3 grid, threads;
  grid = make_uint3(n, 1, 1);  // expect: PK207
  threads = make_uint3(32, 1, 1);  // expect: PK207
  dim3 again = make_uint3(n, 2, 1);  // expect: PK207
  k<<<make_uint3(n, 1, 1), threads>>>(out);  // expect: PK201 PK207
  uint3 index = make_uint3(1, 2, 3);  // ok: PK207
  grid.x += index.x;  // ok: PK207
  k<<<grid, again>>>(out);  // expect: PK201
}
void constant(int n) {
  const dim3 fixed = make_uint3(n, 1, 1);  // expect: PK207
}
