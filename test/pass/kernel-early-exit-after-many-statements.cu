// `if (i >= n) { ...; return; }` guards the code after it however many
// statements come before the return: the store to out[i] below covers n
// elements, not the whole grid.  (The analysis once looked at the block's
// 16th statement for the return, so a longer block was no early exit.)
// RUN: %tidal kernels %s -- %stubflags | FileCheck %s

__global__ void tail(float *out, int *log, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) {
    log[0] = 1; log[0] = 2; log[0] = 3; log[0] = 4;
    log[0] = 5; log[0] = 6; log[0] = 7; log[0] = 8;
    log[0] = 9; log[0] = 10; log[0] = 11; log[0] = 12;
    log[0] = 13; log[0] = 14; log[0] = 15; log[0] = 16;
    return;
  }
  out[i] = 2.0f;
}
// CHECK-LABEL: kernel tail
// CHECK-NEXT: param out: mode=write extent=n elem=float bytes=4
// CHECK-NEXT: param log: mode=write extent=1 elem=int bytes=4
