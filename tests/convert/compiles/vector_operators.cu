// Vector-type operators a project defines for itself, as CUDA Samples' helper_math.h does.
// HIP's vector types already have the compound assignments with their own type as members,
// so hipcc finds `a += b` ambiguous unless the project's copy stays out of the HIP build;
// the ones taking a scalar and the binary operators are templates in HIP and stay.
#include <cuda_runtime.h>

inline __host__ __device__ void operator+=(float4 &a, float4 b) {
    a.x += b.x; a.y += b.y; a.z += b.z; a.w += b.w;
}
inline __host__ __device__ void operator*=(int2 &a, int2 b) { a.x *= b.x; a.y *= b.y; }
// Returning a reference, with a const reference operand (PENNANT's Vec2.hh).
__host__ __device__ inline float2 &operator-=(float2 &a, const float2 &b) { a.x -= b.x; a.y -= b.y; return a; }
inline __host__ __device__ void operator+=(float4 &a, float b) { a.x += b; a.y += b; a.z += b; a.w += b; }
inline __host__ __device__ float4 operator*(float4 a, float b) { return make_float4(a.x * b, a.y * b, a.z * b, a.w * b); }

__global__ void accumulate(float4 *sums, const float4 *values, int2 *scales, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 total = sums[i];
    total += values[i];
    total += 0.5f;
    sums[i] = total * 2.0f;
    int2 scale = scales[i];
    scale *= make_int2(2, 3);
    scales[i] = scale;
    float2 half = make_float2(sums[i].x, sums[i].y);
    half -= make_float2(1.0f, 1.0f);
    sums[i].x = half.x;
}
