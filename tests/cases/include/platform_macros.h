// Macros HIP's platform decides (parse/platform_macros.py), as DeepSpeed's ds_kernel_utils.h and bitsandbytes'
// compat.cuh define them: PTX_AVAILABLE only where hipcc never compiles for AMD, PROJECT_ON_HIP 1 there and 0 elsewhere.
#pragma once
#ifdef __HIP_PLATFORM_AMD__
#include <hip/hip_runtime.h>
#else
#if __CUDA_ARCH__ >= 530
#define PTX_AVAILABLE
#endif
#endif
#if defined(__HIP_PLATFORM_AMD__) || defined(__HIPCC__)
#define PROJECT_ON_HIP 1
#else
#define PROJECT_ON_HIP 0
#endif
