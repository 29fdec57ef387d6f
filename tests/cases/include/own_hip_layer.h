// The project's own HIP layer, kaldi's hip/hipify.h in small: CUDA's names defined as HIP's, read only by a build
// with the project's switch (own_hip_layer.cu includes it under `#ifdef PROJECT_HIP`).
#pragma once
#define cudaStream_t hipStream_t
#define cudaMemcpyAsync hipMemcpyAsync
#define cudaMemcpyHostToDevice hipMemcpyHostToDevice
#define cudaStreamSynchronize hipStreamSynchronize
#define cudaSuccess hipSuccess
#define cudaError_t hipError_t
