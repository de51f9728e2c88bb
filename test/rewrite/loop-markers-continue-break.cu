// The training loop body is bracketed by tidal_iteration_begin/end, and
// every continue, break or return that leaves an iteration runs
// tidal_iteration_end first; jumps of nested loops and switches do not.
// RUN: sed -e 's@// *CHECK[-A-Z]*:.*@//@' %s > %t.cu
// RUN: %tidal rewrite %t.cu --plan none -o %t.out.cu -- %stubflags
// RUN: FileCheck %s < %t.out.cu
#define N 4096
__global__ void k(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.0f;
}
int main(int argc, char **argv) {
  float *x;
  cudaMalloc(&x, N * sizeof(float));
// CHECK: for (int step = 0; step < 10; step++) { TIDAL_CHECK(tidal_iteration_begin());
  for (int step = 0; step < 10; step++) {
// CHECK: if (step == 1) { TIDAL_CHECK(tidal_iteration_end()); continue; }
    if (step == 1) continue;
// CHECK: for (int j = 0; j < 2; j++) if (j == argc) break;
    for (int j = 0; j < 2; j++) if (j == argc) break;
// CHECK: switch (argc) { case 7: break; }
    switch (argc) { case 7: break; }
// CHECK: if (step == 8) { TIDAL_CHECK(tidal_iteration_end()); TIDAL_SHUTDOWN_OR_EXIT(); return 3; }
    if (step == 8) return 3;
    k<<<N / 256, 256>>>(x, N);
// CHECK: if (step == 9) { TIDAL_CHECK(tidal_iteration_end()); break; }
    if (step == 9) break;
// CHECK: TIDAL_CHECK(tidal_iteration_end()); }
  }
  return 0;
}
