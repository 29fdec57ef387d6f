// A member declared without __device__ in its class and defined __host__ __device__ outside:
// hipcc rejects the redeclaration until convert gives the declaration the same spaces.
#include <cuda_runtime.h>
#define HOST_DEVICE __host__ __device__
struct Queue { int pending; };
class Container {
 public:
  Queue *
      queue();
  void add(int value);
  Queue *queue_;
};

inline HOST_DEVICE
    Queue *
    Container::
        queue()
{
  return queue_;
}

__device__ void Container::add(int value) { queue_->pending += value; }

__global__ void drain(Container *c) { c->add(c->queue()->pending); }
