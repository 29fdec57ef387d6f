// Device code calling CUDA's umin, while another file of the project defines its own
// `static` umin for the host: that one is visible in its own file only, so this call is
// CUDA's and must become HIP's min.
#include <cuda_runtime.h>

__global__ void clamp_positions(unsigned *positions, unsigned limit, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) positions[i] = umin(positions[i] + 1u, limit);
}

int launch_clamp(unsigned *positions, unsigned limit, int n) {
    clamp_positions<<<(n + 127) / 128, 128>>>(positions, limit, n);
    return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
