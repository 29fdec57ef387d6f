// A project's layer behind its own macro that HIP's platform decides (include/platform_macros.h: PROJECT_ON_HIP), as
// bitsandbytes' compat.cuh defines `__syncwarp()` under `#if BNB_HIP`: hipcc for AMD takes that branch.
#pragma once
#include "platform_macros.h"
#if PROJECT_ON_HIP
#define __syncwarp() do {} while (0)
#endif
