// A unit that defines a one-letter macro before it includes the CUDA runtime itself: nvcc's
// implicit include came first, so the macro never reached the runtime's templates.
#define T float
#include <cuda_runtime.h>

__global__ void scale(T* data, T factor) { data[threadIdx.x] *= factor; }

void scale_on_device(T* data, T factor, cudaStream_t stream) { scale<<<1, 32, 0, stream>>>(data, factor); }
