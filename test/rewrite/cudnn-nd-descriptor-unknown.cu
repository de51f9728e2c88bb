// A tensor described by cudnnSetTensorNdDescriptor (dimensions in an
// array tidal does not read) has an unknown extent: declared to the end of
// its allocation, and the annotation says why (its descriptor), where it
// used to say only that the library-call model gives no bound.  The 4d
// tensor beside it keeps its exact size (written: beta is a const 0).
// RUN: sed -e 's@// *CHECK[-A-Z]*:.*@//@' %s > %t.cu
// RUN: %tidal rewrite %t.cu -o - -- %stubflags | FileCheck %s
#include <cuda_runtime.h>
#include <cudnn.h>

int main() {
  const int N = 2, C = 4, H = 8, W = 8;
  float *x, *y;
  cudaMalloc(&x, N * C * H * W * sizeof(float));
  cudaMalloc(&y, N * C * H * W * sizeof(float));
  cudnnHandle_t h;
  cudnnCreate(&h);
  cudnnTensorDescriptor_t xd, yd;
  cudnnCreateTensorDescriptor(&xd);
  cudnnCreateTensorDescriptor(&yd);
  int dims[4] = {N, C, H, W}, strides[4] = {C * H * W, H * W, W, 1};
  cudnnSetTensorNdDescriptor(xd, CUDNN_DATA_FLOAT, 4, dims, strides);
  cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, C, H, W);
  const float one = 1.0f, zero = 0.0f;
  for (int step = 0; step < 4; step++) cudnnAddTensor(h, &one, xd, x, &zero, yd, y);
  return 0;
}

// CHECK: {(const void *)(x), TIDAL_EXTENT_UNKNOWN, TIDAL_READ}, /* extent unknown: its size comes from a descriptor whose sizes tidal did not see here (an Nd setter's array, a setter it did not follow, or sizes named outside this scope) */
// CHECK-NEXT: {(const void *)(y), ((size_t)4*(size_t)(N)*(size_t)(C)*(size_t)(H)*(size_t)(W)), TIDAL_WRITE},
