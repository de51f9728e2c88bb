// The commonest data loading: the step loop slices a resident input buffer
// (and its labels) by its own counter `b`, and stores each step's losses in
// their own slot of a buffer read after the loop.  The iteration unrolls
// with `b` unbound (each such access covers, for the plan, every slice the
// loop's steps touch), replay runs step k's slice in iteration k, and no
// plan drops the input or the losses (a later step or the host reads them).
// RUN: %tidal graph %s -- %stubflags 2>&1 | FileCheck --check-prefix=GRAPH %s
// GRAPH: ops: 5 static, 5 per iteration unrolled
// RUN: %tidal replay %s --budget 50% --chunk 4K -- %stubflags 2>&1 | FileCheck --check-prefix=REPLAY %s
// REPLAY: stepped: 4 accesses move with the training loop's counter (32 steps); iteration k runs step k
// REPLAY: checksums match
// RUN: %tidal replay %s --budget 50% --chunk 4K --iterations 3 --format json -- %stubflags > %t.json
// RUN: python3 -c "import json,sys; r=json.load(open(sys.argv[1])); sys.exit(0 if r['checksums_match'] and r['stepped_accesses'] == 4 and r['steps'] == 32 and 2 * r['peak_managed_bytes'] <= r['peak_unmanaged_bytes'] else 1)" %t.json
// RUN: sed -e 's@// *[A-Z]*:.*@//@' %s > %t.cu
// RUN: %tidal rewrite %t.cu -o %t.out.cu --budget 50% -- %stubflags
// RUN: FileCheck --check-prefix=REWRITE %s < %t.out.cu
// REWRITE: for (int b = 0; b < nb; b++)
// REWRITE-NOT: tidal_drop({{.*}}xb
// REWRITE-NOT: tidal_drop({{.*}}losses
// REWRITE-NOT: tidal_drop({{.*}}lab
// REWRITE: TIDAL_SHUTDOWN_OR_EXIT
#define NS 2048
#define D 64
#define H 512
#define BATCH 64
__global__ void fwd(float *y, const float *x, const float *w, int rows, int d, int h) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows)
    for (int j = 0; j < h; j++) {
      float s = 0.0f;
      for (int k = 0; k < d; k++) s += x[r * d + k] * w[k * h + j];
      y[r * h + j] = s;
    }
}
__global__ void act(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] > 0.0f ? in[i] : 0.0f;
}
__global__ void loss(float *l, float *g, const float *a, const int *lab, int rows, int h) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float s = 0.0f;
    for (int j = 0; j < h; j++) {
      float e = a[r * h + j] - (float)lab[r];
      g[r * h + j] = e;
      s += e * e;
    }
    l[r] = s;
  }
}
__global__ void wgrad(float *gw, const float *x, const float *g, int rows, int d, int h) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < d)
    for (int j = 0; j < h; j++) {
      float s = 0.0f;
      for (int r = 0; r < rows; r++) s += x[r * d + k] * g[r * h + j];
      gw[k * h + j] = s;
    }
}
__global__ void sgd(float *w, const float *gw, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) w[i] -= 0.01f * gw[i];
}
int main() {
  float *x, *w, *gw, *y, *a, *g, *losses;
  int *lab;
  cudaMalloc(&x, NS * D * sizeof(float));
  cudaMalloc(&lab, NS * sizeof(int));
  cudaMalloc(&w, D * H * sizeof(float));
  cudaMalloc(&gw, D * H * sizeof(float));
  cudaMalloc(&y, BATCH * H * sizeof(float));
  cudaMalloc(&a, BATCH * H * sizeof(float));
  cudaMalloc(&g, BATCH * H * sizeof(float));
  cudaMalloc(&losses, NS * sizeof(float));
  int nb = NS / BATCH;
  for (int b = 0; b < nb; b++) {
    const float *xb = x + b * BATCH * D;
    fwd<<<1, BATCH>>>(y, xb, w, BATCH, D, H);
    act<<<BATCH * H / 256, 256>>>(a, y, BATCH * H);
    loss<<<1, BATCH>>>(losses + b * BATCH, g, a, lab + b * BATCH, BATCH, H);
    wgrad<<<1, D>>>(gw, xb, g, BATCH, D, H);
    sgd<<<D * H / 256, 256>>>(w, gw, D * H);
  }
  float h_losses[NS];
  cudaMemcpy(h_losses, losses, sizeof h_losses, cudaMemcpyDeviceToHost);
  return 0;
}
