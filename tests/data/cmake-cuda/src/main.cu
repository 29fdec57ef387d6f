#include <gpu/alloc.h>

int main() {
  float* d = nullptr;
  GPU_ALLOC(&d, 16);
  cudaFree(d);
  return 0;
}
