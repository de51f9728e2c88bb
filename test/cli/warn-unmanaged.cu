// What tidal leaves out is a warning at its source line, never silence: an
// allocation written inside a macro body (the rewriter cannot replace it),
// and a pointer the analysis cannot trace to an allocation.  With
// --min-coverage the unmanaged bytes become an error and no output appears.
// RUN: %tidal rewrite %s -o %t.cu -- %stubflags 2>&1 | FileCheck %s
// RUN: not %tidal rewrite %s -o %t2.cu --min-coverage=90 -- %stubflags 2>&1 | FileCheck %s --check-prefix=COV
// RUN: test ! -e %t2.cu
// RUN: not %tidal graph %s -o %t3.txt --min-coverage=90% -- %stubflags 2>&1 | FileCheck %s --check-prefix=COV
// RUN: %tidal graph %s -o %t4.txt --min-coverage=10 -- %stubflags
#define N 1048576
#define ALLOC_BIG(p) cudaMalloc((void **)&p, 3 * N * sizeof(float))
__global__ void scale(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2.0f;
}
float *lookup(int k);
int main(void) {
  float *a, *big;
  cudaMalloc((void **)&a, N * sizeof(float));
// CHECK: warn-unmanaged.cu:[[@LINE+1]]:3: warning: allocation 'big' (12.0 MiB) is not managed: tidal cannot replace its call (it is written inside a macro body); the memory stays resident and outside the budget
  ALLOC_BIG(big);
  for (int it = 0; it < 10; it++) {
    scale<<<N / 256, 256>>>(a, N);
    scale<<<N / 256, 256>>>(big, 3 * N);
// CHECK: warn-unmanaged.cu:[[@LINE+1]]:29: warning: pointer 'lookup(it)' passed to scale is not traced to a cudaMalloc
    scale<<<N / 256, 256>>>(lookup(it), N);
  }
  return 0;
}
// CHECK: tidal: summary: {{.*}}: managed 1 of 2 allocations (4.0 MiB of 16.0 MiB); 2 of 3 accesses resolved, 1 unresolved
// COV: error: --min-coverage=90%: tidal manages 25.0% of the program's device memory
