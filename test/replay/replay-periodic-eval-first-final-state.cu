// A periodic evaluation at the top of the training loop (llm.c's
// `if (step % val_loss_every == 0)` before the step), running the forward
// pass on the training activations: on every path the first access to
// a.h1/h2/out in an iteration is an exact write (the evaluation's or the
// step's), so the plan drops them after backward.  The replay's final-state
// check hashes only what the next iteration reads before writing
// (plan_live_in): a periodic op's exact write is passed over as the plan's
// deadness passes over it (plan.c, Note [overwrites across periodic
// branches]), so the dropped activations are not "live-in".  Before, the
// managed run differed at '(final state)' only, with every op equal.
// RUN: %tidal replay %s --budget 50% --chunk 4K -- %stubflags 2>&1 | FileCheck %s
// CHECK: checksums match
#include <cuda_runtime.h>
#include <cublas_v2.h>

#define B 256
#define D 1024

struct Acts {
  float *h1, *h2, *out;
};
struct Grads {
  float *dh1, *dh2, *dout;
};
struct Params {
  float *w1, *w2, *w3, *g1, *g2, *g3;
};

__global__ void relu(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}
__global__ void loss_grad(float *dy, const float *y, const float *t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dy[i] = y[i] - t[i];
}
__global__ void sgd(float *w, const float *g, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) w[i] -= 0.01f * g[i];
}

static const float one = 1.0f, zero = 0.0f;

/* y[B x D] = x[B x D] * w[D x D], every byte of y written (beta = 0) */
static void dense(cublasHandle_t h, float *y, const float *x, const float *w) {
  cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, D, B, D, &one, w, D, x, D, &zero, y, D);
}

static void forward(cublasHandle_t h, Acts *a, const Params *p, const float *x) {
  dense(h, a->h1, x, p->w1);
  dense(h, a->h2, a->h1, p->w2);
  dense(h, a->out, a->h2, p->w3);
}

static void evaluate(cublasHandle_t h, Acts *a, const Params *p, const float *xe) {
  forward(h, a, p, xe);
}

int main(void) {
  cublasHandle_t h;
  cublasCreate(&h);
  Acts a;
  Grads g;
  Params p;
  float *x, *xe, *t;
  cudaMalloc(&a.h1, B * D * sizeof(float));
  cudaMalloc(&a.h2, B * D * sizeof(float));
  cudaMalloc(&a.out, B * D * sizeof(float));
  cudaMalloc(&g.dh1, B * D * sizeof(float));
  cudaMalloc(&g.dh2, B * D * sizeof(float));
  cudaMalloc(&g.dout, B * D * sizeof(float));
  cudaMalloc(&p.w1, D * D * sizeof(float));
  cudaMalloc(&p.w2, D * D * sizeof(float));
  cudaMalloc(&p.w3, D * D * sizeof(float));
  cudaMalloc(&p.g1, D * D * sizeof(float));
  cudaMalloc(&p.g2, D * D * sizeof(float));
  cudaMalloc(&p.g3, D * D * sizeof(float));
  cudaMalloc(&x, B * D * sizeof(float));
  cudaMalloc(&xe, B * D * sizeof(float));
  cudaMalloc(&t, B * D * sizeof(float));
  const int eval_every = 10;
  for (int step = 0; step < 100; step++) {
    if (step % eval_every == 0) {
      evaluate(h, &a, &p, xe);
    }
    forward(h, &a, &p, x);
    loss_grad<<<B * D / 256, 256>>>(g.dout, a.out, t, B * D);
    /* weight gradients (g = act^T * delta) and deltas (delta = delta * w^T) */
    cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, D, D, B, &one, g.dout, D, a.h2, D, &zero, p.g3, D);
    cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, D, B, D, &one, p.w3, D, g.dout, D, &zero, g.dh2, D);
    cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, D, D, B, &one, g.dh2, D, a.h1, D, &zero, p.g2, D);
    cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, D, B, D, &one, p.w2, D, g.dh2, D, &zero, g.dh1, D);
    cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, D, D, B, &one, g.dh1, D, x, D, &zero, p.g1, D);
    sgd<<<D * D / 256, 256>>>(p.w1, p.g1, D * D);
    sgd<<<D * D / 256, 256>>>(p.w2, p.g2, D * D);
    sgd<<<D * D / 256, 256>>>(p.w3, p.g3, D * D);
  }
  return 0;
}
