// The project's own HIP layer's definitions that are more than a rename, as kaldi's hip/hipify.h makes them: a
// function-like macro (hipBLAS before ROCm 5.6 declares trsm's A without const), a workaround for zero-size copies, a
// call HIP lacks made a no-op, and an intrinsic aliased to another CUDA spelling that AMD rounds alike.
#pragma once
#define cublasStrsm_v2(a, b, c, d, e, f, g, h, i, j, k, l) \
  hipblasStrsm(a, b, c, d, e, f, g, h, const_cast<float*>(i), j, k, l)
#define cudaMemcpy2DAsync(a, b, c, d, width, height, e, f)      \
  [&]() -> hipError_t {                                         \
    if (width && height)                                        \
      return hipMemcpy2DAsync(a, b, c, d, width, height, e, f); \
    return hipSuccess;                                          \
  }()
#define curandSetGeneratorOrdering(x, y) 0
#ifdef __HIPCC__
#define __fdiv_rd __fdiv_rn
#else
#define __align__(x) __attribute__((aligned(x)))
#endif
