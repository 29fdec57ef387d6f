// Tests of the CUDA runtime's version: HIP_VERSION counts in other units, so a test of a CUDA version stays CUDA's.
#include <cuda_runtime.h>
#if CUDART_VERSION >= 12000
#include <mma.h>  // tensor-core code: rocWMMA on AMD, which HIP 5.2 does not ship
#endif
#if defined(CUDART_VERSION) && CUDART_VERSION >= 11000  // `defined` stays too: renamed alone, AMD would take it
#define HAVE_CUDA_11 1
#endif
#define CUDART_TENSOR_CORES 11000  // a version the project names
#if CUDART_VERSION >= CUDART_TENSOR_CORES
#include <mma.h>
#endif

__global__ void record_version(int *out)
{
#if CUDART_VERSION < 11000
    out[threadIdx.x] = 10;
#else
    out[threadIdx.x] = 11;
#endif
}

int runtime_version() { return CUDART_VERSION; }
