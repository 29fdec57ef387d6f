// Conversion input: cuSPARSE handle and matrix descriptor management.
#include <cuda_runtime.h>
#include <cusparse.h>

int make_descriptor() {
  cusparseHandle_t handle;
  if (cusparseCreate(&handle) != CUSPARSE_STATUS_SUCCESS) return 1;
  cusparseMatDescr_t descr;
  cusparseCreateMatDescr(&descr);
  cusparseSetMatType(descr, CUSPARSE_MATRIX_TYPE_GENERAL);
  cusparseSetMatIndexBase(descr, CUSPARSE_INDEX_BASE_ZERO);
  cusparseDestroyMatDescr(descr);
  cusparseDestroy(handle);
  return 0;
}
