// An AdamW-style update over params, grads and both moments (16 MiB, all
// but 32 KiB of the program) at half the peak: whole, its working set
// exceeds the budget and tidal_op_begin refuses it (TIDAL_ERR_BUDGET); the
// pass proves the kernel elementwise, so replay runs it in the pieces
// tidal_split_elements picks, as the rewritten program does, within the
// budget and with every checksum equal to the unmanaged (whole) run's.
// RUN: env TIDAL_RELOCATE=0 %tidal replay %s --budget 50% --format json -- %stubflags > %t.json
// RUN: FileCheck %s < %t.json
// CHECK: "splittable_ops": 1,
// CHECK-NEXT: "split_ops": 1,
// CHECK-NEXT: "split_pieces": {{[2-9]|[1-9][0-9]+}},
// CHECK: "checksums_match": true,
// CHECK: "final_state_match": true,
// CHECK: "budget_respected": true,
// CHECK: "plan_notes": [{{.*}}"upd -> adamw runs split: 1048576 elements (16.0 MiB) in pieces of
// CHECK: "unmanaged": {{{.*}}"split_ops": 0, "split_pieces": 0,
// CHECK: "ok": true
// The same at 4 KiB chunks (the pieces pin no partial 2 MiB chunks):
// RUN: env TIDAL_RELOCATE=0 %tidal replay %s --budget 50% --chunk 4K -- %stubflags 2>&1 | FileCheck --check-prefix=SMALL %s
// SMALL: split: 1 ops per iteration may run in pieces; 1 did, as {{[0-9]+}} pieces
// SMALL: checksums match
// Run whole (--no-split, as before split ops), the update does not fit:
// RUN: not env TIDAL_RELOCATE=0 %tidal replay %s --budget 50% --no-split -- %stubflags 2>&1 | FileCheck --check-prefix=WHOLE %s
// WHOLE: refused by the runtime (TIDAL_ERR_BUDGET): tidal_op_begin upd -> adamw (trace:2): the op{{.}}s working set of 16777216 bytes {{.*}} exceeds the 8388608-byte budget
// WHOLE: replay: budget 8.0 MiB REFUSED by the runtime (TIDAL_ERR_BUDGET)
// WHOLE-NOT: CHECKSUMS DIFFER
// A split launch that forgot to advance one pointer reads resident,
// declared, wrong bytes: the oracle must catch it.
// RUN: not env TIDAL_RELOCATE=0 %tidal replay %s --budget 50% --break split-no-advance -- %stubflags 2>&1 | FileCheck --check-prefix=BROKEN %s
// BROKEN: CHECKSUMS DIFFER: {{[0-9]+}} ops, first at upd -> adamw (iteration 0)
#define NP (1 << 20) /* parameters: 4 MiB each for params, grads, m and v */
#define B 4096       /* activations */
#define STEPS 10
__global__ void fwd(float *y, const float *x, const float *p, int n, int np) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0.0f;
    for (int k = 0; k < np; k++) s += p[k];
    y[i] = s * x[i];
  }
}
__global__ void bwd(float *g, const float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) g[i] = 0.5f * y[0];
}
__global__ void adamw(float *p, const float *g, float *m, float *v, int n, float lr, int t) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float mi = 0.9f * m[i] + 0.1f * g[i];
  float vi = 0.999f * v[i] + 0.001f * g[i] * g[i];
  m[i] = mi;
  v[i] = vi;
  p[i] -= lr * (mi / (sqrtf(vi) + 1e-8f) + 0.01f * p[i]) / (float)t;
}
void upd(float *p, const float *g, float *m, float *v, int n, int t) {
  adamw<<<(n + 255) / 256, 256>>>(p, g, m, v, n, 1e-3f, t);
}
int main() {
  float *x, *y, *p, *g, *m, *v;
  cudaMalloc(&x, B * sizeof(float));
  cudaMalloc(&y, B * sizeof(float));
  cudaMalloc(&p, NP * sizeof(float));
  cudaMalloc(&g, NP * sizeof(float));
  cudaMalloc(&m, NP * sizeof(float));
  cudaMalloc(&v, NP * sizeof(float));
  cudaMemset(m, 0, NP * sizeof(float));
  cudaMemset(v, 0, NP * sizeof(float));
  for (int step = 1; step <= STEPS; step++) {
    fwd<<<B / 256, 256>>>(y, x, p, B, NP);
    bwd<<<NP / 256, 256>>>(g, y, NP);
    upd(p, g, m, v, NP, step);
  }
  return 0;
}
