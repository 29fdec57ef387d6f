// Handles that are integers in CUDA and pointers in HIP: arithmetic on them is PK341.
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdint.h>

CUdeviceptr stripe(CUdeviceptr base, size_t size, int index) {
  CUdeviceptr next = base + size * index;  // expect: PK100 PK341
  next += size;  // expect: PK341
  return next;
}

__host__ __device__ uint2 split(cudaTextureObject_t texture) {
  return make_uint2((unsigned)(texture & 0xFFFFFFFF), (unsigned)(texture >> 32));  // expect: PK341 PK341
}

size_t offsets(size_t base, CUdeviceptr *all, int n) {
  size_t sum = base + n;  // ok: PK341 (another function's base, a size_t)
  for (int i = 0; i < n; ++i) sum += all[i] == 0 ? 1 : 0;  // ok: PK341
  return sum;
}

void place(CUdeviceptr *pointers, CUdeviceptr slots[4], size_t size) {
  pointers[1] = *pointers + size;  // expect: PK341
  slots[2] = slots[1] - size;  // expect: PK341
  pointers[0] = slots[0];  // ok: PK341
}

bool same(cudaTextureObject_t a, cudaTextureObject_t b) {
  return a == b && a != 0;  // ok: PK341 (comparisons compile: pointers compare)
}

struct Buffers {
  CUdeviceptr base;
  size_t bytes;
  CUdeviceptr end() const { return base + bytes; }  // expect: PK100 PK341
};

CUdeviceptr middle(const Buffers &b, Buffers *p) {
  size_t base = b.bytes / 2;  // ok: PK341 (a local of that name)
  return p->base - b.bytes + base;  // expect: PK341 (p->base; not the local base)
}
