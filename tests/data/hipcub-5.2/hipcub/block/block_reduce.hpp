// Stand-in for hipCUB 5.2's <hipcub/block/block_reduce.hpp> (the rocPRIM backend's): like hipCUB's from ROCm 5.2 to
// 6.2.2 it does not include config.hpp, so it compiles only after a header that does (hipcub/hipcub.hpp). BlockReduce
// is rocPRIM's block_reduce, as in hipCUB.
#pragma once
#include <rocprim/block/block_reduce.hpp>

BEGIN_HIPCUB_NAMESPACE
template <typename T, int BLOCK_DIM_X>
class BlockReduce : private ::rocprim::block_reduce<T, BLOCK_DIM_X> {
    using base_type = ::rocprim::block_reduce<T, BLOCK_DIM_X>;
    typename base_type::storage_type &storage_;

public:
    using TempStorage = typename base_type::storage_type;
    __device__ BlockReduce(TempStorage &storage) : storage_(storage) {}
    __device__ T Sum(T input) {
        T output;
        base_type::reduce(input, output, storage_);
        return output;
    }
};
END_HIPCUB_NAMESPACE
