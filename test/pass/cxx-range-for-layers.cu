// A range-for over layers held in a vector of unique_ptrs inside the
// training loop, the activation carried from layer to layer (`h =
// l->forward(h)`): the vector's elements are followed (interp_container.c,
// Note [container elements]), so the loop is walked layer by layer, each
// layer reading the previous one's output and writing its own.  Before:
// walked once with the element unknown (its write unresolved, its input
// "offset carried around a loop"); earlier still, as straight-line code.
// RUN: %tidal graph %s -- %stubflags -std=c++17 2>&1 | FileCheck %s
#include <stdlib.h>
#include <memory>
#include <vector>
__global__ void scale(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i];
}
struct Layer {
  float *out;
  int n;
  explicit Layer(int n_) : n(n_) { cudaMalloc((void **)&out, n * sizeof(float)); }
  float *forward(const float *x) {
    scale<<<(n + 255) / 256, 256>>>(out, x, 2.f, n);
    return out;
  }
};
int main() {
  float *x;
  cudaMalloc((void **)&x, 1024 * sizeof(float));
  std::vector<std::unique_ptr<Layer>> layers;
  for (int i = 0; i < 3; i++) layers.push_back(std::make_unique<Layer>(1024));
  for (int step = 0; step < 10; step++) {
    const float *h = x;
    for (auto &l : layers) h = l->forward(h);
  }
  return 0;
}
// CHECK-NOT: warning
// CHECK: 6 of 6 accesses resolved
// CHECK: training loop: {{.*}}cxx-range-for-layers.cu:30 (heuristic: 1 op sites) in main
// CHECK: ops: 3 static, 3 per iteration unrolled; {{.*}} loops: 3
// CHECK: #0 {{.*}}forward -> scale
// CHECK-NEXT: write (*layers[0]).out
// CHECK-NEXT: read x
// CHECK: #1 {{.*}}forward -> scale
// CHECK-NEXT: write (*layers[1]).out
// CHECK-NEXT: read (*layers[0]).out
// CHECK: #2 {{.*}}forward -> scale
// CHECK-NEXT: write (*layers[2]).out
// CHECK-NEXT: read (*layers[1]).out
// CHECK: unresolved (0):
