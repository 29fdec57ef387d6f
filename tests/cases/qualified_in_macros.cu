// Qualified names in #define bodies are names as in code: a rule's prefix (thrust::cuda::par, through an alias too),
// or a CUDA-looking name no rule knows. The lexer once split them into thrust, cuda, par: no finding, no rename.
#include <cooperative_groups.h>  // expect: PK101
#include <thrust/execution_policy.h>  // expect: PK100
namespace cg = cooperative_groups;

#define POLICY thrust::cuda::par  // expect: PK101
#define POLICY_ON(s) thrust :: cuda::par.on(s)  // expect: PK101
#define GRID() cg::this_grid()  // expect: PK100
#define ALLOC cudaMalloc  // expect: PK100
#define FRONTEND cudnn_frontend::NoSuchThing  // expect: PK105
#define VECTOR std::vector<int>  // ok: PK105
