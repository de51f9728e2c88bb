#include "include/layer.h"
__global__ void scale_kernel(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i];
}
__global__ void relu_kernel(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
}
struct Scale : Layer {
  float a;
  explicit Scale(float a_) : a(a_) {}
  void forward(Blob<float> &x, Blob<float> &y) override {
    scale_kernel<<<(x.count() + 255) / 256, 256>>>(y.gpu(), x.gpu(), a, x.count());
  }
};
struct Relu : Layer {
  void forward(Blob<float> &x, Blob<float> &y) override {
    relu_kernel<<<(x.count() + 255) / 256, 256>>>(y.gpu(), x.gpu(), x.count());
  }
};
Layer *make_scale(float a) { return new Scale(a); }
Layer *make_relu() { return new Relu(); }
