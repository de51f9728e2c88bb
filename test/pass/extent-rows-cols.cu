// Row/column indexing bounded by both guards covers R*C elements; a
// three-level b*T*C + t*C + c index covers B*T*C.
// RUN: %tidal kernels %s -- %stubflags | FileCheck %s

__global__ void mat(float *out, const float *in, int R, int C) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < R && col < C) out[row * C + col] = in[col * R + row];
}
// CHECK-LABEL: kernel mat
// CHECK-NEXT: param out: mode=write extent=R*C
// CHECK-NEXT: param in: mode=read extent=C*R

__global__ void btc(float *out, const float *inp, int B, int T, int C) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= B * T) return;
  int b = idx / T;
  int t = idx % T;
  for (int c = 0; c < C; c++) out[b * T * C + t * C + c] = inp[b * T * C + t * C + c];
}
// CHECK-LABEL: kernel btc
// CHECK-NEXT: param out: mode=write extent=B*T*C
// CHECK-NEXT: param inp: mode=read extent=B*T*C
