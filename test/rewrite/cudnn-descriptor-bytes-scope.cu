// A descriptor's bytes are named in the training loop's scope (`4*B*l.ch*
// l.hw*l.hw`, main's names), so they are declared at an op in main, but not
// at an op inside a method, where `l` names the method's own float *
// parameter: there the extent is declared to the end of the allocation
// (TIDAL_EXTENT_UNKNOWN), with the reason.  Once constructor reference
// parameters were bound, the method's declaration read `(size_t)(l.ch)` of
// a float * and did not compile (lenet's `conv2`).
// RUN: %tidal rewrite %s -o - -- %stubflags | FileCheck %s
#include <cuda_runtime.h>
#include <cudnn.h>

struct Layer {
  int ch, hw;
  Layer(int c, int h) : ch(c), hw(h) {}
};

struct Net {
  cudnnHandle_t h;
  cudnnTensorDescriptor_t t;
  Net(int b, Layer &l) {
    cudnnCreate(&h);
    cudnnCreateTensorDescriptor(&t);
    cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, b, l.ch, l.hw, l.hw);
  }
  void Relu(float *l, float *out) {
    const float one = 1.0f, zero = 0.0f;
    cudnnActivationForward(h, 0, &one, t, l, &zero, t, out);
  }
};

int main() {
  const int B = 2;
  Layer l(3, 8);
  Net net(B, l);
  float *x, *y, *z;
  cudaMalloc(&x, B * 3 * 8 * 8 * sizeof(float));
  cudaMalloc(&y, B * 3 * 8 * 8 * sizeof(float));
  cudaMalloc(&z, B * 3 * 8 * 8 * sizeof(float));
  for (int step = 0; step < 4; step++) {
    net.Relu(x, y);
    cudnnActivationForward(net.h, 0, &x, net.t, y, &y, net.t, z);
  }
  return 0;
}

// CHECK-LABEL: void Relu(float *l, float *out) {
// CHECK-NOT: l.ch
// CHECK: {(const void *)(l), TIDAL_EXTENT_UNKNOWN, TIDAL_READ}, /* extent unknown: its size (a descriptor's, set up in another scope) names what is not in scope at this op */
// CHECK-LABEL: int main() {
// CHECK: {(const void *)(y), (size_t)4*(size_t)(B)*(size_t)(l.ch)*(size_t)(l.hw)*(size_t)(l.hw), TIDAL_READ}
