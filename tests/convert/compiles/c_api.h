// A C API header: what it declares has C linkage, and so has what it includes.
#ifdef __cplusplus
extern "C" {
#endif
#include "c_api_status.h"
int c_api_version(void);
#ifdef __cplusplus
}
#endif
