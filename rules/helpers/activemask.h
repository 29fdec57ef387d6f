/* portkit: __activemask for HIP before 6.2, which lacks it: the lanes that reach the call, as a
 * 64-bit mask. Delete this block when the code targets HIP 6.2 or newer. */
#ifndef PORTKIT_HELPER_ACTIVEMASK
#define PORTKIT_HELPER_ACTIVEMASK
#include <hip/hip_runtime.h>

__device__ inline unsigned long long portkit_activemask() { return __ballot(1); }
#endif /* PORTKIT_HELPER_ACTIVEMASK */
