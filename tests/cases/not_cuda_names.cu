// Real-code shapes whose names only look like CUDA: none of them is a CUDA finding.
#include <ctime>  // expect: PK204
struct Params { enum class Algo { CUDNN_GEMM, OTHER }; Algo algo; };  // ok: PK105
namespace cudnn_backend { int counter; }  // ok: PK105
using namespace cudnn_backend;  // ok: PK105
struct Lookup { int *cudaDevice; int get() const { return *cudaDevice; } };  // ok: PK105
struct Ring { const float *y0; float (*j0)(float); __device__ float lo() const { return *y0 + j0(1.f); } };  // ok: PK100
__global__ void k(float *p) { dim3 y1(blockDim); p[0] = y1.x; }  // ok: PK100
void run(float *p, int blocks, int threads) { dim3 cuGrid(blocks), cuBlock(threads); k<<<cuGrid, cuBlock>>>(p); }  // ok: PK105
double seconds() { return (double)clock() / CLOCKS_PER_SEC; }  // ok: PK100
int f(bool cublasDisableTensorCores = false) { return !cublasDisableTensorCores; }  // ok: PK105
__device__ float shift(float x, float y0 = 1.f) { return x + y0; }  // ok: PK100
struct Timer { unsigned long long ticks() { unsigned lo, hi; __asm__(".byte 0x0f, 0x31" : "=a"(lo), "=d"(hi)); return lo; } };  // ok: PK102
bool same(Params& p) { return p.algo == Params::Algo::CUDNN_GEMM; }  // ok: PK105
#define CHECK(x) x
void h(float* d) {
  CHECK( cudaMemcpy(d, d, 4, cudaMemcpyHostToDevice) )  // expect: PK100 PK100
}
struct Grouping { unsigned meta_group_rank() const { return 0; } };  // a project's own member of a cooperative groups name
unsigned rank_of(const Grouping& g) { return g.meta_group_rank(); }  // ok: PK104
void order(int *values, int n) { sort(values, values + n); }  // ok: PK100
