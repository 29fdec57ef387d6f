#pragma once
#include <cuda_runtime.h>
// Only reachable with the project's include path: clang needs the compile database.
#if USE_POOL
#define GPU_ALLOC(p, n) cudaMallocAsync(p, n, 0)
#else
#define GPU_ALLOC(p, n) cudaMalloc(p, n)
#endif
