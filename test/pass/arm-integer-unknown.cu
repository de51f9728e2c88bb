// An integer set in an arm whose condition is not known (`if (argc > 2)
// m = 0;`) is unknown after the if, since either path may run: the launch's
// extent 4*m stays symbolic (the rewriter writes the run-time expression)
// and is never taken as the arm's 0 bytes, which declared nothing of x to
// the runtime on the path that keeps m = n (before: "4*m = 0 B").
// RUN: %tidal graph %s -- %stubflags 2>&1 | FileCheck %s
// CHECK: 1 of 1 accesses resolved
// CHECK: readwrite x{{ +}}4*m (upper bound){{$}}
// An integer the arm leaves at its old value keeps it.
// RUN: %tidal graph %s -- %stubflags -DSAME 2>&1 | FileCheck %s --check-prefix=SAME
// SAME: readwrite x{{ +}}4*m = 4.0 MiB (upper bound)
__global__ void scale(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2.0f;
}
int main(int argc, char **argv) {
  float *x;
  int n = 1 << 20;
  cudaMalloc(&x, n * sizeof(float));
  int m = n;
#ifdef SAME
  if (argc > 2) m = n;
#else
  if (argc > 2) m = 0;
#endif
  for (int step = 0; step < 100; step++)
    scale<<<(n + 255) / 256, 256>>>(x, m);
  cudaFree(x);
  return 0;
}
