// Uses the CUDA runtime without including it: nvcc includes cuda_runtime.h first in every unit.
#ifndef C_API_STATUS_H
#define C_API_STATUS_H
#ifdef __CUDACC__
static inline int c_api_ok(cudaError_t status) { return status == cudaSuccess; }
#endif
#endif
