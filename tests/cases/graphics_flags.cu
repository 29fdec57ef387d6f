// Map flags passed where CUDA takes register flags (the CUDA Samples' habit): HIP has no map
// flags, but the register flags have the same values, and those HIP has.
#include <cuda_runtime.h>  // expect: PK100
void register_buffer(unsigned vbo, cudaGraphicsResource **resource) {  // expect: PK100
  cudaGraphicsGLRegisterBuffer(resource, vbo, cudaGraphicsMapFlagsWriteDiscard);  // expect: PK100 PK100
  cudaGraphicsGLRegisterImage(resource, vbo, 0x0DE1, cudaGraphicsMapFlagsNone);  // expect: PK100 PK100
  cudaGraphicsResourceSetMapFlags(*resource, cudaGraphicsMapFlagsReadOnly);  // expect: PK102 PK102
  unsigned flags = cudaGraphicsMapFlagsWriteDiscard;  // expect: PK102
  cudaGraphicsGLRegisterBuffer(resource, vbo, flags);  // expect: PK100
}
