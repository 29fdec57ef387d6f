// CUDA declares __ffs(int) and __ffsll(long long) once each; HIP overloads both for the
// unsigned types too, so a 64-bit long or a size_t argument is ambiguous there.
#include <cstdint>

__global__ void lowest_set_bits(const int64_t* signed_words, const uint64_t* words, const size_t* sizes, int* out) {
    int i = threadIdx.x;
    out[i] = __ffsll(signed_words[i]) + __ffsll(words[i]) + __ffs(sizes[i]) + __ffs(i);
}
