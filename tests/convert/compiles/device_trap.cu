// A kernel that stops the launch on a broken invariant.
#include <cuda_runtime.h>

__global__ void checked_scale(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (n <= 0) {
        __trap();
    }
    if (i < n) {
        x[i] *= 2.0f;
    }
}
