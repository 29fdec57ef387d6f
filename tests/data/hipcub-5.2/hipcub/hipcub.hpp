// Stand-in for hipCUB 5.2's <hipcub/hipcub.hpp>: the configuration first, then the primitives the tests use.
#pragma once
#include "config.hpp"
#include "util_ptx.hpp"
#include "block/block_load.hpp"
#include "block/block_reduce.hpp"
