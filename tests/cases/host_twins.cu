// A device function under a __CUDA_ARCH__ test whose other branch defines the name again for the host.
#ifdef __CUDA_ARCH__  // expect: PK204 PK101 PK203
__device__ unsigned swap_halves(unsigned x) { return __byte_perm(x, x, 0x1032); }  // expect: PK202 PK345 PK100
#else
#define swap_halves(x) (((x) << 16) | ((x) >> 16))  // ok: PK345
#endif
#if defined(__CUDA_ARCH__)
__device__ int bits_set(unsigned x) { return __popc(x); }  // expect: PK202 PK345 PK100
#else
static inline int bits_set(unsigned x) { int n = 0; for (; x; x &= x - 1) n++; return n; }  // expect: PK345
#endif
#ifdef __CUDA_ARCH__  // expect: PK101 PK203 PK345
__device__ unsigned low(unsigned x) { return x & 0xffffu; }  // expect: PK202
#else
#define low host_low
#endif
#ifdef __CUDA_ARCH__
__device__ float only_on_device(float v) { return v * 2; }  // expect: PK202
#endif
