// A short last batch: `if (start + rows > NS) rows = NS - start;` inside the
// step loop.  Its condition depends on the step, so both arms are walked;
// the arm lowers `rows` by exactly what the condition says it exceeds, so
// `rows` is min(BATCH, NS - start) afterwards (not NS - start, the whole
// rest of the epoch).  `if (n > M) n = M;` is the same shape.  The
// activations' extents then depend on the step only through the short last
// batch (the same place every step: not stepped), and the input slice
// moves with the step.
// RUN: %tidal graph %s -- %stubflags 2>&1 | FileCheck --check-prefix=GRAPH %s
// GRAPH: ops: 3 static, 3 per iteration unrolled
// GRAPH: write     y {{ *}}4*min(BATCH, NS - b*BATCH)*H (upper bound)
// GRAPH-NEXT: read      x+4*b*BATCH*D {{ *}}4*min(BATCH, NS - b*BATCH)*D (upper bound)
// GRAPH: write     a {{ *}}4*min(BATCH*H, min(BATCH, NS - b*BATCH)*H)
// RUN: %tidal replay %s --budget 50% --chunk 4K -- %stubflags 2>&1 | FileCheck --check-prefix=REPLAY %s
// REPLAY: stepped: 1 accesses move with the training loop's counter (32 steps)
// REPLAY: checksums match
#define NS 2000
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
__global__ void sgd(float *w, const float *gw, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) w[i] -= 0.01f * gw[i];
}
int main() {
  float *x, *w, *y, *a;
  cudaMalloc(&x, NS * D * sizeof(float));
  cudaMalloc(&w, D * H * sizeof(float));
  cudaMalloc(&y, BATCH * H * sizeof(float));
  cudaMalloc(&a, BATCH * H * sizeof(float));
  int nb = (NS + BATCH - 1) / BATCH;
  for (int b = 0; b < nb; b++) {
    int start = b * BATCH;
    int rows = BATCH;
    if (start + rows > NS) {
      rows = NS - start;
    }
    int n = rows * H;
    if (n > BATCH * H) n = BATCH * H;
    fwd<<<1, BATCH>>>(y, x + start * D, w, rows, D, H);
    act<<<(n + 255) / 256, 256>>>(a, y, n);
    sgd<<<D * H / 256, 256>>>(w, a, D * H);
  }
  return 0;
}
