/* portkit: CUDA's cache-hinted loads and stores (__ldcs, __stcs...) for any type. HIP has the
 * loads only for __half and __half2; these load and store plainly, without the hint (AMD's
 * caches take no such hint from HIP code). */
#ifndef PORTKIT_HELPER_CACHE_HINTS
#define PORTKIT_HELPER_CACHE_HINTS
#include <hip/hip_runtime.h>

template <typename T> __device__ inline T portkit_ldca(const T* address) { return *address; }
template <typename T> __device__ inline T portkit_ldcg(const T* address) { return *address; }
template <typename T> __device__ inline T portkit_ldcs(const T* address) { return *address; }
template <typename T> __device__ inline void portkit_stcg(T* address, T value) { *address = value; }
template <typename T> __device__ inline void portkit_stcs(T* address, T value) { *address = value; }
template <typename T> __device__ inline void portkit_stwb(T* address, T value) { *address = value; }
#endif /* PORTKIT_HELPER_CACHE_HINTS */
