// A 3-array update (params, grads, momentum: 4 MiB each, chunk-aligned)
// at a 10 MiB budget (5 chunks of 2 MiB): a quarter of the budget holds 3
// grains of 12-byte elements, and pieces of 3 grains (768 KiB an array)
// straddle chunk boundaries, so one piece needed 2 chunks of each array, 6
// of the 5 (TIDAL_ERR_BUDGET).  Pieces are a power of two of grains
// (runtime/policy/split.c, Note [split size]): 2 grains, no piece straddles, and
// the replay fits with the unmanaged run's checksums.
// RUN: %tidal replay %s --budget 10M --format json -- %stubflags > %t.json
// RUN: FileCheck %s < %t.json
// CHECK-DAG: "checksums_match": true,
// CHECK-DAG: "budget_respected": true,
// CHECK-DAG: "split_pieces": 8,
#define NP (1 << 20)
#define B 4096
#define STEPS 4
__global__ void fwd(float *y, const float *x, const float *p, int n, int np) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { float s = 0.0f; for (int k = 0; k < np; k++) s += p[k]; y[i] = s * x[i]; }
}
__global__ void bwd(float *g, const float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) g[i] = 0.5f * y[0];
}
__global__ void sgdm(float *p, const float *g, float *m, int n, float lr) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float mi = 0.9f * m[i] + g[i];
  m[i] = mi;
  p[i] -= lr * mi;
}
int main() {
  float *x, *y, *p, *g, *m;
  cudaMalloc(&x, B * sizeof(float)); cudaMalloc(&y, B * sizeof(float));
  cudaMalloc(&p, NP * sizeof(float)); cudaMalloc(&g, NP * sizeof(float)); cudaMalloc(&m, NP * sizeof(float));
  cudaMemset(m, 0, NP * sizeof(float));
  for (int step = 1; step <= STEPS; step++) {
    fwd<<<B / 256, 256>>>(y, x, p, B, NP);
    bwd<<<NP / 256, 256>>>(g, y, NP);
    sgdm<<<(NP + 255) / 256, 256>>>(p, g, m, NP, 1e-3f);
  }
  return 0;
}
