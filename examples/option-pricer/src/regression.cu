// Least-squares fit of discounted payoffs on a quadratic basis: build the normal
// equations A^T A c = A^T y on the device and solve them with a Cholesky
// factorisation from cuSOLVER.
#include <vector>

#include "common.h"

__global__ void normal_equations(const float* x, const float* y, int n,
                                 float* ata, float* aty) {
  // Each thread accumulates one entry of the 3x3 system (plus one of the rhs).
  const int entry = threadIdx.x;
  if (entry >= 12) return;
  float acc = 0.0f;
  for (int i = 0; i < n; ++i) {
    const float basis[3] = {1.0f, x[i], x[i] * x[i]};
    if (entry < 9) {
      acc += basis[entry / 3] * basis[entry % 3];
    } else {
      acc += basis[entry - 9] * y[i];
    }
  }
  if (entry < 9) ata[entry] = acc; else aty[entry - 9] = acc;
}

void least_squares_fit(cusolverDnHandle_t solver, const float* d_x,
                       const float* d_y, int n, float* h_coeffs) {
  float *d_ata = nullptr, *d_aty = nullptr, *d_work = nullptr;
  int* d_info = nullptr;
  CUDA_CHECK(cudaMalloc(&d_ata, 9 * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_aty, 3 * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_info, sizeof(int)));
  normal_equations<<<1, 32>>>(d_x, d_y, n, d_ata, d_aty);
  CUDA_CHECK(cudaGetLastError());

  int lwork = 0;
  CUSOLVER_CHECK(cusolverDnSpotrf_bufferSize(solver, CUBLAS_FILL_MODE_LOWER, 3,
                                             d_ata, 3, &lwork));
  CUDA_CHECK(cudaMalloc(&d_work, lwork * sizeof(float)));
  CUSOLVER_CHECK(cusolverDnSpotrf(solver, CUBLAS_FILL_MODE_LOWER, 3, d_ata, 3,
                                  d_work, lwork, d_info));
  CUSOLVER_CHECK(cusolverDnSpotrs(solver, CUBLAS_FILL_MODE_LOWER, 3, 1, d_ata, 3,
                                  d_aty, 3, d_info));
  int info = 0;
  CUDA_CHECK(cudaMemcpy(&info, d_info, sizeof(int), cudaMemcpyDeviceToHost));
  if (info != 0) {
    std::fprintf(stderr, "normal equations are not positive definite (%d)\n", info);
  }
  CUDA_CHECK(cudaMemcpy(h_coeffs, d_aty, 3 * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(d_work));
  CUDA_CHECK(cudaFree(d_info));
  CUDA_CHECK(cudaFree(d_aty));
  CUDA_CHECK(cudaFree(d_ata));
}
