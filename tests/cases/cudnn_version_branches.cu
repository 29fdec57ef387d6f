// A branch no cuDNN for the targeted CUDA builds holds no porting work (darknet: cuDNN 7's algorithm preferences,
// 233 of its 289 hours). hipcc reads the test as 0, but the test is a finding of its own: choose hipcc's branch.
// Convert still marks the names there; the test of cuDNN's version is its macro's finding, not a CUDA branch's.
#include <cudnn.h>  // expect: PK101
int pick_algo(int no_workspace) {
#if CUDNN_MAJOR >= 8  // expect: PK102
    return 0;
#else
    int a = CUDNN_CONVOLUTION_FWD_PREFER_FASTEST;  // expect: PK103
    if (no_workspace) a = CUDNN_CONVOLUTION_FWD_NO_WORKSPACE;  // expect: PK103
    return a;
#endif
}
// cuDNN 8 and 9 are both built for CUDA 12: neither branch is decided.
int workspace_kind() {
#if CUDNN_VERSION < 9000  // expect: PK102
    return CUDNN_CONVOLUTION_BWD_DATA_PREFER_FASTEST;  // expect: PK103
#else
    return 0;
#endif
}
