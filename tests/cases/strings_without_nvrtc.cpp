// Strings like NVRTC's in a file that calls no NVRTC function: its option strings are no NVRTC options, but a
// literal that defines a kernel is kernel source wherever it is held (another file may compile it).
#include <cuda_runtime.h>  // expect: PK100
#include <string>

static const char* kText = R"(__global__ void k(float* x) { if (threadIdx.x % 32 == 0) x[0] = 0; })";  // expect: PK342  // ok: PK300
const char* kOptions[] = {"--gpu-architecture=compute_75", "--use_fast_math", "-default-device"};  // ok: PK343
int launch_options(std::string& out) {
  out = "-arch=compute_80";  // ok: PK343
  return cudaDeviceSynchronize() == cudaSuccess;  // expect: PK100 PK100
}
