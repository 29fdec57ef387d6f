// A program's own copy of some driver API declarations (it loads the driver library at run
// time): each is the project's own, so nothing here becomes HIP's, whose types differ.
#ifndef DRIVER_API_COPY_H
#define DRIVER_API_COPY_H
#define MY_DRIVER_API_VERSION 5000
#if defined(__LP64__)
typedef unsigned long long CUdeviceptr;
#else
typedef unsigned int CUdeviceptr;
#endif
#if MY_DRIVER_API_VERSION >= 4000
#define CU_MEMHOSTALLOC_PORTABLE 0x01
typedef void (*CUstreamCallback)(void *userData);
#endif
typedef struct CUgraphicsResource_st *CUgraphicsResource;
typedef int (*tcuMemAlloc)(CUdeviceptr *dptr, unsigned long long bytes);
#endif
