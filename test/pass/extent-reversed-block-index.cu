// Blocks run backwards (llm.c's softmax_forward_kernel5, fused_classifier
// kernels): gridDim.x - blockIdx.x - 1 is in [0, gridDim.x) because
// blockIdx.x < gridDim.x (Note [reversed indices]).  Taken apart, each
// builtin is only >= 0 and the difference could be negative: the extent
// was unknown.  An extent never smaller than what the kernel touches.
// RUN: %tidal kernels %s -- %stubflags | FileCheck %s

// One warp per row, rows from the last one, guarded by the row count.
__global__ void rows_backward(float *out, const float *inp, int N, int T) {
  int idx = (gridDim.x - blockIdx.x - 1) * (blockDim.x / 32) + threadIdx.x / 32;
  if (idx >= N * T) return;
  const float *x = inp + idx * T;
  for (int i = threadIdx.x % 32; i < T; i += 32) out[idx * T + i] = x[i];
}
// CHECK-LABEL: kernel rows_backward
// CHECK-NEXT: param out: mode=write extent=T*N*T elem=float
// CHECK-NEXT: param inp: mode=read extent=T*N*T elem=float

// Unguarded: bounded by the launch, as blockIdx.x alone is (Note [launch
// bounds]); other spellings of the same value.
__global__ void unguarded(float *a, float *b, float *c, float *d, int C) {
  a[gridDim.x - blockIdx.x - 1] = 0.0f;
  long r = gridDim.x - (blockIdx.x + 1);
  b[r * C] = 0.0f;
  c[blockDim.x - 1 - threadIdx.x] = 0.0f;
  d[2 * gridDim.x - 2 * blockIdx.x - 2] = 0.0f;
}
// CHECK-LABEL: kernel unguarded
// CHECK-NEXT: param a: mode=write extent=gridDim.x elem=float
// CHECK-NEXT: param b: mode=write extent=gridDim.x*C - C + 1 elem=float
// CHECK-NEXT: param c: mode=write extent=blockDim.x elem=float
// CHECK-NEXT: param d: mode=write extent=2*gridDim.x - 1 elem=float

// Only a dimension and the index below it pair: gridDim.y does not bound
// blockIdx.x, so this index may be negative.
__global__ void mismatched(float *out) {
  out[gridDim.y - blockIdx.x - 1] = 0.0f;
}
// CHECK-LABEL: kernel mismatched
// CHECK-NEXT: param out: mode=write extent=unknown elem=float bytes=4 why="index may be negative"
