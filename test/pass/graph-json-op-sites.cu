// Every op site of the program is in the graph's "sites" (pass/graph/sites.c
// and siteacc.c), reached by the training loop or not: the accesses its
// TIDAL_OP_BEGIN declares and each argument as written - its range in the
// file, its type, and which of those accesses it feeds (docs/graph-format.md).
// RUN: %tidal graph %s --format json -- %stubflags | FileCheck %s
// Each range holds its argument's text; an argument inside a macro's
// argument list has no range at the call, only where it is spelled:
// RUN: %tidal graph %s --format json -- %stubflags > %t.json
// RUN: python3 %S/Inputs/site_ranges.py %t.json %s | FileCheck --check-prefix=RANGES %s
// RANGES: 26 call ranges, 0 differ; 29 spelled ranges, 0 differ
// RANGES-NEXT: spelled only: w | 0 | N * sizeof(float)

#define N 1024
#define CHECK(call) do { if ((call) != cudaSuccess) return 1; } while (0)
struct Pair { float *a; float *b; };

__global__ void init_kernel(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = 0.f;
}

__global__ void pair_kernel(Pair p, float *opt, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p.a[i] += p.b[i];
  if (opt && i < n) opt[i] = p.a[i];
}

__global__ void step_kernel(float *w, const float *g, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) w[i] -= 0.1f * g[i];
}

/* never called: its op is instrumented all the same */
void evaluate(float *w, float *out) { step_kernel<<<N / 256, 256>>>(out, w, N); }

int main() {
  float *w, *g, host[N];
  cudaMalloc((void **)&w, N * sizeof(float));
  cudaMalloc((void **)&g, N * sizeof(float));
  init_kernel<<<N / 256, 256>>>(w, N);
  cudaMemcpy(g, host, N * sizeof(float), cudaMemcpyHostToDevice);
  CHECK(cudaMemset(w, 0, N * sizeof(float)));
  for (int step = 0; step < 10; step++) {
    Pair p = {w, g};
    pair_kernel<<<N / 256, 256>>>(p, NULL, N);
    step_kernel<<<N / 256, 256>>>(w, g, N);
  }
  if (cudaMemset(g, 0, 4) != cudaSuccess) return 1;
  return 0;
}

// The helper no one calls: its accesses come from the launch's own texts.
// CHECK: "sites": [
// CHECK-NEXT: {"id": 0, "kind": "launch", "callee": "step_kernel", "label": "evaluate -> step_kernel", {{.*}}"skip": null, "calls": 1, "ops": [],
// CHECK-NEXT: "accesses": [
// CHECK-NEXT: {"pointer": "out", "bytes": "((size_t)4*(size_t)(N))", "mode": "readwrite", "exact": false, "call": 0, "arg": 0},
// CHECK-NEXT: {"pointer": "w", "bytes": "((size_t)4*(size_t)(N))", "mode": "read", "exact": false, "call": 0, "arg": 1}],
// CHECK-NEXT: "args_array": false, "array_wrapped": false, "homes": [], "unnamed": null,
// CHECK-NEXT: "args": [
// CHECK-NEXT: {"text": "out", "type": "float *", "begin": {{[0-9]+}}, "end": {{[0-9]+}}, "spelled": [{{[0-9]+}}, {{[0-9]+}}], "whole": true, "pointer": true, "integer": false, "pointee_bytes": 4, "null": false, "pure": true, "accesses": [0]},
// CHECK-NEXT: {"text": "w", "type": "const float *", {{.*}}"accesses": [1]},
// CHECK-NEXT: {"text": "N", "type": "int", {{.*}}"pointer": false, "integer": true, {{.*}}"accesses": []}],
// CHECK-NEXT: "config": [
// CHECK-NEXT: {"text": "N / 256", "type": "int", {{.*}}"whole": true,
// CHECK-NEXT: {"text": "256", "type": "int",
// CHECK-NEXT: {"text": "", "type": "unsigned long", "begin": null, "end": null, "spelled": null, "whole": false,
// CHECK-NEXT: {"text": "", {{.*}}"begin": null, "end": null, "spelled": null, "whole": false,

