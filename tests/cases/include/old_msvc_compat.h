// A compatibility header for compilers no build of a HIP port uses (XGBoost's span.h): its definitions are not
// the project's on Linux, and a keyword's under an #if is never the project's.
#pragma once
#if defined(_MSC_VER) && _MSC_VER < 1910
#define constexpr /* old MSVC has no constexpr */
#endif
#if defined(PROJECT_PRE_CXX11)
#define constexpr /* no constexpr before C++11 */
#endif
#if defined(_MSC_VER)
#define HOST_DEVICE_INLINE __host__ __device__ __forceinline__ __pragma(warning(suppress : 4100))
#else
#define HOST_DEVICE_INLINE __host__ __device__ inline
#endif
