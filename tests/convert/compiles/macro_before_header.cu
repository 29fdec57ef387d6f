// A unit that defines a one-letter macro, then includes a header that uses CUDA. The unit
// itself names nothing of CUDA's; under nvcc the runtime came before the macro.
#define T float
#include "typed_kernels.h"

void fill_ones(float* data, int n) { fill(data, 1.0f, n); }
