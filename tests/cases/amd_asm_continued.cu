// AMDGCN asm whose template goes on over lines with backslash-newlines, in an #elif of a HIP branch: AMD's own.
#include <cuda_runtime.h>  // expect: PK100
__device__ unsigned int mix(unsigned int x, unsigned int y) {  // expect: PK202
#if defined(PROJECT_HIP) && defined(__HIP_PLATFORM_AMD__)
#if defined(__gfx1030__)
    return __builtin_amdgcn_alignbit(x, y, 8);
#elif defined(__gfx90a__)
    unsigned int r;
    asm volatile(  // ok: PK102 PK101
        "\n \
        v_xor_b32 %0, %1, %2 \n \
        \tv_lshlrev_b32 %0, 3, %0 \n \
        "
        : "=v"(r) : "v"(x), "v"(y));
    return r;
#endif
#else
    unsigned int lane;
    asm("mov.u32 %0, %%laneid;" : "=r"(lane));  // expect: PK101
    return (x ^ y) + lane;
#endif
}

