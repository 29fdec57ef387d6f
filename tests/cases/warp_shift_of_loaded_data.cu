// A shift of a value loaded at a thread's index moves data bits, not lanes; the index's own shift is a warp id.
__global__ void unpack_bits(const int *packed, const int *high, int *out) {
  const int tid = threadIdx.x;
  const int hi = high[tid];
  int bits = (packed[tid] >> 4) & 0x0F0F0F0F;
  bits |= (hi >> 5) & 0x00001000;  // ok: PK300
  bits |= (high[tid] >> 5) & 0x2000;  // ok: PK300
  const int warp = tid >> 5;  // expect: PK300
  out[tid] = bits + warp;
}
