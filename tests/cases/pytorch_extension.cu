// A PyTorch CUDA extension (torch.utils.cpp_extension): ATen's and c10's CUDA API are partial, named as
// PyTorch's ROCm build names them; the build hipifies the extension itself.
#include <ATen/cuda/CUDAContext.h>  // expect: PK204 PK101
#include <ATen/cuda/detail/TensorInfo.cuh>  // expect: PK101
#include <c10/cuda/CUDAGuard.h>  // expect: PK101
#include <c10/cuda/CUDAException.h>  // expect: PK101

__global__ void fill(float* x, at::cuda::detail::TensorInfo<float, int> info) { x[threadIdx.x] = 0; }  // expect: PK200 PK101

void run(float* x, int dev) {
  c10::cuda::CUDAGuard guard(dev);  // expect: PK101
  at::cuda::OptionalCUDAGuard maybe(dev);  // expect: PK101
  cudaStream_t s = at::cuda::getCurrentCUDAStream();  // expect: PK100 PK101
  fill<<<1, 32, 0, s>>>(x, {});  // expect: PK201
  C10_CUDA_KERNEL_LAUNCH_CHECK();  // expect: PK101
  C10_CUDA_CHECK(cudaGetLastError());  // expect: PK101 PK100
  AT_CUDA_CHECK(cudaDeviceSynchronize());  // expect: PK101 PK100
  int warps = at::cuda::getCurrentDeviceProperties()->multiProcessorCount;  // expect: PK101
  auto handle = at::cuda::getCurrentCUDABlasHandle();  // expect: PK101
  c10::cuda::MaybeSetDevice(dev);  // expect: PK101
  c10::cuda::CUDAStreamGuard stream_guard(c10::cuda::getStreamFromPool());  // expect: PK101 PK101
}
