// A project header holding the op sites: an inline launch helper and a
// class whose member function launches.
#pragma once
__global__ void add_kernel(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] += in[i];
}
inline void add(float *out, const float *in, int n) {
  add_kernel<<<(n + 255) / 256, 256>>>(out, in, n);
}
struct Layer {
  float *w;
  int n;
  void forward(float *x) { add_kernel<<<(n + 255) / 256, 256>>>(x, w, n); }
};
