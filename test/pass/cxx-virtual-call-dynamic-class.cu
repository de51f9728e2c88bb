// C++ virtual dispatch through a base pointer runs the override of the
// object's dynamic class, known from its construction (a declared object,
// `new`, make_unique): interp_indirect.c, Note [indirect calls] in
// callees.c.  Before: the base class's definition only (a note), so
// Relu's op was missing from the graph and Scale's ran in its place.
// Where the class is not known (an object from a function without a body
// here), every override is walked, its ops marked as ones that may not run
// (writes not taken as overwrites: no drop relies on them).
// RUN: %tidal graph %s -- %stubflags 2>&1 | FileCheck %s
// RUN: %tidal graph %s --format json -- %stubflags 2>/dev/null | FileCheck --check-prefix=JSON %s
// Both candidates' op sites are instrumented: the run-time record sees
// the one that ran.
// RUN: %tidal rewrite %s -o %t.cu -- %stubflags 2>/dev/null
// RUN: grep -v "^// " %t.cu | FileCheck --check-prefix=SITES %s
// SITES: op site {{[0-9]+}}: forward -> scale_kernel
// SITES: TIDAL_OP_BEGIN
// SITES: op site {{[0-9]+}}: forward -> relu_kernel
// SITES: TIDAL_OP_BEGIN
#include <memory>
__global__ void scale_kernel(float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] *= 2.f;
}
__global__ void relu_kernel(float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = y[i] > 0.f ? y[i] : 0.f;
}
struct Layer {
  float *y;
  int n;
  virtual ~Layer() {}
  virtual void forward() { scale_kernel<<<(n + 255) / 256, 256>>>(y, n); }
};
struct Relu : Layer {
  void forward() override { relu_kernel<<<(n + 255) / 256, 256>>>(y, n); }
};
Layer *opaque_layer(); /* defined elsewhere: its class is not known here */
int main() {
  Relu r;
  r.n = 1024;
  cudaMalloc((void **)&r.y, 1024 * sizeof(float));
  Layer *layer = &r;
  std::unique_ptr<Layer> owned = std::make_unique<Relu>();
  owned->n = 512;
  cudaMalloc((void **)&owned->y, 512 * sizeof(float));
  Layer *other = opaque_layer();
  for (int step = 0; step < 10; step++) {
    layer->forward();
    owned->forward();
    other->forward();
  }
  return 0;
}
// CHECK: cxx-virtual-call-dynamic-class.cu:[[@LINE-4]]:5: warning: virtual call of 'forward' on an object whose class is not known: which of 2 candidate functions runs is not known here
// CHECK: #0 {{.*}}forward -> relu_kernel
// CHECK-NEXT: readwrite r.y{{ +}}4*r.n = 4.0 KiB
// CHECK: #1 {{.*}}forward -> relu_kernel
// CHECK-NEXT: readwrite (*owned).y{{ +}}2.0 KiB
// CHECK: #2 {{.*}}forward -> scale_kernel
// CHECK: #3 {{.*}}forward -> relu_kernel
// CHECK-NOT: #4
// JSON: "callee": "relu_kernel"{{.*}}"maybe": 0
// JSON: "callee": "relu_kernel"{{.*}}"maybe": 0
// JSON: "callee": "scale_kernel"{{.*}}"maybe": 1
// JSON: "callee": "relu_kernel"{{.*}}"maybe": 1
