// Pointers walked with ++: a pointer loop variable and `*o++ = v` still
// write their parameter (with an unknown extent: the walk is not bounded),
// never "none".
// RUN: %tidal kernels %s -- %stubflags | FileCheck %s

__global__ void zero_by_pointer(float *out, int N) {
  for (float *p = out; p < out + N; p++) *p = 0.f;
}
// CHECK-LABEL: kernel zero_by_pointer
// CHECK-NEXT: param out: mode=write extent=unknown elem=float bytes=4

__global__ void row_postinc(float *out, const float *in, int N, int C) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < N) {
    float *o = out + r * C;
    const float *x = in + r * C;
    for (int c = 0; c < C; c++) *o++ = *x++;
  }
}
// CHECK-LABEL: kernel row_postinc
// CHECK-NEXT: param out: mode=write extent=unknown elem=float bytes=4
// CHECK-NEXT: param in: mode=read extent=unknown elem=float bytes=4

__global__ void preinc_first(float *out, int N) {
  float *p = out;
  *++p = 1.f;
}
// CHECK-LABEL: kernel preinc_first
// CHECK-NEXT: param out: mode=write extent=2 elem=float bytes=4
