// std::unique_ptr<float, decltype(&cudaFree)> with cudaFree itself as the
// deleter: the buffer resolves through get(), and since the rewriter
// replaces calls of cudaFree but not the function passed as a value, each
// such deleter is a warning (before: nothing said that tidal's memory would
// be handed to cudaFree).
// RUN: %tidal graph %s -- %stubflags -std=c++17 2>&1 | FileCheck %s
#include <stdlib.h>
#include <memory>
__global__ void scale(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i];
}
int main() {
  float *p, *q;
  cudaMalloc((void **)&p, 4096 * sizeof(float));
  cudaMalloc((void **)&q, 4096 * sizeof(float));
  std::unique_ptr<float, decltype(&cudaFree)> x(p, cudaFree);
  std::unique_ptr<float, decltype(&cudaFree)> y(q, &cudaFree);
  for (int step = 0; step < 10; step++) scale<<<16, 256>>>(y.get(), x.get(), 0.5f, 4096);
  return 0;
}
// CHECK: cxx-unique-ptr-cudafree-deleter.cu:17:52: warning: cudaFree passed as a deleter is not replaced by tidal_free
// CHECK: cxx-unique-ptr-cudafree-deleter.cu:18:53: warning: cudaFree passed as a deleter
// CHECK: managed 2 of 2 allocations (32.0 KiB of 32.0 KiB); 2 of 2 accesses resolved
// CHECK: write     y
// CHECK: read      x
