// cuDNN extents from descriptors a C++ class sets up in its constructor:
// the layer sizes reach the constructor through reference parameters, a
// helper method sets the input and filter descriptors through reference
// parameters bound to fields, and the output shape is read back with
// cudnnGetConvolution2dForwardOutputDim (1 + (16 + 2*1 - 3) / 1 = 16 with
// pad 1, so conv out = 4*N*K*16*16).  Each tensor gets its descriptor's
// bytes, exact; beta is a non-const local 0.0f only ever passed as &beta to
// const pointer parameters, so outputs are writes (a beta that may be
// assigned keeps its output readwrite); the workspace is scratch.
// Before: every extent was unknown (constructor reference parameters were
// not bound, the output-dim query was opaque) and every output readwrite.
// RUN: %tidal graph %s --format json -- %stubflags | FileCheck %s
#include <cuda_runtime.h>
#include <cudnn.h>

struct Conv {
  int in_ch, out_ch, k, hw;
  Conv(int i, int o, int k_, int hw_) : in_ch(i), out_ch(o), k(k_), hw(hw_) {}
};

struct Net {
  cudnnHandle_t h;
  cudnnTensorDescriptor_t xT, yT, pT;
  cudnnFilterDescriptor_t wD;
  cudnnConvolutionDescriptor_t cD;
  cudnnPoolingDescriptor_t poolD;
  int batch;
  size_t ws;

  Net(int b, Conv &conv) {
    batch = b;
    ws = 1 << 16;
    cudnnCreate(&h);
    cudnnCreateTensorDescriptor(&xT);
    cudnnCreateTensorDescriptor(&yT);
    cudnnCreateTensorDescriptor(&pT);
    cudnnCreateFilterDescriptor(&wD);
    cudnnCreateConvolutionDescriptor(&cD);
    cudnnCreatePoolingDescriptor(&poolD);
    SetConv(conv, xT, yT, wD, cD);
    cudnnSetTensor4dDescriptor(pT, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, batch, conv.out_ch,
                               conv.hw / 2, conv.hw / 2);
  }

  void SetConv(Conv &c, cudnnTensorDescriptor_t &src, cudnnTensorDescriptor_t &dst,
               cudnnFilterDescriptor_t &filt, cudnnConvolutionDescriptor_t &conv) {
    int n = batch, ch = c.in_ch, hh = c.hw, w = c.hw;
    cudnnSetTensor4dDescriptor(src, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, ch, hh, w);
    cudnnSetFilter4dDescriptor(filt, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, c.out_ch, c.in_ch, c.k,
                               c.k);
    cudnnSetConvolution2dDescriptor(conv, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                    CUDNN_DATA_FLOAT);
    cudnnGetConvolution2dForwardOutputDim(conv, src, filt, &n, &ch, &hh, &w);
    cudnnSetTensor4dDescriptor(dst, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, ch, hh, w);
  }

  void Forward(float *x, float *w, float *y, float *p, void *work) {
    float alpha = 1.0f, beta = 0.0f;
    cudnnConvolutionForward(h, &alpha, xT, x, wD, w, cD, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM,
                            work, ws, &beta, yT, y);
    cudnnPoolingForward(h, poolD, &alpha, yT, y, &beta, pT, p);
  }

  // beta starts at 0 but may be set: the output stays readwrite
  void PoolAccumulate(float *y, float *p, int accumulate) {
    float alpha = 1.0f, beta = 0.0f;
    if (accumulate) beta = 1.0f;
    cudnnPoolingForward(h, poolD, &alpha, yT, y, &beta, pT, p);
  }
};

int main() {
  Conv conv(3, 8, 3, 16);
  Net net(4, conv);
  float *x, *w, *y, *p;
  void *work;
  cudaMalloc(&x, 4 * 3 * 16 * 16 * sizeof(float));
  cudaMalloc(&w, 8 * 3 * 3 * 3 * sizeof(float));
  cudaMalloc(&y, 4 * 8 * 16 * 16 * sizeof(float));
  cudaMalloc(&p, 4 * 8 * 8 * 8 * sizeof(float));
  cudaMalloc(&work, 1 << 16);
  for (int step = 0; step < 10; step++) {
    net.Forward(x, w, y, p, work);
    net.PoolAccumulate(y, p, step % 2);
  }
  return 0;
}

// CHECK:      "callee": "cudnnConvolutionForward"
// CHECK:      "mode": "read", {{.*}}"bytes_value": 12288, {{.*}}"exact": true, {{.*}}"pointer": "x",
// CHECK-NEXT: "mode": "read", {{.*}}"bytes_value": 864, {{.*}}"exact": true, {{.*}}"pointer": "w",
// CHECK-NEXT: "mode": "write", {{.*}}"bytes_value": 65536, {{.*}}"exact": true, {{.*}}"pointer": "work",
// CHECK-NEXT: "mode": "write", {{.*}}"bytes_value": 32768, {{.*}}"exact": true, {{.*}}"pointer": "y",
// CHECK:      "callee": "cudnnPoolingForward"
// CHECK:      "mode": "read", {{.*}}"bytes_value": 32768, {{.*}}"exact": true, {{.*}}"pointer": "y",
// CHECK-NEXT: "mode": "write", {{.*}}"bytes_value": 8192, {{.*}}"exact": true, {{.*}}"pointer": "p",
// CHECK:      "label": "PoolAccumulate -> cudnnPoolingForward"
// CHECK:      "mode": "read", {{.*}}"pointer": "y",
// CHECK-NEXT: "mode": "readwrite", {{.*}}"bytes_value": 8192, {{.*}}"exact": true, {{.*}}"pointer": "p",
