/* portkit: CUDA's min and max of a signed and an unsigned integer of the same size in device code,
 * which compare both as the unsigned type and return it. HIP has no such overloads: hipcc picks a
 * floating-point min/max for the call (its result is no integer) or converts to int. Device
 * functions only, so host code resolves min/max as it did; the names are in parentheses so that a
 * min/max macro does not expand them. */
#ifndef PORTKIT_HELPER_MIXED_MIN_MAX
#define PORTKIT_HELPER_MIXED_MIN_MAX
#include <hip/hip_runtime.h>
__device__ inline unsigned int (min)(int a, unsigned int b) { return (unsigned int)a < b ? (unsigned int)a : b; }
__device__ inline unsigned int (min)(unsigned int a, int b) { return a < (unsigned int)b ? a : (unsigned int)b; }
__device__ inline unsigned int (max)(int a, unsigned int b) { return (unsigned int)a > b ? (unsigned int)a : b; }
__device__ inline unsigned int (max)(unsigned int a, int b) { return a > (unsigned int)b ? a : (unsigned int)b; }
__device__ inline unsigned long (min)(long a, unsigned long b) { return (unsigned long)a < b ? (unsigned long)a : b; }
__device__ inline unsigned long (min)(unsigned long a, long b) { return a < (unsigned long)b ? a : (unsigned long)b; }
__device__ inline unsigned long (max)(long a, unsigned long b) { return (unsigned long)a > b ? (unsigned long)a : b; }
__device__ inline unsigned long (max)(unsigned long a, long b) { return a > (unsigned long)b ? a : (unsigned long)b; }
__device__ inline unsigned long long (min)(long long a, unsigned long long b) {
  return (unsigned long long)a < b ? (unsigned long long)a : b;
}
__device__ inline unsigned long long (min)(unsigned long long a, long long b) {
  return a < (unsigned long long)b ? a : (unsigned long long)b;
}
__device__ inline unsigned long long (max)(long long a, unsigned long long b) {
  return (unsigned long long)a > b ? (unsigned long long)a : b;
}
__device__ inline unsigned long long (max)(unsigned long long a, long long b) {
  return a > (unsigned long long)b ? a : (unsigned long long)b;
}
#endif /* PORTKIT_HELPER_MIXED_MIN_MAX */
