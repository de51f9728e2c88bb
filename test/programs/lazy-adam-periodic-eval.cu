// A trainer with its sizes from argv, Adam moments allocated and zeroed
// lazily on the first step inside a helper (`if (!st->m) {
// CK(cudaMalloc(&st->m, ..)); CK(cudaMemset(..)); }`), and an evaluation
// every eval_every steps.  Without --bind the sizes are unknown (the graph
// says which name to bind); with them, the lazy branch is setup (not a
// per-step memset that would let the plan drop the moments: Note [lvalues
// in macro arguments]), the evaluation is periodic, and at half the peak
// the plan drops nothing that holds optimizer state and replays with
// every checksum equal.
// RUN: %tidal graph %s 2>&1 | FileCheck --check-prefix=UNBOUND %s
// RUN: %tidal graph %s --bind batch=256 --bind din=1024 --bind dh=1024 --bind steps=30 2>&1 | FileCheck --check-prefix=GRAPH %s
// RUN: sed -e 's@// *\(PLAN\|GRAPH\|UNBOUND\|REPLAY\)[-A-Z]*:.*@//@' %s > %t.in.cu
// RUN: %tidal rewrite %t.in.cu --bind batch=256 --bind din=1024 --bind dh=1024 --bind steps=30 --budget 50% -o %t.cu
// RUN: FileCheck --check-prefix=PLAN %s < %t.cu
// RUN: %tidal replay %s --bind batch=256 --bind din=1024 --bind dh=1024 --bind steps=30 --budget 50% 2>&1 | FileCheck --check-prefix=REPLAY %s
// UNBOUND: ops: {{[0-9]+}} static (not unrolled: 'din', 'dh' and 'batch' are unbound (use --bind din=VALUE --bind dh=VALUE --bind batch=VALUE))
// GRAPH: summary: {{.*}}; [[N:[0-9]+]] of [[N]] accesses resolved
// GRAPH: training loop: {{.*}}lazy-adam-periodic-eval.cu:[[@LINE+118]]
// GRAPH-DAG: periodic (not every iteration): {{.*}}if ((step + 1) % eval_every == 0)
// GRAPH-DAG: once (setup, first iteration only): {{.*}} in adam_step: if (!st->m): 4 allocation(s)
// GRAPH: ops (program order):
// GRAPH-NOT: cudaMemset
// GRAPH: adam_step -> adam {{.*}} split over n
// GRAPH: unresolved (0):
// PLAN-NOT: tidal_drop((const void *)((&a1)->m)
// PLAN-NOT: tidal_drop((const void *)((&a1)->v)
// PLAN-NOT: drop after a1.
// PLAN: op site {{[0-9]+}}: adam_step -> adam
// REPLAY: checksums match
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

struct Params {
  float *w1, *w2;
  float *g1, *g2;
};

struct Adam {
  float *m = nullptr, *v = nullptr;
  int t = 0;
};

__global__ void dense(float *y, const float *x, const float *w, int B, int I, int O, int relu) {
  int o = blockIdx.x * blockDim.x + threadIdx.x, b = blockIdx.y;
  if (o >= O || b >= B) return;
  float s = 0.0f;
  for (int k = 0; k < I; k++) s += x[b * I + k] * w[k * O + o];
  y[b * O + o] = relu && s < 0.0f ? 0.0f : s;
}
__global__ void dense_dw(float *dw, const float *x, const float *dy, int B, int I, int O) {
  int o = blockIdx.x * blockDim.x + threadIdx.x, k = blockIdx.y;
  if (o >= O || k >= I) return;
  float s = 0.0f;
  for (int b = 0; b < B; b++) s += x[b * I + k] * dy[b * O + o];
  dw[k * O + o] = s;
}
__global__ void dense_dx(float *dx, const float *dy, const float *w, const float *h, int B, int I, int O) {
  int k = blockIdx.x * blockDim.x + threadIdx.x, b = blockIdx.y;
  if (k >= I || b >= B) return;
  float s = 0.0f;
  for (int o = 0; o < O; o++) s += dy[b * O + o] * w[k * O + o];
  dx[b * I + k] = h[b * I + k] > 0.0f ? s : 0.0f;
}
__global__ void loss_grad(float *dy, const float *y, const float *t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dy[i] = 2.0f * (y[i] - t[i]) / n;
}
__global__ void sq_err(float *err, const float *y, const float *t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) err[i] = (y[i] - t[i]) * (y[i] - t[i]);
}
__global__ void adam(float *p, const float *g, float *m, float *v, int n, float lr, float c1, float c2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    m[i] = 0.9f * m[i] + 0.1f * g[i];
    v[i] = 0.999f * v[i] + 0.001f * g[i] * g[i];
    p[i] -= lr * (m[i] / c1) / (sqrtf(v[i] / c2) + 1e-8f);
  }
}
__global__ void init(float *p, int n, float s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = s * (float)((i * 7919) % 1000 - 500) / 500.0f;
}

static unsigned nb(int n) { return (unsigned)((n + 255) / 256); }

