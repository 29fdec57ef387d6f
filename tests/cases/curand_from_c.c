/* cuRAND's host API from C (PK101 at the include): hipRAND's header is C++ on AMD. */
#include <stdio.h>
#include <curand.h>  /* expect: PK101 */

int main(void) {
    curandGenerator_t gen;  /* expect: PK100 */
    float *data = 0;
    curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_DEFAULT);  /* expect: PK100 PK100 */
    curandGenerateUniform(gen, data, 100);  /* expect: PK100 */
    curandDestroyGenerator(gen);  /* expect: PK100 */
    printf("done\n");
    return 0;
}
