// Overloads on CUDA types that HIP names alike (PK340), and twins that are no such pair.
#include <cuda.h>  // expect: PK100
#include <cuda_runtime.h>  // expect: PK100

const char *name_of(cudaError_t e) { return ""; }  // expect: PK100
const char *name_of(CUresult e) { return ""; }  // expect: PK100 PK340
const char *name_of(int e) { return ""; }  // ok: PK340

void wait_on(cudaStream_t s, cudaEvent_t e) {}  // expect: PK100 PK100
void wait_on(CUstream s, CUevent e) {}  // expect: PK100 PK100 PK340
void wait_on(CUstream s, int e) {}  // ok: PK340

#ifdef USE_RUNTIME
void record(cudaEvent_t e) {}  // expect: PK100
#else
void record(CUevent e) {}  // expect: PK100
#endif

void same(float x) {}  // ok: PK340
void same(double x) {}  // ok: PK340
