// Issue 8, idiom 14: extents for common index forms.  A guard bounds the
// value it tests wherever that value went (Note [guards narrow values]): a
// row pointer `x = inp + idx * C` taken before `if (idx >= N) return;`, a
// guard on an expression (`if (4 * i < N)`), float4 loads and stores through
// casts of a row pointer or of `&x[4 * i]`.  Code that can run without the
// guard does not see it.
// RUN: %tidal kernels %s -- %stubflags | FileCheck %s

__global__ void row_pointer_before_guard(float *out, const float *inp, int N, int C) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  const float *x = inp + idx * C;
  float *o = out + idx * C;
  if (idx >= N) { return; }
  for (int i = 0; i < C; i++) o[i] = x[i] * 2.0f;
}
// CHECK-LABEL: kernel row_pointer_before_guard
// CHECK-NEXT: param out: mode=write extent=N*C elem=float
// CHECK-NEXT: param inp: mode=read extent=N*C elem=float

__global__ void row_pointer_if_guard(float *out, const float *inp, int N, int C) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  const float *x = inp + idx * C;
  if (idx < N) {
    float s = 0.0f;
    for (int i = 0; i < C; i++) s += x[i];
    out[idx] = s;
  }
}
// CHECK-LABEL: kernel row_pointer_if_guard
// CHECK-NEXT: param out: mode=write extent=N elem=float bytes=4 dense=yes threads_needed=N
// CHECK-NEXT: param inp: mode=read extent=N*C elem=float

// The guard holds only inside its branch: the read after it is bounded by
// the launch only (Note [launch bounds]).
__global__ void guard_scope_ends(float *out, const float *inp, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float *x = inp + i;
  if (i < N) out[i] = x[0];
  out[0] += x[1];
}
// CHECK-LABEL: kernel guard_scope_ends
// CHECK: param inp: mode=read extent=max(N, gridDim.x*blockDim.x + 1)

__global__ void float4_cast_of_element(float *out, const float *inp, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (4 * i < N) {
    float4 v = *(const float4 *)&inp[4 * i];
    *reinterpret_cast<float4 *>(out + 4 * i) = v;
  }
}
// CHECK-LABEL: kernel float4_cast_of_element
// CHECK-NEXT: param out: mode=write extent=4*(N + 3)/4 elem=float
// CHECK-NEXT: param inp: mode=read extent=4*(N + 3)/4 elem=float

__global__ void float4_rows(float *out, const float *inp, int N, int C) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  const float4 *x4 = reinterpret_cast<const float4 *>(inp + idx * C);
  if (idx >= N) return;
  float4 *o4 = reinterpret_cast<float4 *>(out) + idx * (C / 4);
  for (int i = 0; i < C / 4; i++) o4[i] = x4[i];
}
// CHECK-LABEL: kernel float4_rows
// CHECK-NEXT: param out: mode=write extent=4*N*C/4 elem=float
// CHECK-NEXT: param inp: mode=read extent=N*C + 4*C/4 - C elem=float
