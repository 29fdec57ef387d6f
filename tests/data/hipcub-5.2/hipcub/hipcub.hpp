// Stand-in for hipCUB 5.2's <hipcub/hipcub.hpp>: the configuration first, then every primitive.
#pragma once
#include "config.hpp"
#include "util_ptx.hpp"
#include "block/block_reduce.hpp"
