// A host-only header whose variables and functions are named like CUDA ones: no finding at all.
#include <cmath>  // expect: PK204
struct Image { int texture; float y0, y1; };  // ok: PK100 PK103 PK331
inline float blend(Image& img, float texture, float umin) {  // ok: PK100 PK102 PK103
  float y0 = img.y0, y1 = img.y1;  // ok: PK100
  float d = floor(y0) + std::floor(y1);  // ok: PK100
  if (isnan(d)) d = 0;  // ok: PK100
  return d * texture + img.texture + umin + min(1, 2);  // ok: PK100 PK102 PK103 PK331
}
struct Sampler { Image texture; };  // ok: PK100 PK103 PK331
inline int width(Sampler& s) { return s.texture.texture; }  // ok: PK100 PK103 PK331
__device__ float on_gpu(float x) { return floor(x); }  // expect: PK202 PK100
