// hipCUB block primitives that rocPRIM holds to a block size that is a multiple of the wavefront.
#include <cub/cub.cuh>  // expect: PK100 PK204

template <int kThreads>
__global__ void load_k(const float *in) {  // expect: PK200
  using Load = cub::BlockLoad<float, kThreads, 4, cub::BLOCK_LOAD_WARP_TRANSPOSE>;  // expect: PK100 PK100 PK305
  __shared__ typename Load::TempStorage tmp;
  float v[4];
  Load(tmp).Load(in, v);
}

__global__ void store_k(float *out) {  // expect: PK200
  using Store = cub::BlockStore<float, 128, 4, cub::BLOCK_STORE_WARP_TRANSPOSE>;  // expect: PK100 PK100  // ok: PK305
  __shared__ typename Store::TempStorage tmp;
  float v[4] = {};
  Store(tmp).Store(out, v);
}

void launch(const float *in, float *out) {
  load_k<32><<<1, 32>>>(in);  // expect: PK201
  store_k<<<1, 128>>>(out);  // expect: PK201
}
