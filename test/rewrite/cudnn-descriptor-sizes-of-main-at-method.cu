// A cuDNN op in a method whose descriptors are members set (in another
// method) from sizes main() computed at run time (`height`, `width`, read
// from argv, as lenet's image size comes from its data file's header).
// The descriptors' bytes are `height * width` and `width - 4` in main's
// names: no names at the op, so without a --bind each extent is unknown
// there (declared to the end of its allocation, readwrite for the write,
// the names in the annotation), never `height * width` (the rewritten
// program did not compile) nor `width - 4` (the method's own parameter
// `width`: it compiles, and declares another variable's size).  Bound,
// they are values.
// RUN: sed -e 's@// *CHECK[-A-Z]*:.*@//@' %s > %t.cu
// RUN: %tidal rewrite %t.cu -o - -- %stubflags 2>/dev/null | FileCheck %s
// RUN: %tidal rewrite %t.cu -o - --bind height=28 --bind width=28 -- %stubflags 2>/dev/null \
// RUN:   | FileCheck %s --check-prefix=CHECKBOUND
#include <cuda_runtime.h>
#include <cudnn.h>
#include <stdlib.h>
struct Layer {
  int in_h, in_w, out_h, out_w;
  Layer(int h, int w, int k) : in_h(h), in_w(w), out_h(h - k + 1), out_w(w - k + 1) {}
};
struct Net {
  cudnnHandle_t h;
  cudnnTensorDescriptor_t xd, yd;
  cudnnActivationDescriptor_t act;
  int batch;
  Net(int b, Layer &l) : batch(b) {
    cudnnCreate(&h);
    cudnnCreateTensorDescriptor(&xd);
    cudnnCreateTensorDescriptor(&yd);
    cudnnCreateActivationDescriptor(&act);
    set(l, xd, yd);
  }
  void set(Layer &l, cudnnTensorDescriptor_t &x, cudnnTensorDescriptor_t &y) {
    int n = batch, hh = l.in_h, ww = l.in_w;
    cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, 1, hh, ww);
    cudnnSetTensor4dDescriptor(y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, 1, 1, l.out_w);
  }
  void forward(float *x, float *y, int width) {
    const float one = 1.f, zero = 0.f;
    if (width > 0) cudnnActivationForward(h, act, &one, xd, x, &zero, xd, x);
    cudnnActivationForward(h, act, &one, yd, y, &zero, yd, y);
  }
};
int main(int argc, char **argv) {
  int height = atoi(argv[1]), width = atoi(argv[2]);
  Layer conv((int)height, (int)width, 5);
  Net net(8, conv);
  float *x, *y;
  cudaMalloc(&x, sizeof(float) * 8 * height * width);
  cudaMalloc(&y, sizeof(float) * 8 * height * width);
  for (int step = 0; step < 10; step++) net.forward(x, y, 1);
  return 0;
}
// CHECK: void forward(
// CHECK-NOT: height
// CHECK: {(const void *)(x), TIDAL_EXTENT_UNKNOWN, TIDAL_READ}, /* extent unknown: its size is in names not in scope at this op ('height', 'width': another function's; --bind gives them values) */
// CHECK-NEXT: {(const void *)(x), TIDAL_EXTENT_UNKNOWN, TIDAL_READWRITE}, /* extent unknown: its size is in names not in scope at this op ('height', 'width': another function's; --bind gives them values) */
// CHECK-NOT: width)
// CHECK: {(const void *)(y), TIDAL_EXTENT_UNKNOWN, TIDAL_READ}, /* extent unknown: its size is in names not in scope at this op ('width': another function's; --bind gives them values) */
// CHECK-NEXT: {(const void *)(y), TIDAL_EXTENT_UNKNOWN, TIDAL_READWRITE},
// CHECK-NOT: height
// CHECK: int main(

// CHECKBOUND: {(const void *)(x), ((size_t)25088), TIDAL_READ},
// CHECKBOUND-NEXT: {(const void *)(x), ((size_t)25088), TIDAL_WRITE},
// CHECKBOUND: {(const void *)(y), ((size_t)768), TIDAL_READ},
// CHECKBOUND-NEXT: {(const void *)(y), ((size_t)768), TIDAL_WRITE},
