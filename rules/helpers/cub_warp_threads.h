/* portkit: CUB's CUB_WARP_THREADS(arch), the warp size (CUB ignores the argument), as hipCUB's HIPCUB_WARP_THREADS,
 * which takes none: the wavefront size of the device compiled for (64 on CDNA, 32 on RDNA). */
#ifndef PORTKIT_HELPER_CUB_WARP_THREADS
#define PORTKIT_HELPER_CUB_WARP_THREADS
#define portkit_cub_warp_threads(arch) HIPCUB_WARP_THREADS
#endif /* PORTKIT_HELPER_CUB_WARP_THREADS */
