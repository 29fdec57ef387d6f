// Stand-in for hipCUB 5.2's <hipcub/block/block_load.hpp> (the rocPRIM backend's): BlockLoad is rocPRIM's block_load,
// and both WARP_TRANSPOSE algorithms are its warp_transpose method, as in hipCUB. Like the block_reduce stand-in it does
// not include config.hpp.
#pragma once
#include <rocprim/block/block_load.hpp>

BEGIN_HIPCUB_NAMESPACE
enum BlockLoadAlgorithm {
    BLOCK_LOAD_DIRECT = static_cast<int>(::rocprim::block_load_method::block_load_direct),
    BLOCK_LOAD_TRANSPOSE = static_cast<int>(::rocprim::block_load_method::block_load_transpose),
    BLOCK_LOAD_WARP_TRANSPOSE = static_cast<int>(::rocprim::block_load_method::block_load_warp_transpose),
    BLOCK_LOAD_WARP_TRANSPOSE_TIMESLICED = static_cast<int>(::rocprim::block_load_method::block_load_warp_transpose),
};

template <typename T, int BLOCK_DIM_X, int ITEMS_PER_THREAD, BlockLoadAlgorithm ALGORITHM = BLOCK_LOAD_DIRECT>
class BlockLoad : private ::rocprim::block_load<T, BLOCK_DIM_X, ITEMS_PER_THREAD,
                                                static_cast<::rocprim::block_load_method>(ALGORITHM)> {
    using base_type = ::rocprim::block_load<T, BLOCK_DIM_X, ITEMS_PER_THREAD,
                                            static_cast<::rocprim::block_load_method>(ALGORITHM)>;
    typename base_type::storage_type &storage_;

public:
    using TempStorage = typename base_type::storage_type;
    __device__ BlockLoad(TempStorage &storage) : storage_(storage) {}
    template <typename InputIterator>
    __device__ void Load(InputIterator block_iter, T (&items)[ITEMS_PER_THREAD]) {
        base_type::load(block_iter, items, storage_);
    }
};
END_HIPCUB_NAMESPACE
