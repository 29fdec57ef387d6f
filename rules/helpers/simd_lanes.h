/* portkit: CUDA's SIMD-within-a-word intrinsics (__vadd4, __vaddss4, __vmaxs4, __vcmpgtu2, __vsadu4...:
 * two 16-bit or four 8-bit lanes of an unsigned int), which HIP lacks, but the signed rounded averages
 * (__vavgs2/4). Each lane is computed alone: plain ones wrap around, ...ss/...us ones saturate to the
 * lane's range; __vcmp* gives all ones for a true lane, __vset* 1; __vsad* sums the lanes' differences. */
#ifndef PORTKIT_HELPER_SIMD_LANES
#define PORTKIT_HELPER_SIMD_LANES
#include <hip/hip_runtime.h>
namespace portkit_simd {
enum Op { ADD, SUB, NEG, ABS, SATADD, SATSUB, SATNEG, SATABS, AVG, HADD, MAX, MIN, ABSDIFF, SAD, EQ, NE, GE, GT, LE, LT };
template <int Bits, bool Signed> __host__ __device__ inline int lane(unsigned int word, int shift) {
  unsigned int field = (word >> shift) & ((1u << Bits) - 1u);
  return Signed && field >> (Bits - 1) ? (int)field - (1 << Bits) : (int)field;
}
template <int Bits, bool Signed> __host__ __device__ inline int saturated(int value) {
  const int low = Signed ? -(1 << (Bits - 1)) : 0, high = Signed ? (1 << (Bits - 1)) - 1 : (1 << Bits) - 1;
  return value < low ? low : value > high ? high : value;
}
template <int Bits, bool Signed, Op op> __host__ __device__ inline unsigned int lanes(unsigned int a, unsigned int b,
                                                                           unsigned int yes) {
  unsigned int result = 0;
  for (int shift = 0; shift < 32; shift += Bits) {
    int x = lane<Bits, Signed>(a, shift), y = lane<Bits, Signed>(b, shift), r = 0;
    switch (op) {
      case ADD: r = x + y; break;
      case SUB: r = x - y; break;
      case NEG: r = -x; break;
      case ABS: r = x < 0 ? -x : x; break;
      case SATADD: r = saturated<Bits, Signed>(x + y); break;
      case SATSUB: r = saturated<Bits, Signed>(x - y); break;
      case SATNEG: r = saturated<Bits, Signed>(-x); break;
      case SATABS: r = saturated<Bits, Signed>(x < 0 ? -x : x); break;
      case AVG: r = (x + y + 1) >> 1; break;
      case HADD: r = (x + y) >> 1; break;
      case MAX: r = x > y ? x : y; break;
      case MIN: r = x < y ? x : y; break;
      case ABSDIFF: r = x > y ? x - y : y - x; break;
      case SAD: result += (unsigned int)(x > y ? x - y : y - x); continue;
      case EQ: r = x == y ? (int)yes : 0; break;
      case NE: r = x != y ? (int)yes : 0; break;
      case GE: r = x >= y ? (int)yes : 0; break;
      case GT: r = x > y ? (int)yes : 0; break;
      case LE: r = x <= y ? (int)yes : 0; break;
      case LT: r = x < y ? (int)yes : 0; break;
    }
    result |= ((unsigned int)r & ((1u << Bits) - 1u)) << shift;
  }
  return result;
}
}  // namespace portkit_simd
__host__ __device__ inline unsigned int portkit_vadd2(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<16, false, portkit_simd::ADD>(a, b, 0u);
}
__host__ __device__ inline unsigned int portkit_vsub2(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<16, false, portkit_simd::SUB>(a, b, 0u);
}
__host__ __device__ inline unsigned int portkit_vneg2(unsigned int a) {
  return portkit_simd::lanes<16, true, portkit_simd::NEG>(a, 0u, 0u);
}
__host__ __device__ inline unsigned int portkit_vabs2(unsigned int a) {
  return portkit_simd::lanes<16, true, portkit_simd::ABS>(a, 0u, 0u);
}
__host__ __device__ inline unsigned int portkit_vaddss2(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<16, true, portkit_simd::SATADD>(a, b, 0u);
}
__host__ __device__ inline unsigned int portkit_vaddus2(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<16, false, portkit_simd::SATADD>(a, b, 0u);
}
__host__ __device__ inline unsigned int portkit_vsubss2(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<16, true, portkit_simd::SATSUB>(a, b, 0u);
}
__host__ __device__ inline unsigned int portkit_vsubus2(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<16, false, portkit_simd::SATSUB>(a, b, 0u);
}
__host__ __device__ inline unsigned int portkit_vnegss2(unsigned int a) {
  return portkit_simd::lanes<16, true, portkit_simd::SATNEG>(a, 0u, 0u);
}
__host__ __device__ inline unsigned int portkit_vabsss2(unsigned int a) {
  return portkit_simd::lanes<16, true, portkit_simd::SATABS>(a, 0u, 0u);
}
__host__ __device__ inline unsigned int portkit_vavgu2(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<16, false, portkit_simd::AVG>(a, b, 0u);
}
__host__ __device__ inline unsigned int portkit_vhaddu2(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<16, false, portkit_simd::HADD>(a, b, 0u);
}
__host__ __device__ inline unsigned int portkit_vmaxs2(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<16, true, portkit_simd::MAX>(a, b, 0u);
}
__host__ __device__ inline unsigned int portkit_vmins2(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<16, true, portkit_simd::MIN>(a, b, 0u);
}
__host__ __device__ inline unsigned int portkit_vabsdiffs2(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<16, true, portkit_simd::ABSDIFF>(a, b, 0u);
}
__host__ __device__ inline unsigned int portkit_vsads2(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<16, true, portkit_simd::SAD>(a, b, 0u);
}
__host__ __device__ inline unsigned int portkit_vmaxu2(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<16, false, portkit_simd::MAX>(a, b, 0u);
}
__host__ __device__ inline unsigned int portkit_vminu2(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<16, false, portkit_simd::MIN>(a, b, 0u);
}
__host__ __device__ inline unsigned int portkit_vabsdiffu2(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<16, false, portkit_simd::ABSDIFF>(a, b, 0u);
}
__host__ __device__ inline unsigned int portkit_vsadu2(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<16, false, portkit_simd::SAD>(a, b, 0u);
}
__host__ __device__ inline unsigned int portkit_vcmpeq2(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<16, false, portkit_simd::EQ>(a, b, 0xffffu);
}
__host__ __device__ inline unsigned int portkit_vcmpne2(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<16, false, portkit_simd::NE>(a, b, 0xffffu);
}
__host__ __device__ inline unsigned int portkit_vcmpges2(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<16, true, portkit_simd::GE>(a, b, 0xffffu);
}
__host__ __device__ inline unsigned int portkit_vcmpgeu2(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<16, false, portkit_simd::GE>(a, b, 0xffffu);
}
__host__ __device__ inline unsigned int portkit_vcmpgts2(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<16, true, portkit_simd::GT>(a, b, 0xffffu);
}
__host__ __device__ inline unsigned int portkit_vcmpgtu2(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<16, false, portkit_simd::GT>(a, b, 0xffffu);
}
__host__ __device__ inline unsigned int portkit_vcmples2(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<16, true, portkit_simd::LE>(a, b, 0xffffu);
}
__host__ __device__ inline unsigned int portkit_vcmpleu2(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<16, false, portkit_simd::LE>(a, b, 0xffffu);
}
__host__ __device__ inline unsigned int portkit_vcmplts2(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<16, true, portkit_simd::LT>(a, b, 0xffffu);
}
__host__ __device__ inline unsigned int portkit_vcmpltu2(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<16, false, portkit_simd::LT>(a, b, 0xffffu);
}
__host__ __device__ inline unsigned int portkit_vseteq2(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<16, false, portkit_simd::EQ>(a, b, 1u);
}
__host__ __device__ inline unsigned int portkit_vsetne2(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<16, false, portkit_simd::NE>(a, b, 1u);
}
__host__ __device__ inline unsigned int portkit_vsetges2(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<16, true, portkit_simd::GE>(a, b, 1u);
}
__host__ __device__ inline unsigned int portkit_vsetgeu2(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<16, false, portkit_simd::GE>(a, b, 1u);
}
__host__ __device__ inline unsigned int portkit_vsetgts2(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<16, true, portkit_simd::GT>(a, b, 1u);
}
__host__ __device__ inline unsigned int portkit_vsetgtu2(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<16, false, portkit_simd::GT>(a, b, 1u);
}
__host__ __device__ inline unsigned int portkit_vsetles2(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<16, true, portkit_simd::LE>(a, b, 1u);
}
__host__ __device__ inline unsigned int portkit_vsetleu2(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<16, false, portkit_simd::LE>(a, b, 1u);
}
__host__ __device__ inline unsigned int portkit_vsetlts2(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<16, true, portkit_simd::LT>(a, b, 1u);
}
__host__ __device__ inline unsigned int portkit_vsetltu2(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<16, false, portkit_simd::LT>(a, b, 1u);
}
__host__ __device__ inline unsigned int portkit_vadd4(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<8, false, portkit_simd::ADD>(a, b, 0u);
}
__host__ __device__ inline unsigned int portkit_vsub4(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<8, false, portkit_simd::SUB>(a, b, 0u);
}
__host__ __device__ inline unsigned int portkit_vneg4(unsigned int a) {
  return portkit_simd::lanes<8, true, portkit_simd::NEG>(a, 0u, 0u);
}
__host__ __device__ inline unsigned int portkit_vabs4(unsigned int a) {
  return portkit_simd::lanes<8, true, portkit_simd::ABS>(a, 0u, 0u);
}
__host__ __device__ inline unsigned int portkit_vaddss4(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<8, true, portkit_simd::SATADD>(a, b, 0u);
}
__host__ __device__ inline unsigned int portkit_vaddus4(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<8, false, portkit_simd::SATADD>(a, b, 0u);
}
__host__ __device__ inline unsigned int portkit_vsubss4(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<8, true, portkit_simd::SATSUB>(a, b, 0u);
}
__host__ __device__ inline unsigned int portkit_vsubus4(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<8, false, portkit_simd::SATSUB>(a, b, 0u);
}
__host__ __device__ inline unsigned int portkit_vnegss4(unsigned int a) {
  return portkit_simd::lanes<8, true, portkit_simd::SATNEG>(a, 0u, 0u);
}
__host__ __device__ inline unsigned int portkit_vabsss4(unsigned int a) {
  return portkit_simd::lanes<8, true, portkit_simd::SATABS>(a, 0u, 0u);
}
__host__ __device__ inline unsigned int portkit_vavgu4(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<8, false, portkit_simd::AVG>(a, b, 0u);
}
__host__ __device__ inline unsigned int portkit_vhaddu4(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<8, false, portkit_simd::HADD>(a, b, 0u);
}
__host__ __device__ inline unsigned int portkit_vmaxs4(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<8, true, portkit_simd::MAX>(a, b, 0u);
}
__host__ __device__ inline unsigned int portkit_vmins4(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<8, true, portkit_simd::MIN>(a, b, 0u);
}
__host__ __device__ inline unsigned int portkit_vabsdiffs4(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<8, true, portkit_simd::ABSDIFF>(a, b, 0u);
}
__host__ __device__ inline unsigned int portkit_vsads4(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<8, true, portkit_simd::SAD>(a, b, 0u);
}
__host__ __device__ inline unsigned int portkit_vmaxu4(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<8, false, portkit_simd::MAX>(a, b, 0u);
}
__host__ __device__ inline unsigned int portkit_vminu4(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<8, false, portkit_simd::MIN>(a, b, 0u);
}
__host__ __device__ inline unsigned int portkit_vabsdiffu4(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<8, false, portkit_simd::ABSDIFF>(a, b, 0u);
}
__host__ __device__ inline unsigned int portkit_vsadu4(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<8, false, portkit_simd::SAD>(a, b, 0u);
}
__host__ __device__ inline unsigned int portkit_vcmpeq4(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<8, false, portkit_simd::EQ>(a, b, 0xffu);
}
__host__ __device__ inline unsigned int portkit_vcmpne4(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<8, false, portkit_simd::NE>(a, b, 0xffu);
}
__host__ __device__ inline unsigned int portkit_vcmpges4(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<8, true, portkit_simd::GE>(a, b, 0xffu);
}
__host__ __device__ inline unsigned int portkit_vcmpgeu4(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<8, false, portkit_simd::GE>(a, b, 0xffu);
}
__host__ __device__ inline unsigned int portkit_vcmpgts4(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<8, true, portkit_simd::GT>(a, b, 0xffu);
}
__host__ __device__ inline unsigned int portkit_vcmpgtu4(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<8, false, portkit_simd::GT>(a, b, 0xffu);
}
__host__ __device__ inline unsigned int portkit_vcmples4(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<8, true, portkit_simd::LE>(a, b, 0xffu);
}
__host__ __device__ inline unsigned int portkit_vcmpleu4(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<8, false, portkit_simd::LE>(a, b, 0xffu);
}
__host__ __device__ inline unsigned int portkit_vcmplts4(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<8, true, portkit_simd::LT>(a, b, 0xffu);
}
__host__ __device__ inline unsigned int portkit_vcmpltu4(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<8, false, portkit_simd::LT>(a, b, 0xffu);
}
__host__ __device__ inline unsigned int portkit_vseteq4(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<8, false, portkit_simd::EQ>(a, b, 1u);
}
__host__ __device__ inline unsigned int portkit_vsetne4(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<8, false, portkit_simd::NE>(a, b, 1u);
}
__host__ __device__ inline unsigned int portkit_vsetges4(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<8, true, portkit_simd::GE>(a, b, 1u);
}
__host__ __device__ inline unsigned int portkit_vsetgeu4(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<8, false, portkit_simd::GE>(a, b, 1u);
}
__host__ __device__ inline unsigned int portkit_vsetgts4(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<8, true, portkit_simd::GT>(a, b, 1u);
}
__host__ __device__ inline unsigned int portkit_vsetgtu4(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<8, false, portkit_simd::GT>(a, b, 1u);
}
__host__ __device__ inline unsigned int portkit_vsetles4(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<8, true, portkit_simd::LE>(a, b, 1u);
}
__host__ __device__ inline unsigned int portkit_vsetleu4(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<8, false, portkit_simd::LE>(a, b, 1u);
}
__host__ __device__ inline unsigned int portkit_vsetlts4(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<8, true, portkit_simd::LT>(a, b, 1u);
}
__host__ __device__ inline unsigned int portkit_vsetltu4(unsigned int a, unsigned int b) {
  return portkit_simd::lanes<8, false, portkit_simd::LT>(a, b, 1u);
}
#endif /* PORTKIT_HELPER_SIMD_LANES */
