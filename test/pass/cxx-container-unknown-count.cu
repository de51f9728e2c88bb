// A vector filled in a loop whose trip count is not known before the run
// (a count from argv): the setup loop is walked once for all its
// iterations, so the vector's size is unknown and its elements are not
// taken from that one walk (interp_container.c, Note [container
// elements]).  The range-for over it stays one graph loop of unknown trip
// count whose accesses are unresolved, with warnings - never one layer
// taken for all of them (what a size of 1 from the single walk would give).
// RUN: %tidal graph %s -- %stubflags -std=c++17 2>&1 | FileCheck %s
#include <stdlib.h>
#include <memory>
#include <vector>
__global__ void scale(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.f * x[i];
}
struct Layer {
  float *out;
  Layer() { cudaMalloc((void **)&out, 1024 * sizeof(float)); }
  float *forward(const float *x) {
    scale<<<4, 256>>>(out, x, 1024);
    return out;
  }
};
int main(int argc, char **argv) {
  int depth = argc > 1 ? atoi(argv[1]) : 3;
  std::vector<std::unique_ptr<Layer>> layers;
  for (int i = 0; i < depth; i++) layers.push_back(std::make_unique<Layer>());
  float *x;
  cudaMalloc((void **)&x, 1024 * sizeof(float));
  for (int step = 0; step < 10; step++) {
    const float *h = x;
    for (auto &l : layers) h = l->forward(h);
  }
  return 0;
}
// CHECK: warning: pointer 'out' passed to scale is not traced to a cudaMalloc
// CHECK: ops: 1 static
// CHECK: #0 {{.*}}forward -> scale {{.*}} in loop ? x unknown
// CHECK-NEXT: write (unresolved)
