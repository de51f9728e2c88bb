// A kernel given a struct by value reads device pointers out of it
// (graph/sitehomes.c, Note [pointer values at a site]).  The graph declares
// a struct argument's pointer fields only for launches the training loop
// reaches, and not the elements of an array inside the struct: each pointer
// no access declares is sent home with tidal_home before the op (an array's
// elements one by one, nested structs by their fields), so the kernel never
// reads a relocated allocation's unmapped stable address, and again after
// TIDAL_OP_BEGIN, so its allocation is resident while the kernel runs.
// Every tidal_home is checked (TIDAL_CHECK): one that cannot make its
// allocation resident stops the program.
// RUN: sed -e 's@// *\(CHECK\|SUM\)[-A-Z]*:.*@//@' %s > %t.cu
// RUN: %tidal rewrite %t.cu --plan none -o %t.out.cu -- %stubflags 2>&1 | FileCheck %s --check-prefix=SUM
// RUN: FileCheck %s < %t.out.cu
#define N 1024
struct inner { float *g; int k; };
struct layer { float *w[2]; float *b; inner in; };
__global__ void step(layer L, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) L.b[i] += L.w[0][i] * L.w[1][i] + L.in.g[i];
}
int main(void) {
  float *w0, *w1, *b, *g;
  cudaMalloc(&w0, N * sizeof(float));
  cudaMalloc(&w1, N * sizeof(float));
  cudaMalloc(&b, N * sizeof(float));
  cudaMalloc(&g, N * sizeof(float));
  layer L = {{w0, w1}, b, {g, 0}};
// Setup: nothing is declared for a struct argument here, every field is sent home.
// CHECK: TIDAL_CHECK(tidal_home((const void *)(L.w[0]))); /* tidal: stays at home: reaches the op through a pointer field of a struct passed by value, not TIDAL_AT */
// CHECK-NEXT: TIDAL_CHECK(tidal_home((const void *)(L.w[1])));
// CHECK-NEXT: TIDAL_CHECK(tidal_home((const void *)(L.b)));
// CHECK-NEXT: TIDAL_CHECK(tidal_home((const void *)(L.in.g)));
// CHECK-NEXT: TIDAL_OP_BEGIN(&tidal_site_0, 0, NULL);
// Again inside the op: resident and pinned until it ends (a chunk swapped
// out earlier is restored; Note [home residency]).
// CHECK-NEXT: TIDAL_CHECK(tidal_home((const void *)(L.w[0]))); /* tidal: resident until the op ends: no access declares it */
// CHECK-NEXT: TIDAL_CHECK(tidal_home((const void *)(L.w[1])));
// CHECK-NEXT: TIDAL_CHECK(tidal_home((const void *)(L.b)));
// CHECK-NEXT: TIDAL_CHECK(tidal_home((const void *)(L.in.g)));
// CHECK-NEXT: #line
// CHECK-NEXT: step<<<N / 256, 256>>>(L, N); TIDAL_OP_END(&tidal_site_0); }
  step<<<N / 256, 256>>>(L, N);
  for (int it = 0; it < 2; it++) {
// The loop: b and in.g are declared (and sent home as such), w[0] and w[1] too.
// CHECK: TIDAL_CHECK(tidal_home((const void *)(L.b))); /* tidal: stays at home: reaches the op through a pointer field of a struct passed by value, not TIDAL_AT */
// CHECK-NEXT: TIDAL_CHECK(tidal_home((const void *)(L.in.g)));
// CHECK-NEXT: TIDAL_CHECK(tidal_home((const void *)(L.w[0]))); /* tidal: stays at home: reaches the op through a pointer field of a struct passed by value, not TIDAL_AT */
// CHECK-NEXT: TIDAL_CHECK(tidal_home((const void *)(L.w[1])));
// CHECK-NEXT: TIDAL_OP_BEGIN(&tidal_site_1, 2, tidal_acc_1);
// Only the pointers no access declares, again inside the op.
// CHECK-NEXT: TIDAL_CHECK(tidal_home((const void *)(L.w[0]))); /* tidal: resident until the op ends: no access declares it */
// CHECK-NEXT: TIDAL_CHECK(tidal_home((const void *)(L.w[1])));
// CHECK-NEXT: #line
    step<<<N / 256, 256>>>(L, N);
  }
  return 0;
}
// SUM: :[[@LINE-16]]:3: warning: op site 'main -> step': 4 pointers reach it through a pointer field of a struct passed by value
// SUM: :[[@LINE-5]]:5: warning: op site 'main -> step': 4 pointers reach it through a pointer field of a struct passed by value
