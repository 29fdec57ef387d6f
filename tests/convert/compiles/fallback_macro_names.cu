// A project's own value of a CUDA constant for AMD, whose HIP spelling is an expression: the #define keeps its name,
// and the uses are left to it (the project's HIP layer: a definition that is more than a rename).
#include <cuda_runtime.h>
#ifdef __HIP_PLATFORM_AMD__
#define CUDART_NAN_F __int_as_float(0x7fffffff)
#else
#include <math_constants.h>
#endif

__global__ void fill_nan(float *x) { x[threadIdx.x] = CUDART_NAN_F; }
