// C's classification functions called from host code: CUDA's runtime header brought <math.h>
// for them, HIP's declares only the device versions.
#include <cuda_runtime.h>

template <class T> int count_finite(const T *values, int n) {
  int count = 0;
  for (int i = 0; i < n; i++) count += isfinite(values[i]) && !isnan(values[i]) ? 1 : 0;
  return count;
}

__global__ void clear_nans(float *x) { if (isnan(x[threadIdx.x])) x[threadIdx.x] = 0.0f; }

int finite_floats(const float *values, int n) { return count_finite(values, n); }
