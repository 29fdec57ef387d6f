// A statement macro used after another statement on its line, without its ';'
// (`cudaMalloc(&p, n); CUERR`): tree-sitter reads the next line's call as a declaration of it.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#ifdef __CUDACC__
#define CUERR {                                                      \
    cudaError_t status = cudaGetLastError();                         \
    if (status != cudaSuccess) {                                     \
      std::printf("CUDA error: %s\n", cudaGetErrorString(status));   \
      std::exit(1);                                                  \
    }                                                                \
  }
#endif

struct Buffers {
  float *values;
  float *staging;
};

class Pool {
 public:
  bool allocate(size_t bytes) {
    for (auto &buffers : pool_) {
      cudaMalloc(&buffers.values, bytes); CUERR
      cudaMallocHost(&buffers.staging, bytes); CUERR
    }
    cudaDeviceSynchronize(); CUERR
    return true;
  }

 private:
  std::vector<Buffers> pool_;
};

int main() {
  Pool pool;
  return pool.allocate(1024) ? 0 : 1;
}
