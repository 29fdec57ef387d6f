// Parts of the CUDA runtime included one by one, as older code and PRK-style helpers do:
// each is covered by hip_runtime.h, none exists under that name in HIP.
#include <cuda_runtime.h>
#include <cuda_device_runtime_api.h>
#include <builtin_types.h>
#include <host_defines.h>
#include <crt/host_defines.h>
#include <device_atomic_functions.h>
#include <sm_60_atomic_functions.h>
#include <sm_32_intrinsics.h>
#include <vector_functions.h>
#include <cuda_texture_types.h>

__global__ void accumulate(const float* in, float4* out, double* total, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = __ldg(in + i);
        out[i] = make_float4(v, v, v, 1.0f);
        atomicAdd(total, static_cast<double>(v));
    }
}
