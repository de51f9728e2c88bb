// LeNet's pooling backward in small (plan/pack_arena.c, Note [arenas for
// medium tensors]): pool_bwd reads conv and dpool (2.8 MiB: two chunks
// each, a 1.2 MiB tail) and pool and dconv (1.1 MiB each).  Two such small
// buffers never share one 2 MiB slab, so without arenas the op needs
// 2 + 2 + 2 = 6 chunks.  The pass lays conv out with pool and dpool with
// dconv in arenas (TIDAL_GROUP_ARENA): 4 chunks, and the program (8 chunks
// in all) replays at half its peak with every checksum equal to the
// unmanaged run's.
// RUN: env TIDAL_RELOCATE=0 %tidal replay %s --budget 50% --format json -- %stubflags > %t.json
// RUN: FileCheck %s < %t.json
// CHECK: "peak_unmanaged_bytes": 16777216,
// CHECK-NEXT: "peak_managed_bytes": 8388608,
// CHECK-NEXT: "checksums_match": true,
// CHECK: "budget_respected": true,
// CHECK: "ok": true
// Without arenas (--plan none: no groups, allocation order) the small
// buffers take two slabs: 10 chunks, a 5-chunk budget, and pool_bwd's
// working set is 6 chunks.
// RUN: not env TIDAL_RELOCATE=0 %tidal replay %s --budget 50% --plan none -- %stubflags 2>&1 | FileCheck --check-prefix=NONE %s
// NONE: tidal_op_begin pool_bwd {{.*}} working set of 12582912 bytes {{.*}} exceeds the 10485760-byte budget
#define MED 737280   /* floats: 2.8 MiB */
#define SMALL 286720 /* floats: 1.1 MiB */
#define W 524288     /* floats: 2 MiB, one whole chunk */
__global__ void step(float *x, int nx, float *y, int ny) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < nx) x[i] = 0.5f * x[i] + 1.0f;
  if (i < ny) y[i] = 0.5f * y[i] + 1.0f;
}
__global__ void pool_bwd(float *dx, const float *x, const float *y, const float *dy, int n, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dx[i] = 0.25f * x[i];
  if (i < m) dx[i] += y[i] * dy[i];
}
int main(void) {
  float *conv, *pool, *dconv, *dpool, *w[4];
  cudaMalloc(&conv, MED * sizeof(float));
  cudaMalloc(&pool, SMALL * sizeof(float));  /* after its medium */
  cudaMalloc(&dconv, SMALL * sizeof(float)); /* before its medium */
  cudaMalloc(&dpool, MED * sizeof(float));
  for (int k = 0; k < 4; k++) cudaMalloc(&w[k], W * sizeof(float));
  for (int it = 0; it < 4; it++) {
    step<<<MED / 256, 256>>>(conv, MED, pool, SMALL);
    for (int k = 0; k < 4; k++) step<<<W / 256, 256>>>(w[k], W, w[k], 0);
    step<<<MED / 256, 256>>>(dpool, MED, dconv, SMALL);
    pool_bwd<<<MED / 256, 256>>>(dpool, conv, pool, dconv, MED, SMALL);
  }
  return 0;
}
