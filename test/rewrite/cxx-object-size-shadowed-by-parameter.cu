// A size named after a loop-level object (`layer.n`, from a descriptor set
// by the object's constructor) used by an op inside a method whose
// parameter has the object's name (`float *layer`): the rewrite writes the
// size's value there, not `layer.n` (which names the float pointer: the
// rewritten program did not compile), and not a name of main() inside the
// method.
// RUN: sed -e 's@// *CHECK[-A-Z]*:.*@//@' %s > %t.cu
// RUN: %tidal rewrite %t.cu -o - -- %stubflags 2>/dev/null | FileCheck %s
#include <cuda_runtime.h>
#include <cudnn.h>
struct Act {
  cudnnHandle_t h;
  cudnnTensorDescriptor_t d;
  cudnnActivationDescriptor_t a;
  int n;
  explicit Act(int n_) : n(n_) {
    cudnnCreate(&h);
    cudnnCreateTensorDescriptor(&d);
    cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, 1, 1, 1);
  }
  void forward(const float *layer, float *y) {
    const float one = 1.f, zero = 0.f;
    cudnnActivationForward(h, a, &one, d, layer, &zero, d, y);
  }
};
int main() {
  float *x, *y;
  cudaMalloc((void **)&x, 1024 * sizeof(float));
  cudaMalloc((void **)&y, 1024 * sizeof(float));
  Act layer(1024);
  for (int step = 0; step < 10; step++) layer.forward(x, y);
  return 0;
}
// CHECK: {(const void *)(layer), ((size_t)4096), TIDAL_READ},
// CHECK-NEXT: {(const void *)(y), ((size_t)4096), TIDAL_WRITE},
// CHECK-NOT: layer.n
