// std::unique_ptr<Layer>: make_unique runs the constructor on a heap object,
// `p(new Layer(n))` takes a new-expression, and `a->forward(x)`, `b.get()`
// and `std::move` reach the object the pointer holds, so each launch
// resolves to that layer's buffer.  Before: operator-> and get() were
// opaque calls, and every access through them was unresolved.
// RUN: %tidal graph %s -- %stubflags -std=c++17 2>&1 | FileCheck %s
// RUN: %tidal replay %s --chunk 4K --budget 60%% --format json -- %stubflags -std=c++17 2>/dev/null | FileCheck --check-prefix=REPLAY %s
#include <stdlib.h>
#include <memory>
#include <utility>
__global__ void scale(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i];
}
class Layer {
 public:
  explicit Layer(int n) : n_(n) { cudaMalloc((void **)&out_, n_ * sizeof(float)); }
  ~Layer() { cudaFree(out_); }
  float *forward(const float *x) {
    scale<<<(n_ + 255) / 256, 256>>>(out_, x, 2.f, n_);
    return out_;
  }
  float *out_;
  int n_;
};
struct Net {
  std::unique_ptr<Layer> l1, l2;
  explicit Net(int n) : l1(std::make_unique<Layer>(n)), l2(new Layer(n)) {}
};
int main() {
  float *x;
  cudaMalloc((void **)&x, 2048 * sizeof(float));
  Net net(2048);
  std::unique_ptr<Layer> head = std::make_unique<Layer>(2048);
  std::unique_ptr<Layer> tail;
  tail = std::move(head);
  Layer *raw = net.l2.get();
  for (int step = 0; step < 10; step++) {
    float *h = net.l1->forward(x);
    h = raw->forward(h);
    (*tail).forward(h);
  }
  return 0;
}
// CHECK: managed 4 of 4 allocations
// CHECK-SAME: 6 of 6 accesses resolved
// CHECK: write     (*net.l1).out_
// CHECK: read      x
// CHECK: write     (*net.l2).out_
// CHECK: read      (*net.l1).out_
// CHECK: write     (*head).out_
// CHECK: read      (*net.l2).out_
// CHECK: unresolved (0):
// REPLAY: "checksums_match": true,
// REPLAY: "budget_respected": true,
// REPLAY: "ok": true
