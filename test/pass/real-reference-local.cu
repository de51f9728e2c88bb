// Writes through a C++ reference bound to an element (`float &r = out[i];
// r = v;`, `auto &acc = dbias[c]; acc += ...`, a helper's `float &dst`)
// are writes of that parameter, not reads.
// RUN: %tidal kernels %s -- %stubflags | FileCheck %s

__global__ void ref_store(float *out, const float *in, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) {
    float &r = out[i];
    r = in[i];
  }
}
// CHECK-LABEL: kernel ref_store
// CHECK-NEXT: param out: mode=write extent=N elem=float bytes=4 dense=no
// CHECK-NEXT: param in: mode=read extent=N

__global__ void bias_backward(float *dbias, const float *dout, int N, int C) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= C) return;
  auto &acc = dbias[c];
  for (int n = 0; n < N; n++) acc += dout[n * C + c];
}
// CHECK-LABEL: kernel bias_backward
// CHECK-NEXT: param dbias: mode=readwrite extent=C elem=float bytes=4
// CHECK-NEXT: param dout: mode=read extent=N*C

__device__ void put(float &dst, float v) { dst = v; }
__global__ void ref_param(float *out, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) put(out[i], 1.f);
}
// CHECK-LABEL: kernel ref_param
// CHECK-NEXT: param out: mode=write extent=N elem=float bytes=4 dense=no

__global__ void ref_to_pointer(float *out, int N) {
  float *&q = out;
  q[threadIdx.x] = 0.f;
}
// CHECK-LABEL: kernel ref_to_pointer
// CHECK-NEXT: param out: mode=readwrite extent=unknown elem=float bytes=4 why="pointer bound to a reference"
