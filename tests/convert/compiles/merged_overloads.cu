// Error names for both CUDA APIs, as helper_cuda.h has them: under HIP, CUresult and cudaError_t
// are both hipError_t, so the two overloads are one function twice.
#define WITH_DRIVER_API
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>

static const char *errorName(cudaError_t error) { return cudaGetErrorName(error); }

#ifdef WITH_DRIVER_API
static const char *errorName(CUresult error) {
  const char *name = NULL;
  cuGetErrorString(error, &name);
  return name ? name : "<unknown>";
}
#endif

static const char *errorName(int code) { return code ? "failure" : "success"; }

#ifdef USE_STREAMS
static void describe(cudaStream_t stream) { std::printf("runtime stream %p\n", (void *)stream); }
#else
static void describe(CUstream stream) { std::printf("driver stream %p\n", (void *)stream); }
#endif

template <typename T>
void check(T result, const char *what) {
  if (result) std::printf("%s: %s\n", what, errorName(result));
}

int main() {
  check(cudaSetDevice(0), "cudaSetDevice");
  check(cuInit(0), "cuInit");
  describe(0);
  return 0;
}
