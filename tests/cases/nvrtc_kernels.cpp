// Kernels compiled at run time with NVRTC: the kernel text and the options are strings convert leaves as they are.
#include <nvrtc.h>  // expect: PK100
#include <cuda.h>  // expect: PK100
#include <string>

/* a raw string, whose lines are the file's; expect: PK342 */ static const char* kReduce = R"(
extern "C" __global__ void reduce(float* x) {
  float v = x[threadIdx.x];
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffff, v, o);  // ok: PK300 PK301 (the string's, said at line 6)
  if (threadIdx.x % 32 == 0) x[threadIdx.x / 32] = v;  // ok: PK300
})";

CUfunction build_reduce(CUdevice device) {
  int major = 0;
  cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device);  // expect: PK100 PK100 PK335
  nvrtcProgram program;
  nvrtcCreateProgram(&program, kReduce, "reduce.cu", 0, nullptr, nullptr);  // expect: PK100
  std::string arch = "--gpu-architecture=compute_" + std::to_string(major * 10);  // expect: PK343
  const char* options[] = {arch.c_str(), "--use_fast_math", "-default-device", "--std=c++17", "-DN=4"};  // expect: PK343
  nvrtcCompileProgram(program, 5, options);  // expect: PK100
  size_t size;
  nvrtcGetPTXSize(program, &size);
  std::string ptx(size, '\0');
  nvrtcGetPTX(program, &ptx[0]);  // expect: PK101
  CUmodule module;
  cuModuleLoadDataEx(&module, ptx.c_str(), 0, nullptr, nullptr);  // expect: PK100
  CUfunction function;
  cuModuleGetFunction(&function, module, "reduce");
  return function;
}

// The source in the call itself, concatenated and with escapes; options that hiprtc takes as they are.
void build_scale() {
  nvrtcProgram program;
  nvrtcCreateProgram(&program,
                     "extern \"C\" __global__ void scale(float* x) {\n"  // expect: PK342
                     "  if (threadIdx.x % 32 == 0) x[threadIdx.x] *= 2.0f;\n"  // ok: PK300
                     "}\n", "scale.cu", 0, nullptr, nullptr);
  const char* options[] = {"--gpu-architecture=gfx90a", "-O3"};  // ok: PK343
  nvrtcCompileProgram(program, 2, options);
  nvrtcCreateProgram(&program, "extern \"C\" __global__ void zero(float* x) { x[threadIdx.x] = 0; }", "zero.cu", 0,  // ok: PK342
                     nullptr, nullptr);
}

// A source the program builds: only the call can be reported.
void build_generated(const std::string& body) {
  std::string code = "extern \"C\" __global__ void generated(float* x) {" + body + "}";
  nvrtcProgram program;
  nvrtcCreateProgram(&program, code.c_str(), "generated.cu", 0, nullptr, nullptr);  // expect: PK100 PK342
  const char* options[] = {"-arch=compute_80 -lineinfo"};  // expect: PK343
  nvrtcCompileProgram(program, 1, options);
}

