// A definition under #if: a fallback for a name a CUDA header declares (its uses stay CUDA's, and
// the fallback is renamed with them, so a build without the library still finds it),
// but the project's own copy of a name no CUDA header declares (a CUDA Samples helper).
#ifdef __DRIVER_TYPES_H__
#define checkCudaErrors(val) report((val), #val)
#endif
void init() { checkCudaErrors(cudaSetDevice(0)); }  // expect: PK100

#ifdef USE_CUDNN
#include <cudnn.h>
#else
typedef void* cudnnHandle_t;  // expect: PK101
#endif
void bind(cudnnHandle_t handle);  // expect: PK101

#if CUBLAS_VER_MAJOR < 11
#define CUBLAS_PEDANTIC_MATH CUBLAS_DEFAULT_MATH  // expect: PK104 PK104
#endif
int mode() { return CUBLAS_PEDANTIC_MATH; }  // expect: PK104
