/* portkit: CUDA's integer dot products (__dp4a, __dp2a_lo, __dp2a_hi; sm_61 and later), which HIP
 * lacks: the same sums of 8-bit (and 16-bit by 8-bit) products plus the accumulator, in plain C++,
 * wrapping around on overflow as CUDA's do. __dp2a_lo takes bytes 0 and 1 of the second operand,
 * __dp2a_hi bytes 2 and 3, each times the first operand's low and high 16 bits. */
#ifndef PORTKIT_HELPER_DOT_PRODUCTS
#define PORTKIT_HELPER_DOT_PRODUCTS
#include <hip/hip_runtime.h>
__host__ __device__ inline int portkit_dp4a(int a, int b, int c) {
  unsigned int sum = (unsigned int)c;
  for (int shift = 0; shift < 32; shift += 8) {
    sum += (unsigned int)((signed char)((unsigned int)a >> shift) * (signed char)((unsigned int)b >> shift));
  }
  return (int)sum;
}
__host__ __device__ inline unsigned int portkit_dp4a(unsigned int a, unsigned int b, unsigned int c) {
  for (int shift = 0; shift < 32; shift += 8) c += ((a >> shift) & 0xffu) * ((b >> shift) & 0xffu);
  return c;
}
__host__ __device__ inline int portkit_dp4a(char4 a, char4 b, int c) {
  return (int)((unsigned int)c + (unsigned int)((signed char)a.x * (signed char)b.x + (signed char)a.y * (signed char)b.y
                                                + (signed char)a.z * (signed char)b.z + (signed char)a.w * (signed char)b.w));
}
__host__ __device__ inline unsigned int portkit_dp4a(uchar4 a, uchar4 b, unsigned int c) {
  return c + (unsigned int)(a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w);
}
__host__ __device__ inline int portkit_dp2a_lo(int a, int b, int c) {
  int low = (short)((unsigned int)a & 0xffffu), high = (short)((unsigned int)a >> 16);
  return (int)((unsigned int)c + (unsigned int)(low * (signed char)b + high * (signed char)((unsigned int)b >> 8)));
}
__host__ __device__ inline unsigned int portkit_dp2a_lo(unsigned int a, unsigned int b, unsigned int c) {
  return c + (a & 0xffffu) * (b & 0xffu) + (a >> 16) * ((b >> 8) & 0xffu);
}
__host__ __device__ inline int portkit_dp2a_lo(short2 a, char4 b, int c) {
  return (int)((unsigned int)c + (unsigned int)(a.x * (signed char)b.x + a.y * (signed char)b.y));
}
__host__ __device__ inline unsigned int portkit_dp2a_lo(ushort2 a, uchar4 b, unsigned int c) {
  return c + (unsigned int)a.x * b.x + (unsigned int)a.y * b.y;
}
__host__ __device__ inline int portkit_dp2a_hi(int a, int b, int c) {
  return portkit_dp2a_lo(a, (int)((unsigned int)b >> 16), c);
}
__host__ __device__ inline unsigned int portkit_dp2a_hi(unsigned int a, unsigned int b, unsigned int c) {
  return portkit_dp2a_lo(a, b >> 16, c);
}
__host__ __device__ inline int portkit_dp2a_hi(short2 a, char4 b, int c) {
  return (int)((unsigned int)c + (unsigned int)(a.x * (signed char)b.z + a.y * (signed char)b.w));
}
__host__ __device__ inline unsigned int portkit_dp2a_hi(ushort2 a, uchar4 b, unsigned int c) {
  return c + (unsigned int)a.x * b.z + (unsigned int)a.y * b.w;
}
#endif /* PORTKIT_HELPER_DOT_PRODUCTS */
