// Headers of NVIDIA libraries no rule maps are marked, included with <> or with quotes; a
// generic cuda*.h in quotes is most likely the project's own helper (here, one not scanned).
#include <cuda_runtime.h>  // expect: PK100
#include "nvjpeg.h"  // expect: PK105
#include <nvvm.h>  // expect: PK105
#include "nvPTXCompiler.h"  // expect: PK105
#include <cuda_fancy_future.h>  // expect: PK105
#include "cuda_utils.h"  // ok: PK105
#include "cublas_helpers.h"  // ok: PK105
