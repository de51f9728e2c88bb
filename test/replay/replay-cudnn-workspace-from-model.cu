// A cuDNN program sizes its workspace from cudnnGetConvolution*WorkspaceSize
// at run time (in a member function, through std::max, in an `if (falgo)`
// on a pointer the caller passed): the replay answers those queries from
// its model of the library (the GEMM algorithm's im2col buffer: n*out_h*
// out_w rows by c*r*s columns of the input's type, Note [workspace sizes]
// in pass/analysis/libcalls_formulas.c) instead of demanding a --bind
// (issue 22: lenet needed --bind context.m_workspaceSize=...).  Here
// 64*24*24 * 1*5*5 floats: 3686400 bytes.  A --bind of the size still
// decides it.
// RUN: %tidal graph %s -- %stubflags 2>&1 | FileCheck %s
// CHECK: ops: 2 static, 2 per iteration unrolled
// CHECK: write     work {{ *}}c.m_ws = 3.5 MiB
// RUN: %tidal replay %s --budget 80% --format json -- %stubflags | FileCheck %s --check-prefix=REPLAY
// REPLAY: "checksums_match": true,
// REPLAY: "ok": true
// RUN: %tidal graph %s --bind c.m_ws=1048576 -- %stubflags 2>&1 | FileCheck %s --check-prefix=BIND
// BIND-NOT: warning: --bind
// BIND: write     work {{ *}}c.m_ws = 1.0 MiB
#include <cudnn.h>
#include <algorithm>
struct Ctx {
  cudnnHandle_t h;
  cudnnTensorDescriptor_t xd, yd;
  cudnnFilterDescriptor_t wd;
  cudnnConvolutionDescriptor_t cd;
  size_t m_ws;
  int N;
  size_t fwd(cudnnTensorDescriptor_t &x, cudnnTensorDescriptor_t &y) {
    size_t s = 0;
    cudnnGetConvolutionForwardWorkspaceSize(h, x, wd, cd, y, (cudnnConvolutionFwdAlgo_t)0, &s);
    return s;
  }
  size_t bwd(cudnnTensorDescriptor_t &x, cudnnTensorDescriptor_t &y, int *falgo, int *dalgo) {
    size_t s = 0, t = 0;
    if (falgo) {
      cudnnGetConvolutionBackwardFilterWorkspaceSize(h, x, y, cd, wd,
                                                     (cudnnConvolutionBwdFilterAlgo_t)0, &t);
      s = std::max(s, t);
    }
    if (dalgo) {
      cudnnGetConvolutionBackwardDataWorkspaceSize(h, wd, y, cd, x,
                                                   (cudnnConvolutionBwdDataAlgo_t)0, &t);
      s = std::max(s, t);
    }
    return s;
  }
  Ctx(int n) : N(n) {
    cudnnCreate(&h);
    cudnnCreateTensorDescriptor(&xd);
    cudnnCreateTensorDescriptor(&yd);
    cudnnCreateFilterDescriptor(&wd);
    cudnnCreateConvolutionDescriptor(&cd);
    cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, 1, 28, 28);
    cudnnSetFilter4dDescriptor(wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 20, 1, 5, 5);
    cudnnSetConvolution2dDescriptor(cd, 0, 0, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);
    int on, oc, oh, ow;
    cudnnGetConvolution2dForwardOutputDim(cd, xd, wd, &on, &oc, &oh, &ow);
    cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, on, oc, oh, ow);
    int fa, da;
    size_t w = 0;
    w = std::max(w, fwd(xd, yd));
    w = std::max(w, bwd(xd, yd, &fa, &da));
    m_ws = w;
  }
};
int main(void) {
  Ctx c(64);
  float *x, *y, *wt, *dy, *dw;
  void *work = 0;
  cudaMalloc(&x, 64 * 28 * 28 * 4);
  cudaMalloc(&y, 64 * 20 * 24 * 24 * 4);
  cudaMalloc(&dy, 64 * 20 * 24 * 24 * 4);
  cudaMalloc(&wt, 20 * 25 * 4);
  cudaMalloc(&dw, 20 * 25 * 4);
  if (c.m_ws > 0) cudaMalloc(&work, c.m_ws);
  float one = 1.0f, zero = 0.0f;
  for (int step = 0; step < 10; step++) {
    cudnnConvolutionForward(c.h, &one, c.xd, x, c.wd, wt, c.cd, (cudnnConvolutionFwdAlgo_t)0, work,
                            c.m_ws, &zero, c.yd, y);
    cudnnConvolutionBackwardFilter(c.h, &one, c.xd, x, c.yd, dy, c.cd,
                                   (cudnnConvolutionBwdFilterAlgo_t)0, work, c.m_ws, &zero, c.wd, dw);
  }
  return 0;
}
