// A struct holding device pointers passed to a kernel as an expression with
// side effects (a call) cannot be evaluated again for tidal_home, and the
// pointers in it reach the kernel at their stable addresses: no allocation
// is relocatable (graph/sitehomes.c, Note [pointer values at a site]), and
// the command says why.
// RUN: sed -e 's@// *\(CHECK\|SUM\)[-A-Z]*:.*@//@' %s > %t.cu
// RUN: %tidal rewrite %t.cu --plan none -o %t.out.cu -- %stubflags 2>&1 | FileCheck %s --check-prefix=SUM
// RUN: FileCheck %s < %t.out.cu
#define N 1024
struct pair { float *a; float *b; };
static pair make_pair(float *a, float *b) { pair p = {a, b}; return p; }
__global__ void add(pair p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p.a[i] += p.b[i];
}
int main(void) {
  float *a, *b;
// CHECK: tidal_malloc((void **)(&a), N * sizeof(float))) /* tidal: at home: op site main -> add ({{.*}}:[[@LINE+5]]) is passed pointers the pass cannot name (kernel 'add' parameter 'p': a struct holding device pointers written as an expression with side effects) */
  cudaMalloc(&a, N * sizeof(float));
  cudaMalloc(&b, N * sizeof(float));
// CHECK-NOT: tidal_home
// CHECK: TIDAL_OP_BEGIN
  add<<<N / 256, 256>>>(make_pair(a, b), N);
  for (int it = 0; it < 2; it++) {
    pair p = {a, b};
    add<<<N / 256, 256>>>(p, N);
  }
  return 0;
}
// SUM: warning: no allocation is relocatable (each stays at home, moved by the driver's mapping calls): op site main -> add ({{.*}}:23) is passed pointers the pass cannot name (kernel 'add' parameter 'p': a struct holding device pointers written as an expression with side effects)
// SUM: 0 of 2 allocations relocatable
