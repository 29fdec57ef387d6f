// A library's version queried by property: HIP names the type and its values after itself.
#include <cuda_runtime.h>
#include <library_types.h>

int query(libraryPropertyType type);

int version_number()
{
    libraryPropertyType_t major = MAJOR_VERSION;
    return query(major) * 1000 + query(MINOR_VERSION) * 10 + query(PATCH_LEVEL);
}
