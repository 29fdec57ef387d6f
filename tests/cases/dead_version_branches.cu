// A branch no compiler of the port builds (false under hipcc, where CUDA's version reads 0, and false on the
// targeted CUDA) holds no porting work: ginkgo keeps its bindings for cuSPARSE before CUDA 11 in one.
#include <cusparse.h>  // expect: PK100
#if defined(CUDA_VERSION) && (CUDA_VERSION < 11000)  // expect: PK203
inline void legacy(cusparseHandle_t h) { cusparseDestroySolveAnalysisInfo(0); }  // ok: PK103 PK100
#else
inline void modern(cusparseHandle_t h) { cusparseDestroy(h); }  // expect: PK100 PK100
#endif
// A branch hipcc builds (CUDA's version reads 0) is work, though the targeted CUDA skips it (thundersvm).
#if CUDART_VERSION >= 11000  // expect: PK203
inline void spmm(cusparseHandle_t h) { cusparseDestroy(h); }  // expect: PK100 PK100
#else
inline void csrmm(cusparseHandle_t h) { cusparseDestroySolveAnalysisInfo(0); }  // expect: PK100 PK103
#endif
