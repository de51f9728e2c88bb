// cuDNN op sites: tensor sizes come from the descriptor setters seen for
// each descriptor variable (cudnnSetTensor4dDescriptor: n*c*h*w*sizeof(type),
// cudnnSetFilter4dDescriptor: k*c*h*w*sizeof(type)).  The output blended
// with a zero beta is written; the workspace is scratch (an exact write of
// its size argument: cuDNN clobbers it and never reads what was there).
// RUN: %tidal graph %s --format json -- %stubflags | FileCheck %s
#include <cuda_runtime.h>
#include <cudnn.h>

int main(void) {
  const int N = 2, C = 3, H = 8, W = 8, K = 4, R = 3, S = 3, P = 6, Q = 6;
  const size_t WS = 4096;
  float *x, *w, *y;
  void *ws;
  cudaMalloc(&x, N * C * H * W * sizeof(float));
  cudaMalloc(&w, K * C * R * S * sizeof(float));
  cudaMalloc(&y, N * K * P * Q * sizeof(float));
  cudaMalloc(&ws, WS);
  cudnnHandle_t h;
  cudnnCreate(&h);
  cudnnTensorDescriptor_t xd, yd;
  cudnnFilterDescriptor_t wd;
  cudnnConvolutionDescriptor_t cd;
  cudnnCreateTensorDescriptor(&xd);
  cudnnCreateTensorDescriptor(&yd);
  cudnnCreateFilterDescriptor(&wd);
  cudnnCreateConvolutionDescriptor(&cd);
  cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, C, H, W);
  cudnnSetFilter4dDescriptor(wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, K, C, R, S);
  cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, K, P, Q);
  cudnnSetConvolution2dDescriptor(cd, 0, 0, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);
  const float one = 1.0f, zero = 0.0f;
#pragma tidal train
  for (int step = 0; step < 3; step++) {
    cudnnConvolutionForward(h, &one, xd, x, wd, w, cd, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, ws,
                            WS, &zero, yd, y);
  }
  return 0;
}

// CHECK:      "kind": "library", "callee": "cudnnConvolutionForward"
// CHECK:      "mode": "read", "bytes": "4*N*C*H*W", "bytes_value": 1536, {{.*}}"exact": true, {{.*}}"pointer": "x", {{.*}}"param": "x"
// CHECK-NEXT: "mode": "read", "bytes": "4*K*C*R*S", "bytes_value": 432, {{.*}}"exact": true, {{.*}}"pointer": "w", {{.*}}"param": "w"
// CHECK-NEXT: "mode": "write", "bytes": "WS", "bytes_value": 4096, {{.*}}"exact": true, {{.*}}"pointer": "ws", {{.*}}"param": "workspace"
// CHECK-NEXT: "mode": "write", "bytes": "4*N*K*P*Q", "bytes_value": 1152, {{.*}}"exact": true, {{.*}}"pointer": "y", {{.*}}"param": "y"
