// Stand-in for rocThrust's <thrust/system/hip/error.h> (rocThrust is not installed here): hip_category as rocThrust
// (rocm-5.2.0) declares it, in thrust::system and made visible in thrust; NVIDIA's Thrust names it cuda_category.
#pragma once
#include <hip/hip_runtime_api.h>  // rocThrust: through thrust/system/hip/detail/guarded_hip_runtime_api.h
#include <thrust/system_error.h>

namespace thrust {
namespace system {
inline const error_category& hip_category(void) {
  struct hip_error_category : error_category {
    const char* name() const override { return "hip"; }
  };
  static const hip_error_category category;
  return category;
}
}  // namespace system
using system::hip_category;
}  // namespace thrust
