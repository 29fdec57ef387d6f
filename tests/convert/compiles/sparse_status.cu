// cuSPARSE's status names: hipSPARSE has hipsparseGetErrorString from HIP 6.0 only, so for
// HIP 5.2 convert writes portkit's helper (HeCBench's sparse benchmarks report errors this way).
#include <cstdio>
#include <cusparse.h>

int check(cusparseStatus_t status) {
  if (status != CUSPARSE_STATUS_SUCCESS) {
    fprintf(stderr, "cuSPARSE: %s\n", cusparseGetErrorString(status));
    return 1;
  }
  return 0;
}
