// A CUDA name the project's layer defines behind a macro HIP's platform decides (include/platform_macro_layer.h:
// `#if PROJECT_ON_HIP`): hipcc for AMD compiles that definition, so the uses are the layer's, settled and left to it.
// It was read as a definition under a test of the project's own, which stands in for CUDA's: the use was billed.
#include <cuda_runtime.h>  // expect: PK100
#include "include/platform_macro_layer.h"
__global__ void settle(float* x) { x[threadIdx.x] += 1.0f; __syncwarp(); }  // expect: PK200 PK104 settled: PK104
