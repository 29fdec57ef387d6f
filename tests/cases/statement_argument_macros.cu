// A macro that runs code given as its last argument (ginkgo's GKO_PRECONDITIONER_JACOBI_RESOLVE_PRECISION):
// the kernel ends at its brace, so the host launch below is no launch from device code.
__global__ void transpose_blocks(float* out, int n) {  // expect: PK200 PK204
  RESOLVE_PRECISION(float, out[0],
      for (int i = threadIdx.x; i < n; i += 32) {
        out[i] += __fdividef(1.0f, i);  // expect: PK100
      });
}

void find_blocks(float* out, int n) {
  if (n > 0) {
    transpose_blocks<<<n, 32>>>(out, n);  // expect: PK201  ok: PK330
  }
}
