// Inline asm a project already wrote for AMD, beside its CUDA branch: AMDGCN is no PTX to port.
#include <cuda_runtime.h>  // expect: PK100
__device__ int dot4(int a, int b, int c) {  // expect: PK202
#if defined(__HIP_PLATFORM_AMD__)
    int t;
    asm("v_mul_i32_i24 %1, sext(%2), sext(%3) dst_sel:DWORD src0_sel:BYTE_0 src1_sel:BYTE_0\n"  // ok: PK102 PK101
        "v_add3_u32 %0, %1, %0, 0"
        : "+v"(c), "=&v"(t) : "v"(a), "v"(b));
    return c;
#else
    int lane;
    asm("mov.u32 %0, %%laneid;" : "=r"(lane));  // expect: PK101
    return a * b + c + lane;
#endif
}
