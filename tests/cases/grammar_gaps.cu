// C++ the grammar lacks, which made the whole file "parsed with errors" (llm.c, pytorch_scatter): a header name in
// `__has_include(<x.h>)` is no expression (nor names: `cuda_fp16` is no CUDA name to report), and a conversion
// operator called by name (`h.operator __half()`) names its type, which is reported as any other use.
#include <cuda_runtime.h>  // expect: PK100
#if defined(__CUDACC__) && __has_include(<cuda_fp16.h>)  // expect: PK101 PK203
#include <cuda_fp16.h>  // expect: PK100
#endif
#if __has_include(<nvml.h>) && !__has_include(<cuda/std/span>)  // ok: PK105
#define HAVE_NVML 1
#endif
struct H { __device__ operator __half() const; };  // expect: PK100
__device__ __half to_half(H h) { return h.operator __half(); }  // expect: PK100 PK100 PK202
__device__ __half to_half(const H *h) { return h->operator  __half(); }  // expect: PK100 PK100 PK202
