// cudaLaunchKernel's argument array written in a macro's body names
// variables of the expansion, which need not exist before the statement
// (the macro may declare them): the rewriter can neither send the pointers
// in it home nor pass it a copy (graph/sitehomes.c, Note [pointer values at
// a site]), so no allocation is relocatable, and the command says why.
// RUN: sed -e 's@// *\(CHECK\|SUM\)[-A-Z]*:.*@//@' %s > %t.cu
// RUN: %tidal rewrite %t.cu --plan none -o %t.out.cu -- %stubflags 2>&1 | FileCheck %s --check-prefix=SUM
// RUN: FileCheck %s < %t.out.cu
#define N 1024
__global__ void axpy(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += 2.0f * x[i];
}
#define AXPY(Y, X) do { void *a_[] = {&(Y), &(X), &n}; \
  cudaLaunchKernel((const void *)axpy, dim3(N / 256), dim3(256), a_, 0, 0); } while (0)
int main(void) {
  float *x, *y;
  int n = N;
// The array's text at the op would be the macro's invocation: nothing is
// declared through it (the header says so), and nothing evaluates it again.
// CHECK: cudaLaunchKernel's argument array is written in a macro's body: the accesses through it are not declared to the runtime
// CHECK: tidal_malloc((void **)(&x), N * sizeof(float))) /* tidal: at home: op site main -> axpy ({{.*}}:[[@LINE+9]]) is passed pointers the pass cannot name (kernel 'axpy': its argument array is written in a macro's body) */
  cudaMalloc(&x, N * sizeof(float));
// CHECK: tidal_malloc((void **)(&y), N * sizeof(float))) /* tidal: at home: op site main -> axpy
  cudaMalloc(&y, N * sizeof(float));
// CHECK-NOT: AXPY(y, x))
// CHECK: TIDAL_OP_BEGIN(&tidal_site_0, 0, NULL);
// CHECK-NEXT: #line
// CHECK-NEXT: AXPY(y, x); TIDAL_OP_END(&tidal_site_0); }
  for (int it = 0; it < 2; it++)
    AXPY(y, x);
  return 0;
}
// SUM: warning: no allocation is relocatable (each stays at home, moved by the driver's mapping calls): op site main -> axpy ({{.*}}:31) is passed pointers the pass cannot name (kernel 'axpy': its argument array is written in a macro's body)
// SUM: 0 of 2 allocations relocatable
