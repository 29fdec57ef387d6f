// Built-in coordinates whose type the code leaves to the compiler: an `auto` variable, a printf argument.
#include <cstdio>

__global__ void strided_fill(float *x, int n)
{
    auto i = blockIdx.x * blockDim.x + threadIdx.x;  // arithmetic: unsigned int either way
    auto lane = threadIdx.x, block = blockIdx.x;
    for (; i < n; i += gridDim.x * blockDim.x) {
        x[i] = 1.0f;
    }
    lane += block;
    if (lane == 0) {
        printf("block %u filled from thread %u\n", blockIdx.x, threadIdx.x);
    }
}
