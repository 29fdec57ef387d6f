// Helpers copied from NVIDIA's samples test CUDA headers' include guards.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#ifdef __DRIVER_TYPES_H__
static const char *error_name(cudaError_t e) { return cudaGetErrorName(e); }
#endif

#if defined(__CUDA_RUNTIME_H__)
#define checkErrors(val) check((val), #val, __FILE__, __LINE__)
template <typename T> void check(T result, const char *func, const char *file, int line) {
  if (result) { fprintf(stderr, "%s:%d %s: %s\n", file, line, func, error_name(result)); exit(EXIT_FAILURE); }
}
#endif

int main() {
  int *d;
  checkErrors(cudaMalloc(&d, 4));
  checkErrors(cudaFree(d));
  return 0;
}
