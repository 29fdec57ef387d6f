// Stand-in for hipCUB 5.2's <hipcub/util_ptx.hpp>: HIPCUB_WARP_THREADS as hipCUB's rocPRIM backend defines it,
// the wavefront size of the device compiled for (64 on gfx90a).
#pragma once
#include "config.hpp"
#include <rocprim/intrinsics/thread.hpp>
#define HIPCUB_WARP_THREADS ::rocprim::warp_size()
