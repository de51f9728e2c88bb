// A cudaLaunchKernel in a function below the training loop: the count it
// passes through its argument array is main's `N` to the interpreter (read
// from argv), no name inside step().  Unbound, the extent is the element
// the kernel reads, `*(int *)(args)[1]`, in scope at the op; it used to be
// `4*N` there (the rewritten program did not compile).  Bound, the value.
// (pass/graph/opsites.c, Note [launch arrays at the op].)
// RUN: sed -e 's@// *CHECK[-A-Z]*:.*@//@' %s > %t.cu
// RUN: %tidal rewrite %t.cu -o - -- %stubflags 2>/dev/null | FileCheck %s
// RUN: %tidal rewrite %t.cu -o - --bind N=100 -- %stubflags 2>/dev/null \
// RUN:   | FileCheck %s --check-prefix=CHECKBOUND
#include <stdlib.h>
__global__ void scale(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2.f;
}
void step(float *x, int n) {
  void *args[] = {&x, &n};
  cudaLaunchKernel((const void *)scale, dim3((n + 255) / 256), dim3(256), args, 0, 0);
}
int main(int argc, char **argv) {
  int N = atoi(argv[1]);
  float *x;
  cudaMalloc(&x, sizeof(float) * N);
  for (int it = 0; it < 10; it++) step(x, N);
  return 0;
}
// CHECK: void step(
// CHECK: {(const void *)(*(float **)(args)[0]), ((size_t)4*(size_t)((*(int *)(args)[1]))), TIDAL_READWRITE},
// CHECK-NOT: (N)
// CHECK: int main(
// CHECKBOUND: {(const void *)(*(float **)(args)[0]), ((size_t)400), TIDAL_READWRITE},
