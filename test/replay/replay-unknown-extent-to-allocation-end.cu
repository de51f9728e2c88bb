// An access whose extent the pass does not know (an embedding row named by
// a token id read from device memory, as llm.c's and samples/gpt's encoders
// do) is declared by the rewritten program as TIDAL_EXTENT_UNKNOWN: from the
// pointer to the end of its allocation, so the runtime makes the whole
// parameter arena resident for the op.  Replay declares the same (Note
// [unknown extents], pass/replay/replay.c); the plan and the data oracle
// keep the carved region.  Before, replay declared the region and passed
// at 60% a program whose compiled form the runtime refuses there.
// RUN: %tidal replay %s --budget 60%% --chunk 4K --iterations 3 -- %stubflags -DDATA_INDEX=0 2>&1 | FileCheck %s --check-prefix=KNOWN
// KNOWN-NOT: unknown extents
// KNOWN: checksums match
// RUN: not %tidal replay %s --budget 60%% --chunk 4K --iterations 3 -- %stubflags -DDATA_INDEX=1 2>&1 | FileCheck %s --check-prefix=TIGHT
// TIGHT: unknown extents: 1 accesses per iteration declared to the end of their allocation (TIDAL_EXTENT_UNKNOWN), as the rewritten program declares them; the plan and the data oracle use their carved region
// TIGHT: refused by the runtime (TIDAL_ERR_BUDGET): tidal_op_begin embed (trace:0): the op's working set of 9441280 bytes
// RUN: %tidal replay %s --budget 80%% --chunk 4K --iterations 3 --format json -- %stubflags -DDATA_INDEX=1 | FileCheck %s --check-prefix=ROOM
// ROOM: "unknown_extent_accesses": 1,
// ROOM: "checksums_match": true,
#define V 4096
#define C 256
#define BT 1024
#define W2 (1024 * 1024)
__global__ void embed(float *out, const int *tok, const float *wte, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
#if DATA_INDEX
    out[i] = wte[tok[i / C] * C + i % C]; /* a row named by a token id read from memory */
#else
    out[i] = wte[i % (V * C)];
#endif
  }
}
__global__ void scale(float *y, const float *x, const float *w, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * w[i];
}
__global__ void sgd(float *w, const float *g, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) w[i] -= 0.01f * g[i];
}
int main(void) {
  float *params, *acts, *grads;
  int *tok;
  cudaMalloc(&params, (V * C + W2) * sizeof(float));
  cudaMalloc(&acts, 2 * BT * C * sizeof(float));
  cudaMalloc(&grads, W2 * sizeof(float));
  cudaMalloc(&tok, BT * sizeof(int));
  float *wte = params, *w2 = params + V * C;
  float *a0 = acts, *a1 = acts + BT * C;
  for (int step = 0; step < 100; step++) {
    embed<<<BT * C / 256, 256>>>(a0, tok, wte, BT * C);
    scale<<<BT * C / 256, 256>>>(a1, a0, w2, BT * C);
    scale<<<W2 / 256, 256>>>(grads, w2, w2, W2);
    sgd<<<W2 / 256, 256>>>(w2, grads, W2);
  }
  return 0;
}
