// Globals in an elementwise kernel (split.c, Note [elementwise split]):
// __constant__ memory and const scalars are read-only and cannot depend on
// the element, so the kernel still splits; a __device__ variable may be
// written by any thread, so reading it does not.
// RUN: %tidal kernels %s -- %stubflags | FileCheck %s

__constant__ float c_coef[4];
const float kHalf = 0.5f;
__device__ float g_scale;

__global__ void poly(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = in[i];
  out[i] = kHalf * (c_coef[0] + x * (c_coef[1] + x * (c_coef[2] + x * c_coef[3])));
}
// CHECK-LABEL: kernel poly
// CHECK: split: count=n{{$}}

__global__ void scaled(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = g_scale * in[i];
}
// CHECK-LABEL: kernel scaled
// CHECK: split: no why="uses global 'g_scale'"
