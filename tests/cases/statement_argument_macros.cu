// A macro that runs code given as its last argument (reduced from ginkgo's jacobi_kernels.cpp and its
// GKO_PRECONDITIONER_JACOBI_RESOLVE_PRECISION): the kernel ends at its brace, so the host launch below is no
// launch from device code.
namespace {  // expect: PK204
__global__ void  // expect: PK200
adaptive_transpose_jacobi(
    ValueType* __restrict__ out_blocks)
{
    const auto rank = subwarp.thread_rank();
    RESOLVE_PRECISION(
        for (int i = rank; i < block_size * block_size; i += subwarp_size) {
            out_blocks[i] = __fdividef(out_blocks[i], 2.0f);  // expect: PK100
        });
}
size_type find_natural_blocks(std::shared_ptr<const DefaultExecutor> exec,
                              IndexType* __restrict__ block_ptrs)
{
    if (grid_size > 0) {
        adaptive_transpose_jacobi<<<grid_size, block_size, 0, exec->get_stream()>>>(  // expect: PK201  ok: PK330
            block_ptrs);
    }
}
}
