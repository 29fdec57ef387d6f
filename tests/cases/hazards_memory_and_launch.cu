// Shared memory, launches, textures, cooperative groups, graphs, Hopper features.
#include <cuda_runtime.h>  // expect: PK100

__global__ void big_tiles(float* out) {  // expect: PK200
  __shared__ float a[128][128];  // expect: PK310
  __shared__ float b[16][16];
  out[0] = a[0][0] + b[0][0];
}

__global__ void small_tiles(float* out) {  // expect: PK200
  __shared__ double c[64][64];  // ok: PK310
  extern __shared__ float dynamic_part[];  // ok: PK310
  out[0] = c[0][0] + dynamic_part[0];
}

#define TILE 96
#define HALO (TILE + 2)
constexpr int kRows = 2 * TILE;
constexpr int kSmall = 16;

__global__ void macro_tiles(double* out) {  // expect: PK200
  __shared__ double t[TILE][TILE];  // expect: PK310
  out[0] = t[0][0];
}

__global__ void constexpr_tiles(float* out) {  // expect: PK200
  __shared__ float r[kRows][HALO];  // expect: PK310
  __shared__ float s[kSmall][kSmall + 1];  // ok: PK310
  out[0] = r[0][0] + s[0][0];
}

__global__ void unknown_size(float* out, int n) {  // expect: PK200
  __shared__ float u[UNDEFINED_SIZE];  // ok: PK310
  out[0] = u[n];
}

__global__ void child(float* out) { out[0] = 1.0f; }  // expect: PK200

__global__ void parent(float* out) {  // expect: PK200
  child<<<1, 1>>>(out);  // expect: PK201 PK330
}

void parent(float* out, int n) {  // a host overload of the kernel's name is host code
  child<<<n, 1>>>(out);  // expect: PK201  // ok: PK330
}

__global__ void parent_allocates(float** out) {  // expect: PK200
  cudaMalloc((void**)out, 64 * sizeof(float));  // expect: PK330 PK100
  cudaStream_t s;  // expect: PK100
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);  // expect: PK330 PK100 PK100
  child<<<1, 64, 0, s>>>(*out);  // expect: PK201 PK330
  cudaStreamDestroy(s);  // expect: PK330 PK100
}

__device__ void device_frees(float* p) {
  cudaFree(p);  // expect: PK330 PK100
}

__host__ __device__ void either_side(float* p) {  // its host path may be the one that calls the runtime
  cudaFree(p);  // expect: PK100  // ok: PK330
}

__global__ void __launch_bounds__(256, 4) bounded(float* out) { out[0] = 0.0f; }  // expect: PK200 PK336
__global__ void __launch_bounds__(256) bounded_ok(float* out) { out[0] = 0.0f; }  // expect: PK200
__global__ void __launch_bounds__(256, 1) bounded_one(float* out) { out[0] = 0.0f; }  // expect: PK200

texture<float, 1, cudaReadModeElementType> old_texture;  // expect: PK331 PK103 PK100

void host(float* d, cudaStream_t s) {  // expect: PK100
  child<<<1, 1, 0, s>>>(d);  // expect: PK201
  child<<<dim3(1, 1), 256, 70000>>>(d);  // expect: PK201 PK310
  child<<<1, 256, 96 * 1024, s>>>(d);  // expect: PK201 PK310
  child<<<1, 256, sizeof(float) * kRows * TILE>>>(d);  // expect: PK201 PK310
  child<<<1, 256, 48 * 1024>>>(d);  // expect: PK201  // ok: PK310
  cudaFuncSetAttribute(big_tiles, cudaFuncAttributeMaxDynamicSharedMemorySize, 160 * 1024);  // expect: PK310 PK100 PK100
  cudaFuncSetAttribute(small_tiles, cudaFuncAttributeMaxDynamicSharedMemorySize, 48 * 1024);  // expect: PK311 PK100 PK100
  cudaStream_t hi;  // expect: PK100
  cudaStreamCreateWithPriority(&hi, cudaStreamNonBlocking, -1);  // expect: PK334 PK100 PK100
  int least, greatest;
  cudaDeviceGetStreamPriorityRange(&least, &greatest);  // expect: PK100  // ok: PK334
  cudaStreamCreateWithPriority(&hi, cudaStreamNonBlocking, greatest);  // expect: PK100 PK100  // ok: PK334
  cudaGraph_t graph;  // expect: PK100
  cudaGraphCreate(&graph, 0);  // expect: PK333 PK100
  void* args[] = {&d};
  cudaLaunchCooperativeKernel((void*)child, 1, 1, args, 0, s);  // expect: PK332 PK100
  cudaDeviceProp prop;  // expect: PK100
  prop.major = 0;  // ok: PK335
  cudaGetDeviceProperties(&prop, 0);  // expect: PK100
  if (prop.major >= 8) { }  // expect: PK320
  if (prop.major == 7 && prop.minor >= 5) { }  // expect: PK320
  if (prop.major < 1) { }  // ok: PK320
  if (prop.major < 3 || (prop.major == 3 && prop.minor < 5)) { }  // ok: PK320
  if (prop.major > 3 || (prop.major == 3 && prop.minor >= 5)) { }  // expect: PK320
  int lanes = prop.warpSize;  // ok: PK335
  int sm = prop.major * 10 + prop.minor;  // expect: PK335
  printf("compute capability %d.%d\n", prop.major, prop.minor);  // ok: PK335
  (void)lanes; (void)sm;
}

// tree-sitter-cuda does not know __cluster_dims__: it is blanked before parsing, so the kernel is kept.
__global__ void __cluster_dims__(2, 1, 1) clustered(float* out) { out[0] = 0.0f; }  // expect: PK337 PK200

__global__ void grid_barrier(float* out) {  // expect: PK200
  cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  out[grid.thread_rank()] = 0.0f;
  grid.sync();  // expect: PK332
}

__global__ void grid_stride(float* out, int n) {  // expect: PK200
  auto grid = cooperative_groups::this_grid();  // ok: PK332 PK101
  for (int i = grid.thread_rank(); i < n; i += grid.size()) out[i] = 0.0f;  // ok: PK332
}

// The compute capability read through a device attribute: on AMD the gfx generation too (PK335, as prop.major).
int compute_capability(int device) {
  int major = 0, minor = 0;
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);  // expect: PK100 PK100 PK335
  cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);  // expect: PK100 PK100 PK335
  int count = 0;
  cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device);  // expect: PK100 PK100  // ok: PK335
  return major * 10 + minor + count;
}
int driver_capability(CUdevice device) {  // expect: PK100
  int major = 0, minor = 0;
  cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device);  // expect: PK100 PK100 PK335
  return major * 10 + minor;
}
