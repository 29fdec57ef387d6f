/* portkit: __match_any_sync and __match_all_sync for HIP before 6.2, which lacks them.
 * Values are compared bit for bit, as CUDA does, one __ballot per distinct value among the
 * active lanes. The mask is not used: every active lane takes part (on a 64-lane wavefront
 * the CUDA code's 32-bit mask would name only half of them). Delete this block when the
 * code targets HIP 6.2 or newer. */
#ifndef PORTKIT_HELPER_WARP_MATCH
#define PORTKIT_HELPER_WARP_MATCH
#include <hip/hip_runtime.h>

template <typename T>
__device__ inline unsigned long long portkit_match_bits(T value) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "__match_*_sync compares 32- or 64-bit values");
  unsigned long long bits = 0;
  __builtin_memcpy(&bits, &value, sizeof(T));
  return bits;
}

/* The active lanes whose value has the same bits as this lane's. */
template <typename T>
__device__ inline unsigned long long portkit_match_any_sync(unsigned long long, T value) {
  const unsigned long long bits = portkit_match_bits(value);
  unsigned long long remaining = __ballot(1), matching = 0;
  while (remaining) {
    const unsigned long long leader_bits = __shfl(bits, static_cast<int>(__ffsll(static_cast<long long>(remaining))) - 1);
    const unsigned long long same = __ballot(bits == leader_bits);
    if (bits == leader_bits) matching = same;
    remaining &= ~same;
  }
  return matching;
}

/* The active lanes when all of them hold the same bits (and *all_equal = 1), else 0. */
template <typename T>
__device__ inline unsigned long long portkit_match_all_sync(unsigned long long, T value, int *all_equal) {
  const unsigned long long bits = portkit_match_bits(value), active = __ballot(1);
  const bool equal = __ballot(bits == __shfl(bits, static_cast<int>(__ffsll(static_cast<long long>(active))) - 1)) == active;
  *all_equal = equal;
  return equal ? active : 0ull;
}
#endif /* PORTKIT_HELPER_WARP_MATCH */
