// Stand-in for rocThrust's <thrust/execution_policy.h> (rocThrust is not installed here): the one name the tests use,
// as rocThrust declares it in thrust/system/hip/detail/par.h: thrust::hip_rocprim::par, a par_t whose
// on(hipStream_t const&) gives an execute_on_stream, made visible as thrust::hip::par. NVIDIA's Thrust has no
// thrust::hip.
#pragma once
#include <hip/hip_runtime.h>

namespace thrust {
namespace hip_rocprim {
struct execute_on_stream {
    hipStream_t stream;
};
struct par_t {
    execute_on_stream on(hipStream_t const& stream) const { return execute_on_stream{stream}; }
};
inline constexpr par_t par{};
}  // namespace hip_rocprim
namespace hip {
using thrust::hip_rocprim::par;
}  // namespace hip
}  // namespace thrust
