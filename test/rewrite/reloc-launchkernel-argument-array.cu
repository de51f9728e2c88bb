// cudaLaunchKernel(func, grid, block, args, shmem, stream) reads each kernel
// argument from the address args[i] holds, so no argument can be wrapped in
// TIDAL_AT where it is written (graph/sitehomes.c, Note [argument arrays]).
// The rewriter passes the call a copy of the array instead: after
// TIDAL_OP_BEGIN each pointer parameter declared through the array gets its
// TIDAL_AT address in a local, the copy points at those locals, and the
// allocations stay relocatable - also when the analysis could not follow the
// array (`argc > 1 ? zw : wz`: its accesses are declared from the array's
// text, to the end of each allocation).  A struct parameter's pointer fields
// reach the kernel inside the array: tidal_home sends them home before the
// op, the allocations a training-loop launch passes so are at home from the
// start (u, v), and the command says so per op site.  A setup launch's
// struct fields are not declared at all (only the loop's are): they are sent
// home just the same (c, d: relocatable until that tidal_home).
// RUN: sed -e 's@// *\(CHECK\|SUM\)[-A-Z]*:.*@//@' %s > %t.cu
// RUN: %tidal rewrite %t.cu --plan none -o %t.out.cu -- %stubflags 2>&1 | FileCheck %s --check-prefix=SUM
// RUN: FileCheck %s < %t.out.cu
#define N 1024
struct pair { float *a; float *b; };
__global__ void axpy(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += 2.0f * x[i];
}
__global__ void add(pair p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p.a[i] += p.b[i];
}
int main(int argc, char **argv) {
  float *x, *y, *z, *w, *u, *v, *c, *d;
  int n = N;
// CHECK: tidal_malloc_grouped((void **)(&x), N * sizeof(float), TIDAL_GROUP_RELOCATABLE)) /* tidal: relocatable
  cudaMalloc(&x, N * sizeof(float));
// CHECK: tidal_malloc_grouped((void **)(&y), N * sizeof(float), TIDAL_GROUP_RELOCATABLE)) /* tidal: relocatable
  cudaMalloc(&y, N * sizeof(float));
// CHECK: tidal_malloc_grouped((void **)(&z), N * sizeof(float), TIDAL_GROUP_RELOCATABLE)) /* tidal: relocatable
  cudaMalloc(&z, N * sizeof(float));
// CHECK: tidal_malloc_grouped((void **)(&w), N * sizeof(float), TIDAL_GROUP_RELOCATABLE)) /* tidal: relocatable
  cudaMalloc(&w, N * sizeof(float));
// CHECK: tidal_malloc((void **)(&u), N * sizeof(float))) /* tidal: at home: add ({{.*}}:{{[0-9]+}}) passes it through cudaLaunchKernel's argument array: tidal_home at run time */
  cudaMalloc(&u, N * sizeof(float));
// CHECK: tidal_malloc((void **)(&v), N * sizeof(float))) /* tidal: at home: add
  cudaMalloc(&v, N * sizeof(float));
// CHECK: tidal_malloc_grouped((void **)(&c), N * sizeof(float), TIDAL_GROUP_RELOCATABLE))
  cudaMalloc(&c, N * sizeof(float));
// CHECK: tidal_malloc_grouped((void **)(&d), N * sizeof(float), TIDAL_GROUP_RELOCATABLE))
  cudaMalloc(&d, N * sizeof(float));
  pair p0 = {c, d};
  void *init[] = {&p0, &n};
// CHECK: TIDAL_CHECK(tidal_home((const void *)((*(pair *)(init)[0]).a))); /* tidal: stays at home: reaches the op through the argument array of cudaLaunchKernel, not TIDAL_AT */
// CHECK-NEXT: TIDAL_CHECK(tidal_home((const void *)((*(pair *)(init)[0]).b)));
// CHECK-NEXT: TIDAL_OP_BEGIN(&tidal_site_{{[0-9]+}}, 0, NULL);
// Again inside the op: resident and pinned until it ends (Note [home residency]).
// CHECK-NEXT: TIDAL_CHECK(tidal_home((const void *)((*(pair *)(init)[0]).a))); /* tidal: resident until the op ends: no access declares it */
// CHECK-NEXT: TIDAL_CHECK(tidal_home((const void *)((*(pair *)(init)[0]).b)));
// CHECK-NEXT: #line
// CHECK-NEXT: cudaLaunchKernel((const void *)add, dim3(N / 256), dim3(256), init, 0, 0);
  cudaLaunchKernel((const void *)add, dim3(N / 256), dim3(256), init, 0, 0);
  void *zw[] = {&z, &w, &n}, *wz[] = {&w, &z, &n};
  for (int it = 0; it < 2; it++) {
    void *args[] = {&y, &x, &n};
// CHECK: {(const void *)(*(float **)(args)[0]), ((size_t)4*(size_t)(N)), TIDAL_READWRITE},
// CHECK-NEXT: {(const void *)(*(float **)(args)[1]), ((size_t)4*(size_t)(N)), TIDAL_READ},
// CHECK-NOT: tidal_home
// CHECK: TIDAL_OP_BEGIN(&tidal_site_[[A:[0-9]+]], 2, tidal_acc_[[A]]);
// CHECK-NEXT: /* tidal: the kernel's pointers at their current addresses, in a copy of its argument array */
// CHECK-NEXT: float *tidal_k[[A]]_0 = TIDAL_AT(*(float **)(args)[0]);
// CHECK-NEXT: float *tidal_k[[A]]_1 = TIDAL_AT(*(float **)(args)[1]);
// CHECK-NEXT: void *tidal_args_[[A]][3] = {(void *)&tidal_k[[A]]_0, (void *)&tidal_k[[A]]_1, (args)[2]};
// CHECK-NEXT: #line
// CHECK-NEXT: cudaLaunchKernel((const void *)axpy, dim3(N / 256), dim3(256), tidal_args_[[A]], 0, 0); TIDAL_OP_END(&tidal_site_[[A]]); }
    cudaLaunchKernel((const void *)axpy, dim3(N / 256), dim3(256), args, 0, 0);
// CHECK: {(const void *)(*(float **)(argc > 1 ? zw : wz)[0]), TIDAL_EXTENT_UNKNOWN, TIDAL_READWRITE}, /* extent unknown: the analysis could not follow cudaLaunchKernel's argument array */
// CHECK-NEXT: {(const void *)(*(float **)(argc > 1 ? zw : wz)[1]), TIDAL_EXTENT_UNKNOWN, TIDAL_READ},
// CHECK: void *tidal_args_[[B:[0-9]+]][3] = {(void *)&tidal_k[[B]]_0, (void *)&tidal_k[[B]]_1, (argc > 1 ? zw : wz)[2]};
// CHECK: cudaLaunchKernel((const void *)axpy, dim3(N / 256), dim3(256), tidal_args_[[B]], 0, 0);
    cudaLaunchKernel((const void *)axpy, dim3(N / 256), dim3(256), argc > 1 ? zw : wz, 0, 0);
    pair p = {u, v};
    void *ps[] = {&p, &n};
// CHECK: TIDAL_CHECK(tidal_home((const void *)((*(pair *)(ps)[0]).a))); /* tidal: stays at home: reaches the op through the argument array of cudaLaunchKernel, not TIDAL_AT */
// CHECK-NEXT: TIDAL_CHECK(tidal_home((const void *)((*(pair *)(ps)[0]).b)));
// In the loop the fields are declared accesses: the op makes them resident.
// CHECK-NEXT: TIDAL_OP_BEGIN(&tidal_site_{{[0-9]+}}, 2, tidal_acc_{{[0-9]+}});
// CHECK-NEXT: #line
// CHECK-NEXT: cudaLaunchKernel((const void *)add, dim3(N / 256), dim3(256), ps, 0, 0);
    cudaLaunchKernel((const void *)add, dim3(N / 256), dim3(256), ps, 0, 0);
  }
  return 0;
}
// SUM: :[[@LINE-32]]:3: warning: op site 'main -> add': 2 pointers reach it through the argument array of cudaLaunchKernel, not as an argument the rewrite can pass at its current address (TIDAL_AT): the allocations they point into stay at home
// SUM: :[[@LINE-5]]:5: warning: op site 'main -> add': 2 pointers reach it through the argument array of cudaLaunchKernel
// SUM: 6 of 8 allocations relocatable
