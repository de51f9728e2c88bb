// Every cuDNN call of this loop needs more than half the program's bytes
// (pooling backward reads x, y, dy and writes dx: all of them), so no
// budget of 50% can hold one whole (--no-split: refused).  Each is a
// per-sample routine, so it runs over pieces of its batch (Note [batch
// split], include/tidal/cudnn.h; the replay asks tidal_split_batch as the
// wrapper does): at 50% the replay fits with the unmanaged run's checksums
// (its oracle hashes per sample, Note [split-invariant oracle]).  Three
// split: the activation y -> dy (512 KiB) fits half the budget whole.
// RUN: %tidal replay %s --budget 50% --format json -- %stubflags > %t.json
// RUN: FileCheck %s < %t.json
// CHECK-DAG: "checksums_match": true,
// CHECK-DAG: "budget_respected": true,
// CHECK-DAG: "refused": false,
// CHECK-DAG: "splittable_ops": 4,
// CHECK-DAG: "split_ops": 3,
// RUN: not %tidal replay %s --budget 50% --no-split --format json -- %stubflags > %t.no.json
// RUN: FileCheck %s --check-prefix=WHOLE < %t.no.json
// WHOLE: "refused": true,
#include <cudnn.h>

enum { N = 32, C = 8, H = 32, W = 32 };

int main() {
  float *x, *y, *dy, *dx;
  cudaMalloc(&x, N * C * H * W * sizeof(float));
  cudaMalloc(&dx, N * C * H * W * sizeof(float));
  cudaMalloc(&y, N * C * (H / 2) * (W / 2) * sizeof(float));
  cudaMalloc(&dy, N * C * (H / 2) * (W / 2) * sizeof(float));
  cudnnHandle_t h;
  cudnnCreate(&h);
  cudnnTensorDescriptor_t xd, yd;
  cudnnCreateTensorDescriptor(&xd);
  cudnnCreateTensorDescriptor(&yd);
  cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, C, H, W);
  cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, C, H / 2, W / 2);
  cudnnPoolingDescriptor_t pd;
  cudnnCreatePoolingDescriptor(&pd);
  cudnnSetPooling2dDescriptor(pd, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 2, 2, 0, 0, 2, 2);
  cudnnActivationDescriptor_t ad;
  cudnnCreateActivationDescriptor(&ad);
  cudnnSetActivationDescriptor(ad, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0);
  const float one = 1.0f, zero = 0.0f;
  for (int step = 0; step < 4; step++) {
    cudnnPoolingForward(h, pd, &one, xd, x, &zero, yd, y);
    cudnnActivationForward(h, ad, &one, yd, y, &zero, yd, dy);
    cudnnPoolingBackward(h, pd, &one, yd, y, yd, dy, xd, x, &zero, xd, dx);
    cudnnActivationForward(h, ad, &one, xd, dx, &zero, xd, x);
  }
  return 0;
}
