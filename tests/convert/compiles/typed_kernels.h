// Kernels typed by whatever T the including unit defines; the header includes nothing and
// relies on nvcc's own runtime include, which came before the unit's first line.
#pragma once

__global__ void fill_kernel(T* data, T value, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] = value;
}

inline void fill(T* data, T value, int n) { fill_kernel<<<(n + 255) / 256, 256>>>(data, value, n); }
