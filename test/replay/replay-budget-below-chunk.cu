// A program of 48 KiB replayed at half its peak: the budget (24 KiB) is
// below replay's own 2 MiB chunk, so replay's chunk becomes a sixteenth of
// the budget (4 KiB at the least: replay.c, Note [budgets in chunks]) and
// the replay matches its checksums.  A budget below an explicit --chunk,
// or below 4 KiB, is a clear error naming the budget and the chunk.
// Before: "replay failed (managed run): tidal_init: TIDAL_ERR_CONFIG:
// malformed configuration: ... budget of 1048576 bytes is not 1..2^32
// chunks of 2097152".
// RUN: %tidal replay %s --budget 50%% --format json -- %stubflags 2>&1 | FileCheck %s
// RUN: not %tidal replay %s --budget 8K --chunk 64K -- %stubflags 2>&1 | FileCheck --check-prefix=CHUNK %s
// RUN: not %tidal replay %s --budget 2K -- %stubflags 2>&1 | FileCheck --check-prefix=TINY %s
// CHECK: "chunk_bytes": 4096,
// CHECK: "checksums_match": true,
// CHECK: "budget_respected": true,
// CHECK: "ok": true
// CHUNK: replay-budget-below-chunk.cu: error: the budget of 8192 bytes is below one chunk (--chunk 65536): device memory is held in whole chunks
// TINY: replay-budget-below-chunk.cu: error: the budget of 2048 bytes is below the smallest chunk (4096 bytes)
__global__ void axpy(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += 0.5f * x[i];
}
int main() {
  float *a, *b, *c, *d, *e, *f;
  cudaMalloc((void **)&a, 2048 * sizeof(float));
  cudaMalloc((void **)&b, 2048 * sizeof(float));
  cudaMalloc((void **)&c, 2048 * sizeof(float));
  cudaMalloc((void **)&d, 2048 * sizeof(float));
  cudaMalloc((void **)&e, 2048 * sizeof(float));
  cudaMalloc((void **)&f, 2048 * sizeof(float));
  for (int step = 0; step < 10; step++) {
    axpy<<<8, 256>>>(b, a, 2048);
    axpy<<<8, 256>>>(c, b, 2048);
    axpy<<<8, 256>>>(d, c, 2048);
    axpy<<<8, 256>>>(e, d, 2048);
    axpy<<<8, 256>>>(f, e, 2048);
    axpy<<<8, 256>>>(a, f, 2048);
  }
  return 0;
}