static void adam_step(Adam *st, float *p, const float *g, int n, float lr) {
  if (!st->m) {
    CK(cudaMalloc(&st->m, (size_t)n * sizeof(float)));
    CK(cudaMalloc(&st->v, (size_t)n * sizeof(float)));
    CK(cudaMemset(st->m, 0, (size_t)n * sizeof(float)));
    CK(cudaMemset(st->v, 0, (size_t)n * sizeof(float)));
  }
  st->t++;
  float c1 = 1.0f - powf(0.9f, (float)st->t), c2 = 1.0f - powf(0.999f, (float)st->t);
  adam<<<nb(n), 256>>>(p, g, st->m, st->v, n, lr, c1, c2);
}

int main(int argc, char **argv) {
  int batch = argc > 1 ? atoi(argv[1]) : 64;
  int din = argc > 2 ? atoi(argv[2]) : 256;
  int dh = argc > 3 ? atoi(argv[3]) : 512;
  int steps = argc > 4 ? atoi(argv[4]) : 30;
  const int eval_every = 10, dout = 8;

  Params P;
  float *x, *t, *h, *y, *dy, *dh_, *xe, *te, *he, *ye, *err;
  CK(cudaMalloc(&P.w1, (size_t)din * dh * sizeof(float)));
  CK(cudaMalloc(&P.w2, (size_t)dh * dout * sizeof(float)));
  CK(cudaMalloc(&P.g1, (size_t)din * dh * sizeof(float)));
  CK(cudaMalloc(&P.g2, (size_t)dh * dout * sizeof(float)));
  CK(cudaMalloc(&x, (size_t)batch * din * sizeof(float)));
  CK(cudaMalloc(&t, (size_t)batch * dout * sizeof(float)));
  CK(cudaMalloc(&h, (size_t)batch * dh * sizeof(float)));
  CK(cudaMalloc(&y, (size_t)batch * dout * sizeof(float)));
  CK(cudaMalloc(&dy, (size_t)batch * dout * sizeof(float)));
  CK(cudaMalloc(&dh_, (size_t)batch * dh * sizeof(float)));
  CK(cudaMalloc(&xe, (size_t)batch * din * sizeof(float)));
  CK(cudaMalloc(&te, (size_t)batch * dout * sizeof(float)));
  CK(cudaMalloc(&he, (size_t)batch * dh * sizeof(float)));
  CK(cudaMalloc(&ye, (size_t)batch * dout * sizeof(float)));
  CK(cudaMalloc(&err, (size_t)batch * dout * sizeof(float)));
  init<<<nb(din * dh), 256>>>(P.w1, din * dh, 0.05f);
  init<<<nb(dh * dout), 256>>>(P.w2, dh * dout, 0.05f);
  init<<<nb(batch * din), 256>>>(x, batch * din, 1.0f);
  init<<<nb(batch * dout), 256>>>(t, batch * dout, 0.5f);
  init<<<nb(batch * din), 256>>>(xe, batch * din, 0.7f);
  init<<<nb(batch * dout), 256>>>(te, batch * dout, 0.3f);

  Adam a1, a2;
  float *host_err = (float *)malloc((size_t)batch * dout * sizeof(float));
  for (int step = 0; step < steps; step++) {
    dense<<<dim3(nb(dh), batch), 256>>>(h, x, P.w1, batch, din, dh, 1);
    dense<<<dim3(nb(dout), batch), 256>>>(y, h, P.w2, batch, dh, dout, 0);
    loss_grad<<<nb(batch * dout), 256>>>(dy, y, t, batch * dout);
    dense_dw<<<dim3(nb(dout), dh), 256>>>(P.g2, h, dy, batch, dh, dout);
    dense_dx<<<dim3(nb(dh), batch), 256>>>(dh_, dy, P.w2, h, batch, dh, dout);
    dense_dw<<<dim3(nb(dh), din), 256>>>(P.g1, x, dh_, batch, din, dh);
    adam_step(&a1, P.w1, P.g1, din * dh, 1e-3f);
    adam_step(&a2, P.w2, P.g2, dh * dout, 1e-3f);
    if ((step + 1) % eval_every == 0) {
      dense<<<dim3(nb(dh), batch), 256>>>(he, xe, P.w1, batch, din, dh, 1);
      dense<<<dim3(nb(dout), batch), 256>>>(ye, he, P.w2, batch, dh, dout, 0);
      sq_err<<<nb(batch * dout), 256>>>(err, ye, te, batch * dout);
      CK(cudaMemcpy(host_err, err, (size_t)batch * dout * sizeof(float), cudaMemcpyDeviceToHost));
      double s = 0;
      for (int i = 0; i < batch * dout; i++) s += host_err[i];
      printf("step %d eval mse %f\n", step + 1, s / (batch * dout));
    }
  }
  CK(cudaFree(a1.m)); CK(cudaFree(a1.v)); CK(cudaFree(a2.m)); CK(cudaFree(a2.v));
  free(host_err);
  return 0;
}
