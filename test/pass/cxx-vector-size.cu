// C++: std::vector<T>::size() in allocation sizes.  A vector constructed
// with a count (a local `v(n * 4, 0.f)`, a member initialiser `w_(n)`)
// has that size, so `cudaMalloc(&d, v.size() * sizeof(float))` gets a
// computable size and the loop unrolls (before: "the allocation size is not
// a computable expression").
// RUN: %tidal graph %s -- %stubflags -std=c++17 2>&1 | FileCheck %s
#include <vector>
__global__ void scale(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.f * x[i];
}
struct Layer {
  std::vector<float> w_;
  explicit Layer(int n) : w_(n) {}
};
int main() {
  const int n = 256;
  std::vector<float> host(n * 4, 0.f);
  Layer layer(n * 4);
  float *x, *y;
  cudaMalloc((void **)&x, host.size() * sizeof(float));
  cudaMalloc((void **)&y, layer.w_.size() * sizeof(float));
  for (int step = 0; step < 10; step++) scale<<<4, 256>>>(y, x, n * 4);
  return 0;
}
// CHECK: ops: 1 static, 1 per iteration unrolled
// CHECK: write y {{.*}}= 4.0 KiB
