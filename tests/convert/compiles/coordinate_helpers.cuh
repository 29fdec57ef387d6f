// A project's own min and max, as templates (CUDA Samples' eigenvalues util.h has these).
#ifndef COORDINATE_HELPERS_CUH
#define COORDINATE_HELPERS_CUH
template <class T>
__host__ __device__ T min(const T &lhs, const T &rhs) { return lhs < rhs ? lhs : rhs; }
template <class T>
__host__ __device__ T max(const T &lhs, const T &rhs) { return lhs < rhs ? rhs : lhs; }
#endif
