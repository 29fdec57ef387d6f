// The register storage class, which C++17 removed: nvcc warns, hipcc (C++17 by default) stops.
__global__ void butterflies(const unsigned long long *in, unsigned long long *out) {
  register unsigned long long samples[8];
  register   unsigned lane = threadIdx.x;
  for (register int i = 0; i < 8; ++i) samples[i] = in[lane * 8 + i];
  out[lane] = samples[0] ^ samples[7];
}
