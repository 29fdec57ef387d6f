// Built-in coordinates passed to min and max where the project defines its own templates in
// another file: nvcc picks CUDA's unsigned overload; HIP's coordinates are proxy objects.
#include "coordinate_helpers.cuh"

__global__ void clamp_rows(unsigned *rows, unsigned remaining) {
  for (unsigned k = 0; k < min(remaining, blockDim.x); ++k) {
    rows[k] = max(threadIdx.x, remaining) + min(blockIdx.y, gridDim.y);
  }
}

float host_side(float a, float b) { return min(a, b); }
