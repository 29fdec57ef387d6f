// Members declared host-only in the class and defined for the device outside it: nvcc takes it, hipcc does not.
#include <cuda_runtime.h>  // expect: PK100
#define HOST_DEVICE __host__ __device__
struct Queue { int n; };
class Vault {
 public:
  Queue *queue();  // expect: PK339
  void push(int x);  // expect: PK339
  void push(int x, int y);  // ok: PK339
  HOST_DEVICE int size();  // ok: PK339
  int host_only();  // ok: PK339
  Queue *q_;
};
inline HOST_DEVICE Queue *Vault::queue() { return q_; }  // expect: PK202
__device__ void Vault::push(int x) { (void)x; }  // expect: PK202
void Vault::push(int x, int y) { (void)x; (void)y; }
inline HOST_DEVICE int Vault::size() { return 0; }  // expect: PK202
int Vault::host_only() { return 1; }
