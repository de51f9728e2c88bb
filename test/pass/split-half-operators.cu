// Element types that are plain structs (the stub __half here, a user's
// own bf16 struct): `h[i] = x` is a call of the struct's implicit
// (defaulted) copy or move assignment, which only copies members, and
// `h[i] += x` of a free operator+= with a body, checked here.  Both
// assign element i, so a mixed-precision AdamW (half grads in, float
// master and moments, half params out) is elementwise.  An operator whose
// body the project defines is still checked: one that writes a global is
// refused.
// RUN: %tidal kernels %s -- %stubflags | FileCheck %s

__device__ __half to_h(float x);
__device__ float to_f(__half h);
__device__ __half &operator+=(__half &a, const __half &b) {
  a.x += b.x;
  return a;
}

__global__ void adamw_mixed(__half *p16, float *master, const __half *g16, float *m, float *v,
                            int n, float lr, float inv_scale) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float g = to_f(g16[i]) * inv_scale;
  m[i] = 0.9f * m[i] + 0.1f * g;
  v[i] = 0.999f * v[i] + 0.001f * g * g;
  master[i] -= lr * m[i] / (sqrtf(v[i]) + 1e-8f);
  p16[i] = to_h(master[i]);
}
// CHECK-LABEL: kernel adamw_mixed
// CHECK: split: count=n{{$}}

__global__ void copy_half(__half *dst, const __half *src, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dst[i] = src[i];
}
// CHECK-LABEL: kernel copy_half
// CHECK: split: count=n{{$}}

__global__ void accumulate(__half *acc, const __half *g, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) acc[i] += g[i];
}
// CHECK-LABEL: kernel accumulate
// CHECK: split: count=n{{$}}

__device__ float last_seen;
struct Probe {
  float x;
  __device__ Probe &operator=(float y) {
    last_seen = y;
    x = y;
    return *this;
  }
};
__global__ void probe(Probe *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}
// CHECK-LABEL: kernel probe
// CHECK: split: no why="uses global 'last_seen'"
