// Runtime API names in calls, types, enums and macro bodies; never in comments
// or strings. Each annotated line lists every finding code expected on it.
#include <cuda_runtime.h>  // expect: PK100
#include "project_header.h"  // ok: PK105

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) return e_; } while (0)  // expect: PK100 PK100

// cudaMalloc in a comment is not a use.  ok: PK100
/* cudaFree(p) neither. */  // ok: PK100

static cudaError_t cudaHelper(float** p) {  // expect: PK100
  return cudaMalloc(p, 16);  // expect: PK100
}

const char* message = "cudaMemcpy is in a string";  // ok: PK100

template <typename T>
cudaError_t typed_alloc(T** p, size_t n) {  // expect: PK100
  return cudaMalloc(reinterpret_cast<void**>(p), n * sizeof(T));  // expect: PK100
}

cudaError_t host(float* d, cudaStream_t stream) {  // expect: PK100 PK100
  CHECK(cudaHelper(&d));  // ok: PK105
  auto zero = [&](size_t n) { return cudaMemsetAsync(d, 0, n, stream); };  // expect: PK100
  cudaMemcpyKind kind = cudaMemcpyHostToDevice;  // expect: PK100 PK100
  (void)kind;
  cudaFooBar(d);  // expect: PK105
  return zero(4);
}
