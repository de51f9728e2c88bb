// A per-sample cuDNN call (pooling, activation, softmax) becomes its
// tidal/cudnn.h wrapper's, which may run it over pieces of the batch
// (rewrite_batch.c, Note [batch split call]): the site and the pass's
// accesses go in front of the routine's own arguments, the arguments are
// not wrapped in TIDAL_AT (the wrapper resolves them), and no op_begin is
// written around it.  Inside a macro's argument too (the corpus LeNet's
// checkCUDNN), and in a return statement.  A call of another routine
// (cudnnAddTensor) stays a plain op; with --no-split every call is one.
// RUN: sed -e 's@// *[A-Z]*[-A-Z]*:.*@//@' %s > %t.cu
// RUN: %tidal rewrite %t.cu -o - -- %stubflags | FileCheck %s
// RUN: %tidal rewrite %t.cu -o - --no-split -- %stubflags | FileCheck %s --check-prefix=NOSPLIT
// RUN: %tidal graph %t.cu -- %stubflags | FileCheck %s --check-prefix=GRAPH
#include <cudnn.h>
#define CHECK(x) do { if ((x) != CUDNN_STATUS_SUCCESS) return 1; } while (0)

enum { N = 16, C = 8, H = 16, W = 16 };
static const float one = 1.0f, zero = 0.0f;

static cudnnStatus_t act(cudnnHandle_t h, cudnnActivationDescriptor_t a, cudnnTensorDescriptor_t d,
                         const float *x, float *y) {
  return cudnnActivationForward(h, a, &one, d, x, &zero, d, y);
}

int main() {
  float *x, *y, *z, *dy, *dx;
  cudaMalloc(&x, N * C * H * W * sizeof(float));
  cudaMalloc(&z, N * C * H * W * sizeof(float));
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
  for (int step = 0; step < 4; step++) {
    CHECK(act(h, ad, xd, x, z));
    CHECK(cudnnPoolingForward(h, pd, &one, xd, z, &zero, yd, y));
    CHECK(cudnnPoolingBackward(h, pd, &one, yd, y, yd, dy, xd, z, &zero, xd, dx));
    cudnnAddTensor(h, &one, xd, dx, &one, xd, x);
  }
  return 0;
}

// CHECK: #include "tidal/rewrite.h"
// CHECK-NEXT: #include "tidal/cudnn.h"
// CHECK: { /* tidal: op site 0: act -> cudnnActivationForward; runs over pieces of its batch when its tensors take more than half the budget (tidal_cudnnActivationForward, tidal/cudnn.h) */
// CHECK: {(const void *)(x), {{.*}}, TIDAL_READ},
// CHECK-NEXT: {(const void *)(y), {{.*}}, TIDAL_WRITE},
// CHECK-NEXT: };
// CHECK-NOT: TIDAL_OP_BEGIN
// CHECK: return tidal_cudnnActivationForward(&tidal_site_0, 2, tidal_acc_0, h, a, &one, d, x, &zero, d, y); }
// CHECK: runs over pieces of its batch when its tensors take more than half the budget (tidal_cudnnPoolingForward, tidal/cudnn.h) */
// CHECK: CHECK(tidal_cudnnPoolingForward(&tidal_site_{{[0-9]+}}, 2, tidal_acc_{{[0-9]+}}, h, pd, &one, xd, z, &zero, yd, y)); }
// CHECK: CHECK(tidal_cudnnPoolingBackward(&tidal_site_{{[0-9]+}}, 4, tidal_acc_{{[0-9]+}}, h, pd, &one, yd, y, yd, dy, xd, z, &zero, xd, dx)); }
// CHECK: TIDAL_OP_BEGIN
// CHECK: cudnnAddTensor(h, &one, xd, TIDAL_AT(dx), &one, xd, TIDAL_AT(x));
// CHECK-NOT: tidal_cudnnAddTensor

// NOSPLIT-NOT: #include "tidal/cudnn.h"
// NOSPLIT-NOT: tidal_cudnnPooling
// NOSPLIT: cudnnPoolingForward(h, pd, &one, xd, TIDAL_AT(z), &zero, yd, TIDAL_AT(y))

// GRAPH: act -> cudnnActivationForward {{.*}} split over its batch of 16
// GRAPH: cudnnPoolingForward {{.*}} split over its batch of 16
// GRAPH: cudnnPoolingBackward {{.*}} split over its batch of 16
// GRAPH-NOT: split
// GRAPH: cudnnAddTensor
