// A range-for over layers held in a vector of unique_ptrs inside the
// training loop is a loop of the iteration (trip count unknown: a warning,
// unrolled once by rewrite and replay), and the activation it carries from
// layer to layer (`h = l->forward(h)`) is loop-carried.  Before: the range-for's body was
// walked as straight-line code, so the launch counted once per step and its
// input was taken to be `x` exactly for every layer.  The elements of the
// vector are not followed: the write is unresolved, with a warning.
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
// CHECK-DAG: cxx-range-for-layers.cu:21:37: warning: pointer 'out' passed to scale is not traced to a cudaMalloc
// CHECK-DAG: cxx-range-for-layers.cu:21:42: warning: pointer 'x' passed to scale: offset carried around a loop
// CHECK: training loop: {{.*}}cxx-range-for-layers.cu:30 (heuristic: 1 op sites) in main
// CHECK: loops: 1
// CHECK: #0 {{.*}}forward -> scale {{.*}} in loop ? x unknown
