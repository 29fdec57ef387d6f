// A chain with a HIP branch of its own keeps its CUDA test (own_hip_branches.py): hipcc never compiles the CUDA branch
// for AMD, nvcc builds it as it was. Its names stay as written, and what convert would repair (`register`, a min of
// blockDim) too: it is the NVIDIA side now.
#include <cuda_runtime.h>

#if defined(__CUDACC__) && !defined(__HIP__)
#include <cuda_fp16.h>
static __device__ float next_lane(float x) { return __shfl_down_sync(0xffffffff, x, 1); }
static __device__ int lanes(int n) { register int r = min(n, blockDim.x); return r; }
typedef cudaStream_t stream_type;
#elif defined(__HIP__)
static __device__ float next_lane(float x) { return x; }
typedef int stream_type;
#endif

__global__ void shift(float *f) { f[threadIdx.x] = next_lane(f[threadIdx.x]); }

void run(float *f, stream_type) {
  void *d = nullptr;
  cudaMalloc(&d, 64 * sizeof(float));
  shift<<<1, 64>>>(static_cast<float *>(d));
}
