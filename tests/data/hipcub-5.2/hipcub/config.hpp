// Stand-in for hipCUB 5.2's <hipcub/config.hpp> (hipCUB is not installed here): the namespace macros every
// hipCUB header uses, as hipCUB defines them.
#pragma once
#include <hip/hip_runtime.h>
#define BEGIN_HIPCUB_NAMESPACE namespace hipcub {
#define END_HIPCUB_NAMESPACE }
