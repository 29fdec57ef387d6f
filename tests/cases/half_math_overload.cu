// A project's overload of a two- or three-argument <cmath> function for __half (tiny-cuda-nn's tcnn::fma):
// an unqualified call also finds clang's HIP <cmath> template, where hipcc stops.
#include <cuda_fp16.h>  // expect: PK100 PK204
namespace mine {
__device__ inline __half fma(__half a, __half b, __half c) { return a; }  // expect: PK100 PK100 PK100 PK100 PK202 PK346
__device__ inline __half pow(const __half& a, const __half& b) { return a; }  // expect: PK100 PK100 PK100 PK202 PK346
__device__ inline __half sqrt(__half a) { return a; }  // expect: PK100 PK100 PK202
__device__ inline float fmin(float a, float b) { return a; }  // expect: PK202
__device__ inline __half fmax(__half a) { return a; }  // expect: PK100 PK100 PK202
__device__ __half axpy(__half a, __half x, __half y) { return fma(a, x, sqrt(y)); }  // expect: PK100 PK100 PK100 PK100 PK202 PK346
__device__ __half qualified(__half a, __half x, __half y) { return mine::fma(a, x, y); }  // expect: PK100 PK100 PK100 PK100 PK202
}
#if !defined(__HIP_PLATFORM_AMD__)
__device__ inline __half fmod(__half a, __half b) { return a; }  // ok: PK346
#endif