// Setup: an init kernel proven to write every byte, a parameter copy, and
// a memset inside a check macro (its arguments only have spelled ranges).
// CHECK-NEXT: {"id": 1, "kind": "launch", "callee": "init_kernel", "label": "main -> init_kernel", {{.*}}"ops": [],
// CHECK-NEXT: "accesses": [
// CHECK-NEXT: {"pointer": "w", "bytes": "((size_t)4*(size_t)(N))", "mode": "write", "exact": true, "call": 0, "arg": 0}],
// CHECK: {"id": 2, "kind": "memcpy", "callee": "cudaMemcpy", {{.*}}"ops": [],
// CHECK-NEXT: "accesses": [
// CHECK-NEXT: {"pointer": "g", "bytes": "((size_t)4096)", "mode": "write", "exact": true, "call": 0, "arg": 0}],
// CHECK-NEXT: "args_array": false, "array_wrapped": false, "homes": [], "unnamed": null,
// CHECK-NEXT: "args": [
// CHECK-NEXT: {"text": "g", "type": "void *", {{.*}}"accesses": [0]},
// CHECK-NEXT: {"text": "host", "type": "const void *", {{.*}}"accesses": []},
// CHECK: {"id": 3, "kind": "memset", "callee": "cudaMemset", {{.*}}"stmt": {"begin": {{[0-9]+}}, "end": {{[0-9]+}}}, "skip": null, {{.*}}"ops": [],
// CHECK-NEXT: "accesses": [
// CHECK-NEXT: {"pointer": "w", "bytes": "((size_t)4096)", "mode": "write", "exact": true, "call": 0, "arg": 0}],
// CHECK-NEXT: "args_array": false, "array_wrapped": false, "homes": [], "unnamed": null,
// CHECK-NEXT: "args": [
// CHECK-NEXT: {"text": "", "type": "void *", "begin": null, "end": null, "spelled": [{{[0-9]+}}, {{[0-9]+}}], "whole": false, {{.*}}"accesses": [0]},

// The loop's ops: a struct argument feeds one access per pointer field, and
// NULL none.
// CHECK: {"id": 4, "kind": "launch", "callee": "pair_kernel", {{.*}}"ops": [0],
// CHECK-NEXT: "accesses": [
// CHECK-NEXT: {"pointer": "p.a", "bytes": null, "mode": "readwrite", "exact": false, "call": 0, "arg": 0, "why":
// CHECK-NEXT: {"pointer": "p.b", "bytes": null, "mode": "readwrite", "exact": false, "call": 0, "arg": 0, "why":
// CHECK-NEXT: "args_array": false, "array_wrapped": false, "homes": [], "unnamed": null,
// CHECK-NEXT: "args": [
// CHECK-NEXT: {"text": "p", "type": "Pair", {{.*}}"pointer": false, {{.*}}"accesses": [0, 1]},
// CHECK-NEXT: {"text": "NULL", "type": "float *", {{.*}}"pointer": true, {{.*}}"null": true, "pure": true, "accesses": []},
// CHECK: {"id": 5, "kind": "launch", "callee": "step_kernel", "label": "main -> step_kernel", {{.*}}"ops": [1],
// CHECK-NEXT: "accesses": [
// CHECK-NEXT: {"pointer": "w", {{.*}}"arg": 0},
// CHECK-NEXT: {"pointer": "g", {{.*}}"arg": 1}],

// An op in a condition is listed, not instrumented: no statement, nothing
// declared; a 0 passed as a value is no null pointer.
// CHECK: {"id": 6, "kind": "memset", "callee": "cudaMemset", {{.*}}"stmt": null, "skip": "the op is inside a condition or loop header: not instrumented (move it into its own statement)", "calls": 1, "ops": [],
// CHECK-NEXT: "accesses": [],
// CHECK-NEXT: "args_array": false, "array_wrapped": false, "homes": [], "unnamed": null,
// CHECK-NEXT: "args": [
// CHECK-NEXT: {"text": "g",
// CHECK-NEXT: {"text": "0", "type": "int", {{.*}}"null": false,
// CHECK-NOT: "id": 7
