// Each allocation in the graph's JSON says whether the rewrite allocates it
// relocatable and, when not, why it stays at home, in the words of the
// rewrite's annotation (Note [relocatable allocations], graph/relocatable.c;
// docs/graph-format.md): x reaches its ops only through arguments the
// rewriter passes as TIDAL_AT; a and b are fields of a struct given to a
// kernel in the loop, which tidal_home sends home at run time, so they are
// allocated at home; ws is passed to a function with no body in the program
// (Note [escapes]): it stays relocatable, and tidal_home before that call
// sends it home at run time.  The second input has an op site the rewrite
// cannot instrument: then no allocation is relocatable, each for that reason.
// RUN: %tidal graph %s --format json -- %stubflags | FileCheck %s
// RUN: %tidal graph %S/Inputs/reloc-none.cu --format json -- %stubflags | FileCheck %s --check-prefix=NONE
#define N 1024
struct pair { float *a; float *b; };
void ext_fill(float *p, int n); /* defined elsewhere: it may use or keep p */
__global__ void scale(float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] *= 2.0f;
}
__global__ void add(pair p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p.a[i] += p.b[i];
}
int main(void) {
  float *x, *a, *b, *ws;
  cudaMalloc(&x, N * sizeof(float));
  cudaMalloc(&a, N * sizeof(float));
  cudaMalloc(&b, N * sizeof(float));
  cudaMalloc(&ws, N * sizeof(float));
  ext_fill(ws, N);
  for (int it = 0; it < 2; it++) {
    scale<<<N / 256, 256>>>(x, N);
    pair p = {a, b};
    add<<<N / 256, 256>>>(p, N);
    scale<<<N / 256, 256>>>(ws, N);
  }
  return 0;
}
// CHECK-LABEL: "allocations": [
// CHECK-NEXT: {"id": 0, "name": "x", {{.*}}, "relocatable": true, "home_why": null}
// CHECK-NEXT: {"id": 1, "name": "a", {{.*}}, "relocatable": false, "home_why": "add (graph-json-relocatable.cu:34) passes it through a struct argument: tidal_home at run time"}
// CHECK-NEXT: {"id": 2, "name": "b", {{.*}}, "relocatable": false, "home_why": "add (graph-json-relocatable.cu:34) passes it through a struct argument: tidal_home at run time"}
// CHECK-NEXT: {"id": 3, "name": "ws", {{.*}}, "relocatable": true, "home_why": null}
// CHECK-NEXT: ],
// NONE-LABEL: "allocations": [
// NONE-NEXT: {"id": 0, "name": "x", {{.*}}, "relocatable": false, "home_why": "op site main -> cudaMemcpy (reloc-none.cu:14) is not instrumented: the op is inside a condition or loop header: {{.*}}"}
// NONE-NEXT: {"id": 1, "name": "y", {{.*}}, "relocatable": false, "home_why": "op site main -> cudaMemcpy (reloc-none.cu:14) is not instrumented: the op is inside a condition or loop header: {{.*}}"}
// NONE-NEXT: ],
