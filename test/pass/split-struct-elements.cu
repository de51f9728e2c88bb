// Struct values in an elementwise kernel (split.c, Note [elementwise
// split]): copying a float4 element in and out uses its implicit copy
// constructor and assignment (member by member: still element i); a local
// struct's constructor is checked like any helper, its member initializers
// included, so one reading threadIdx refuses.
// RUN: %tidal kernels %s -- %stubflags | FileCheck %s

__global__ void vec4(float4 *out, const float4 *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float4 v = in[i];
    v.x *= 2.0f;
    out[i] = v;
  }
}
// CHECK-LABEL: kernel vec4
// CHECK: split: count=n{{$}}

struct Pair {
  float a, b;
  __device__ Pair(float x) : a(x), b(2.0f * x) {}
};
__global__ void pair_sum(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    Pair p(in[i]);
    out[i] = p.a + p.b;
  }
}
// CHECK-LABEL: kernel pair_sum
// CHECK: split: count=n{{$}}

struct Lane {
  float a;
  __device__ Lane(float x) : a(x + threadIdx.x) {}
};
__global__ void lane_sum(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    Lane l(in[i]);
    out[i] = l.a;
  }
}
// CHECK-LABEL: kernel lane_sum
// CHECK: split: no why="uses threadIdx beyond the global index"
