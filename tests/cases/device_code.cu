#include <curand_kernel.h>  // expect: PK100 PK204

__device__ unsigned lane() {  // expect: PK202
  unsigned id;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(id));  // expect: PK101
  return id;
}

__device__ float old_mma(float x) {  // expect: PK202
  asm("wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%0}, {%1}, {%1}, {%0};" : "+f"(x));  // expect: PK102
  asm("add.f32 %0, %0, %0;" : "+f"(x));  // expect: PK102
  return x;
}

__global__ void draw(unsigned long long seed, float* out) {  // expect: PK200
  curandState state;  // expect: PK100
  curand_init(seed, threadIdx.x, 0, &state);  // expect: PK100
  float v = curand_uniform(&state);  // expect: PK100
  v += __shfl_down_sync(0xffffffff, v, 16);  // expect: PK104 PK301
#if __CUDA_ARCH__ >= 700  // expect: PK203 PK101 PK320
  v *= 2.0f;
#endif
  out[threadIdx.x] = v;
}

void launch(float* out) {
  draw<<<1, 32>>>(42ULL, out);  // expect: PK201
}

struct Coefficients { float c[64]; };

__global__ void scale(__grid_constant__ const Coefficients k, float* out) {  // expect: PK200 PK102
  out[threadIdx.x] *= k.c[threadIdx.x % 64];
}
