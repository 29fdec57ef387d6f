// Plain host code that includes a C API header, whose own header uses CUDA: the HIP runtime
// header convert adds there must not take C linkage from the block around the include.
#include "c_api.h"

int c_api_version(void) { return 2; }
