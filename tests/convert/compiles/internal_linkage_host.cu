// The host half: a file-local umin (internal linkage) and the code using it, which stay as
// they are. internal_linkage.cu calls CUDA's umin, not this one.
#include <cstdio>

static unsigned umin(unsigned a, unsigned b) { return a <= b ? a : b; }

unsigned clamp_on_host(unsigned value, unsigned limit) {
    unsigned clamped = umin(value + 1u, limit);
    std::printf("%u\n", clamped);
    return clamped;
}
