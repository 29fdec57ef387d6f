// The project's own HIP switch tested negated (parse/hip_switches.py): causal-conv1d's `#ifndef USE_ROCM` holds its CUDA
// code and the #else its HIP code, the switch with its sides swapped. The CUDA branch is billed nowhere, as beside
// `#ifdef USE_ROCM` (tests/test_summary.py); convert still converts and marks it, for a build without the switch.
#include <cuda_runtime.h>  // expect: PK100
#ifndef USE_ROCM
#include <cuda_bf16.h>  // expect: PK104
__device__ inline float shuffle_xor(float v, int offset) { return __shfl_xor_sync(0xffffffffu, v, offset); }  // expect: PK202 PK104 PK301
#else
#include <hip/hip_bf16.h>
__device__ inline float shuffle_xor(float v, int offset) { return __shfl_xor(v, offset); }  // expect: PK202 PK100
#endif
#if !defined(USE_ROCM)
__device__ inline unsigned vote(bool p) { return __ballot_sync(0xffffffffu, p); }  // expect: PK202 PK104 PK301 PK302
#else
__device__ inline unsigned long long vote(bool p) { return __ballot(p); }  // expect: PK202 PK100
#endif
void sync_all() { cudaDeviceSynchronize(); }  // expect: PK100
