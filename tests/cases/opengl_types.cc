// An OpenGL program that shares a buffer with CUDA: GLuint and GLenum are OpenGL's types, which CUDA's
// GL-interop functions take, never CUDA's names (colmap's SiftGPU).
#include <GL/gl.h>
#include <cuda_gl_interop.h>  // expect: PK104
GLuint make_texture(GLenum target) { GLuint t = 0; glGenTextures(1, &t); glBindTexture(target, t); return t; }  // ok: PK100 PK101 PK103
cudaGraphicsResource_t share(GLuint buffer) {  // expect: PK100
  cudaGraphicsResource_t resource = nullptr;
  cudaGraphicsGLRegisterBuffer(&resource, buffer, cudaGraphicsRegisterFlagsNone);  // expect: PK100 PK100
  return resource;
}
