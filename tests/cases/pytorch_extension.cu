// A PyTorch CUDA extension (torch.utils.cpp_extension): ATen's and c10's CUDA API are supported, named as
// PyTorch's ROCm build names them (its build hipifies an extension the same way).
#include <ATen/cuda/CUDAContext.h>  // expect: PK204 PK100
#include <ATen/cuda/detail/TensorInfo.cuh>  // expect: PK100
#include <c10/cuda/CUDAGuard.h>  // expect: PK100
#include <c10/cuda/CUDAException.h>  // expect: PK100

__global__ void fill(float* x, at::cuda::detail::TensorInfo<float, int> info) { x[threadIdx.x] = 0; }  // expect: PK200 PK100

void run(float* x, int dev) {
  c10::cuda::CUDAGuard guard(dev);  // expect: PK100
  at::cuda::OptionalCUDAGuard maybe(dev);  // expect: PK100
  cudaStream_t s = at::cuda::getCurrentCUDAStream();  // expect: PK100 PK100
  fill<<<1, 32, 0, s>>>(x, {});  // expect: PK201
  C10_CUDA_KERNEL_LAUNCH_CHECK();  // expect: PK100
  C10_CUDA_CHECK(cudaGetLastError());  // expect: PK100 PK100
  AT_CUDA_CHECK(cudaDeviceSynchronize());  // expect: PK100 PK100
  int warps = at::cuda::getCurrentDeviceProperties()->multiProcessorCount;  // expect: PK100
  auto handle = at::cuda::getCurrentCUDABlasHandle();  // expect: PK100
  c10::cuda::MaybeSetDevice(dev);  // expect: PK100
  c10::cuda::CUDAStreamGuard stream_guard(c10::cuda::getStreamFromPool());  // expect: PK100 PK100
}
