// __device__ helpers that compute an address or an index: their return
// value is followed (`row_ptr(out, r, C)` is `out + r*C`, `idx2(r, c, C)`
// is `r*C + c`), so the row-per-thread store stays exact and dense.
// RUN: %tidal kernels %s -- %stubflags | FileCheck %s

__device__ float *row_ptr(float *base, int row, int C) { return base + row * C; }
__device__ int idx2(int r, int c, int C) { return r * C + c; }

__global__ void zero_rows(float *out, int N, int C) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < N) {
    float *p = row_ptr(out, r, C);
    for (int c = 0; c < C; c++) p[c] = 0.f;
  }
}
// CHECK-LABEL: kernel zero_rows
// CHECK-NEXT: param out: mode=write extent=N*C elem=float bytes=4 dense=yes threads_needed=N

__global__ void copy_rows(float *out, const float *in, int N, int C) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < N)
    for (int c = 0; c < C; c++) out[idx2(r, c, C)] = in[idx2(r, c, C)];
}
// CHECK-LABEL: kernel copy_rows
// CHECK-NEXT: param out: mode=write extent=N*C elem=float bytes=4 dense=yes threads_needed=N
// CHECK-NEXT: param in: mode=read extent=N*C

// Returns that disagree: one buffer at different offsets is an unknown
// offset into it; a returned pointer nobody follows escapes.
__device__ float *pick(float *a, int i, int k) {
  if (k) return a + i;
  return a;
}
__global__ void picked(float *out, float *keep, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) *pick(out, i, N) = 0.f;
  row_ptr(keep, i, N);
}
// CHECK-LABEL: kernel picked
// CHECK-NEXT: param out: mode=write extent=unknown
// CHECK-NEXT: param keep: mode=readwrite extent=unknown elem=float bytes=4 why="pointer returned by a helper escapes"
