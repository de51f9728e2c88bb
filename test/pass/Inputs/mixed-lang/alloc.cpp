/* C++ host code: a reference parameter; the host compiler does not see
 * __CUDACC__, so neither does tidal. */
#ifdef __CUDACC__
#error "a .cpp file is compiled by the host C++ compiler"
#endif
#include "ops.h"
namespace {
void grow(float *&p, int n) { cudaMalloc((void **)&p, n * sizeof(float)); }
}
extern "C" float *alloc_gpu(int n) {
  float *p = nullptr;
  grow(p, n);
  return p;
}
