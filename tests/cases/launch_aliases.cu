// Launches through a local name count as launches of each kernel the name stands for (parse/launch_alias.py):
// a choice, and assignments before the launch. Each kernel launched counts once: two kernels, two launches.
#include <cuda_runtime.h>  // expect: PK100
__global__ void wide(float* x) { x[threadIdx.x] = 1; }  // expect: PK200
__global__ void narrow(float* x) { x[threadIdx.x] = 2; }  // expect: PK200
float* make(int n);
void (*pick_kernel(bool big))(float*);

void run(float* x, bool big, void (*given)(float*)) {
  auto chosen = big ? &wide : &narrow;
  chosen<<<1, 64>>>(x);  // expect: PK201 PK201
  void (*assigned)(float*);
  if (big) {
    assigned = wide;
  } else {
    assigned = &narrow;
  }
  assigned<<<1, 64>>>(x);  // expect: PK201 PK201
  void (*once)(float*) = narrow;
  once = wide;
  once<<<1, 64>>>(x);  // expect: PK201 PK201
  auto same = big ? wide : wide;
  same<<<1, 64>>>(x);  // expect: PK201
  // A value that names no kernel: the launch stays the local name's, counted once.
  auto unknown = big ? wide : pick_kernel(big);
  unknown<<<1, 64>>>(x);  // expect: PK201
  auto passed = given;
  passed<<<1, 64>>>(x);  // expect: PK201
}
