/* train.cu - a small GPT-2-style transformer trained on generated token
 * sequences, written the way hand-written CUDA LLM trainers are.
 *
 * This is a tidal sample: a realistic input for `tidal graph/rewrite/replay`
 * and, with samples/gpt/ref.c, a program whose losses can be checked against
 * a plain-C reference of the same math.  Design decisions a reader needs:
 *  - Sizes are file-scope compile-time constants (no argv override) so the
 *    static analysis can bind every extent; argv[1] may set the step count.
 *  - Parameters (and their gradients and AdamW moments) live in one arena
 *    each; activations in one arena carved into per-layer slices; the
 *    backward pass's activation gradients in a third, small arena that is
 *    reused by every layer.  Pointers are stored in struct fields and copied
 *    into locals inside the layer loops.
 *  - Buffers are reused under other names where the data is dead: the
 *    attention's qkv buffer is the scratch for the attention output before
 *    unpermuting, the classifier writes dlogits over the logits, backward
 *    writes each layer's dpreatt over that layer's preatt and uses that
 *    layer's qkv slot as the unpermute scratch.  See Note [buffer reuse].
 *  - float32 only.  Every kernel is deterministic except encoder_backward,
 *    which scatters with float atomics (as real trainers do); see there.
 *  - Matrices are row-major; cuBLAS is column-major, so each GEMM computes
 *    the transposed product (the comment above each call says which).
 *  - SAMPLE_LOSS_FILE=path makes the program write "step loss ms" lines
 *    there (ms: the step's wall time), for comparison with the CPU
 *    reference (test/samples/compare_losses.py) and for timing.
 *  - Exit 77 without a CUDA device (the ctest SKIP_RETURN_CODE).
 */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Model and batch sizes.  Keep the defaults in sync with
 * gpt_ref_default_config() in ref.c: the GPU loss comparison checks the
 * printed config line.  They are compile-time constants so that `tidal
 * replay` needs no --bind; -DGPT_B=... (etc.) builds a bigger model, e.g.
 * for GPU runs (scripts/gpu-check.sh), and `tidal rewrite ... -- -DGPT_B=...`
 * analyses the same one. */
#ifndef GPT_B
#define GPT_B 4
#endif
#ifndef GPT_T
#define GPT_T 64
#endif
#ifndef GPT_C
#define GPT_C 128
#endif
#ifndef GPT_L
#define GPT_L 4
#endif
#ifndef GPT_NH
#define GPT_NH 4
#endif
#ifndef GPT_V
#define GPT_V 512
#endif
static const int B = GPT_B;   /* batch size */
static const int T = GPT_T;   /* sequence length (also the position table) */
static const int C = GPT_C;   /* channels */
static const int L = GPT_L;   /* layers */
static const int NH = GPT_NH; /* attention heads */
static const int V = GPT_V;   /* vocabulary */
static const int DEFAULT_STEPS = 10;

/* AdamW hyperparameters. */
static const float LEARNING_RATE = 1e-3f;
static const float BETA1 = 0.9f;
static const float BETA2 = 0.999f;
static const float ADAM_EPS = 1e-8f;
static const float WEIGHT_DECAY = 0.01f;

static const uint64_t PARAM_SEED = 1337;
static const uint64_t DATA_SEED = 42;
static const int BLOCK_SIZE = 256; /* threads per block for every kernel */

/* ------------------------------------------------------------------------
 * Error checking: samples may exit on error (library code never does). */

static void cuda_check(cudaError_t err, const char *file, int line) {
  if (err != cudaSuccess) {
    fprintf(stderr, "%s:%d: CUDA error: %s\n", file, line, cudaGetErrorString(err));
    exit(EXIT_FAILURE);
  }
}
#define cudaCheck(err) (cuda_check((err), __FILE__, __LINE__))

static void cublas_check(cublasStatus_t status, const char *file, int line) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    fprintf(stderr, "%s:%d: cuBLAS error %d\n", file, line, (int)status);
    exit(EXIT_FAILURE);
  }
}
#define cublasCheck(status) (cublas_check((status), __FILE__, __LINE__))

static int ceil_div(int a, int b) {
  return (a + b - 1) / b;
}

/* The same 64-bit LCG as ref.c (Knuth's MMIX constants), high bits out. */
static uint32_t lcg_next(uint64_t *state) {
  *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (uint32_t)(*state >> 32);
}
static float lcg_uniform(uint64_t *state) { /* [0, 1) */
  return (float)(lcg_next(state) >> 8) / 16777216.0f;
}

static cublasHandle_t cublas_handle;

/* ------------------------------------------------------------------------
 * Kernels.  One thread per element or per row: simple and deterministic. */

__global__ void encoder_forward_kernel(float *out, const int *inp, const float *wte,
                                       const float *wpe, int B, int T, int C) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < B * T * C) {
    int bt = idx / C;
    int t = bt % T;
    int c = idx % C;
    out[idx] = wte[inp[bt] * C + c] + wpe[t * C + c];
  }
}

/* Float atomics: tokens repeat within a batch, so several threads add into
 * the same dwte row.  Real trainers do this; the sum order (and so the last
 * bits) varies run to run, and a tool must not treat it as recomputable. */
__global__ void encoder_backward_kernel(float *dwte, float *dwpe, const float *dout, const int *inp,
                                        int B, int T, int C) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < B * T * C) {
    int bt = idx / C;
    int t = bt % T;
    int c = idx % C;
    atomicAdd(&dwte[inp[bt] * C + c], dout[idx]);
    atomicAdd(&dwpe[t * C + c], dout[idx]);
  }
}

__global__ void layernorm_forward_kernel(float *out, float *mean, float *rstd, const float *inp,
                                         const float *weight, const float *bias, int N, int C) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= N) return;
  const float *x = inp + idx * C;
  float m = 0.0f;
  for (int c = 0; c < C; c++)
    m += x[c];
  m /= C;
  float var = 0.0f;
  for (int c = 0; c < C; c++) {
    float d = x[c] - m;
    var += d * d;
  }
  var /= C;
  float s = 1.0f / sqrtf(var + 1e-5f);
  float *o = out + idx * C;
  for (int c = 0; c < C; c++)
    o[c] = s * (x[c] - m) * weight[c] + bias[c];
  mean[idx] = m;
  rstd[idx] = s;
}

/* dinp += d(layernorm)/d(inp) . dout, one thread per row. */
__global__ void layernorm_backward_dinp_kernel(float *dinp, const float *dout, const float *inp,
                                               const float *weight, const float *mean,
                                               const float *rstd, int N, int C) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= N) return;
  const float *dy = dout + idx * C;
  const float *x = inp + idx * C;
  float *dx = dinp + idx * C;
  float m = mean[idx];
  float s = rstd[idx];
  float dnorm_mean = 0.0f;
  float dnorm_norm_mean = 0.0f;
  for (int c = 0; c < C; c++) {
    float norm = (x[c] - m) * s;
    float dnorm = weight[c] * dy[c];
    dnorm_mean += dnorm;
    dnorm_norm_mean += dnorm * norm;
  }
  dnorm_mean /= C;
  dnorm_norm_mean /= C;
  for (int c = 0; c < C; c++) {
    float norm = (x[c] - m) * s;
    float dnorm = weight[c] * dy[c];
    dx[c] += (dnorm - dnorm_mean - norm * dnorm_norm_mean) * s;
  }
}

/* dweight, dbias += sums over rows, one thread per channel (no atomics). */
__global__ void layernorm_backward_dparams_kernel(float *dweight, float *dbias, const float *dout,
                                                  const float *inp, const float *mean,
                                                  const float *rstd, int N, int C) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= C) return;
  float dw = 0.0f;
  float db = 0.0f;
  for (int i = 0; i < N; i++) {
    float norm = (inp[i * C + c] - mean[i]) * rstd[i];
    dw += norm * dout[i * C + c];
    db += dout[i * C + c];
  }
  dweight[c] += dw;
  dbias[c] += db;
}

__global__ void add_bias_kernel(float *out, const float *bias, int N, int OC) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < N * OC) out[idx] += bias[idx % OC];
}

/* dbias[o] += sum over rows of dout[:, o], one thread per output channel. */
__global__ void matmul_backward_bias_kernel(float *dbias, const float *dout, int N, int OC) {
  int o = blockIdx.x * blockDim.x + threadIdx.x;
  if (o >= OC) return;
  float sum = 0.0f;
  for (int i = 0; i < N; i++)
    sum += dout[i * OC + o];
  dbias[o] += sum;
}

/* (B, T, 3, NH, HS) -> q, k, v each (B, NH, T, HS). */
__global__ void permute_kernel(float *q, float *k, float *v, const float *inp, int B, int T, int NH,
                               int HS) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < B * NH * T * HS) {
    int b = idx / (NH * T * HS);
    int rest = idx % (NH * T * HS);
    int h = rest / (T * HS);
    rest = rest % (T * HS);
    int t = rest / HS;
    int d = rest % HS;
    int from = b * T * 3 * NH * HS + t * 3 * NH * HS + h * HS + d;
    q[idx] = inp[from];
    k[idx] = inp[from + NH * HS];
    v[idx] = inp[from + 2 * NH * HS];
  }
}

__global__ void permute_backward_kernel(float *dinp, const float *dq, const float *dk,
                                        const float *dv, int B, int T, int NH, int HS) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < B * NH * T * HS) {
    int b = idx / (NH * T * HS);
    int rest = idx % (NH * T * HS);
    int h = rest / (T * HS);
    rest = rest % (T * HS);
    int t = rest / HS;
    int d = rest % HS;
    int to = b * T * 3 * NH * HS + t * 3 * NH * HS + h * HS + d;
    dinp[to] = dq[idx];
    dinp[to + NH * HS] = dk[idx];
    dinp[to + 2 * NH * HS] = dv[idx];
  }
}

/* (B, NH, T, HS) -> (B, T, NH, HS). */
__global__ void unpermute_kernel(const float *inp, float *out, int B, int T, int NH, int HS) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < B * NH * T * HS) {
    int b = idx / (NH * T * HS);
    int rest = idx % (NH * T * HS);
    int h = rest / (T * HS);
    rest = rest % (T * HS);
    int t = rest / HS;
    int d = rest % HS;
    out[b * T * NH * HS + t * NH * HS + h * HS + d] = inp[idx];
  }
}

__global__ void unpermute_backward_kernel(float *dinp, const float *dout, int B, int T, int NH,
                                          int HS) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < B * NH * T * HS) {
    int b = idx / (NH * T * HS);
    int rest = idx % (NH * T * HS);
    int h = rest / (T * HS);
    rest = rest % (T * HS);
    int t = rest / HS;
    int d = rest % HS;
    dinp[idx] = dout[b * T * NH * HS + t * NH * HS + h * HS + d];
  }
}

/* Causal softmax over each row of preatt (already scaled by the GEMM);
 * masked entries become 0.  One thread per (b, h, t) row. */
__global__ void softmax_forward_kernel(float *att, const float *preatt, int N, int T) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= N * T) return;
  int t = row % T;
  const float *x = preatt + row * T;
  float *y = att + row * T;
  float maxval = -INFINITY;
  for (int t2 = 0; t2 <= t; t2++)
    maxval = fmaxf(maxval, x[t2]);
  float sum = 0.0f;
  for (int t2 = 0; t2 <= t; t2++) {
    float e = expf(x[t2] - maxval);
    y[t2] = e;
    sum += e;
  }
  float inv = 1.0f / sum;
  for (int t2 = 0; t2 < T; t2++)
    y[t2] = t2 <= t ? y[t2] * inv : 0.0f;
}

__global__ void softmax_backward_kernel(float *dpreatt, const float *datt, const float *att, int N,
                                        int T) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= N * T) return;
  int t = row % T;
  const float *a = att + row * T;
  const float *da = datt + row * T;
  float *dp = dpreatt + row * T;
  float dot = 0.0f;
  for (int t2 = 0; t2 <= t; t2++)
    dot += a[t2] * da[t2];
  for (int t2 = 0; t2 < T; t2++)
    dp[t2] = t2 <= t ? a[t2] * (da[t2] - dot) : 0.0f;
}

__global__ void residual_forward_kernel(float *out, const float *inp1, const float *inp2, int N) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < N) out[idx] = inp1[idx] + inp2[idx];
}

#define GELU_SCALING_FACTOR 0.7978845608028654f /* sqrt(2 / pi) */

__global__ void gelu_forward_kernel(float *out, const float *inp, int N) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < N) {
    float x = inp[idx];
    float cube = 0.044715f * x * x * x;
    out[idx] = 0.5f * x * (1.0f + tanhf(GELU_SCALING_FACTOR * (x + cube)));
  }
}

__global__ void gelu_backward_kernel(float *dinp, const float *inp, const float *dout, int N) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < N) {
    float x = inp[idx];
    float cube = 0.044715f * x * x * x;
    float tanh_arg = GELU_SCALING_FACTOR * (x + cube);
    float tanh_out = tanhf(tanh_arg);
    float cosh_out = coshf(tanh_arg);
    float sech2 = 1.0f / (cosh_out * cosh_out);
    float local_grad = 0.5f * (1.0f + tanh_out) +
                       x * 0.5f * sech2 * GELU_SCALING_FACTOR * (1.0f + 3.0f * 0.044715f * x * x);
    dinp[idx] = local_grad * dout[idx];
  }
}

/* Softmax + cross-entropy + its gradient in one pass per row: losses[i] is
 * the row's loss and the row of logits is overwritten with dloss/dlogits
 * (the mean over N rows is the loss, hence dloss_mean = 1/N). */
__global__ void fused_classifier_kernel(float *logits, float *losses, const int *targets, int N,
                                        int V, float dloss_mean) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= N) return;
  float *x = logits + row * V;
  int target = targets[row];
  float maxval = -INFINITY;
  for (int i = 0; i < V; i++)
    maxval = fmaxf(maxval, x[i]);
  float sum = 0.0f;
  for (int i = 0; i < V; i++)
    sum += expf(x[i] - maxval);
  losses[row] = logf(sum) - (x[target] - maxval);
  for (int i = 0; i < V; i++) {
    float p = expf(x[i] - maxval) / sum;
    x[i] = (p - (i == target ? 1.0f : 0.0f)) * dloss_mean;
  }
}

__global__ void adamw_kernel(float *params, const float *grads, float *m, float *v, int N, float lr,
                             float beta1, float beta2, float beta1_correction,
                             float beta2_correction, float eps, float weight_decay) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N) return;
  float g = grads[i];
  float mi = beta1 * m[i] + (1.0f - beta1) * g;
  float vi = beta2 * v[i] + (1.0f - beta2) * g * g;
  m[i] = mi;
  v[i] = vi;
  float mhat = mi / beta1_correction;
  float vhat = vi / beta2_correction;
  params[i] -= lr * (mhat / (sqrtf(vhat) + eps) + weight_decay * params[i]);
}

/* ------------------------------------------------------------------------
 * Host wrappers: one per op, as in real trainers.  Shapes are row-major:
 * inp (B*T, C), weight (OC, C), out (B*T, OC). */

static void encoder_forward(float *out, const int *inp, const float *wte, const float *wpe, int B,
                            int T, int C) {
  encoder_forward_kernel<<<ceil_div(B * T * C, BLOCK_SIZE), BLOCK_SIZE>>>(out, inp, wte, wpe, B, T,
                                                                          C);
  cudaCheck(cudaGetLastError());
}

static void encoder_backward(float *dwte, float *dwpe, const float *dout, const int *inp, int B,
                             int T, int C) {
  encoder_backward_kernel<<<ceil_div(B * T * C, BLOCK_SIZE), BLOCK_SIZE>>>(dwte, dwpe, dout, inp, B,
                                                                           T, C);
  cudaCheck(cudaGetLastError());
}

static void layernorm_forward(float *out, float *mean, float *rstd, const float *inp,
                              const float *weight, const float *bias, int B, int T, int C) {
  int N = B * T;
  layernorm_forward_kernel<<<ceil_div(N, BLOCK_SIZE), BLOCK_SIZE>>>(out, mean, rstd, inp, weight,
                                                                    bias, N, C);
  cudaCheck(cudaGetLastError());
}

static void layernorm_backward(float *dinp, float *dweight, float *dbias, const float *dout,
                               const float *inp, const float *weight, const float *mean,
                               const float *rstd, int B, int T, int C) {
  int N = B * T;
  layernorm_backward_dinp_kernel<<<ceil_div(N, BLOCK_SIZE), BLOCK_SIZE>>>(dinp, dout, inp, weight,
                                                                          mean, rstd, N, C);
  cudaCheck(cudaGetLastError());
  layernorm_backward_dparams_kernel<<<ceil_div(C, BLOCK_SIZE), BLOCK_SIZE>>>(dweight, dbias, dout,
                                                                             inp, mean, rstd, N, C);
  cudaCheck(cudaGetLastError());
}

/* out = inp . weight^T (+ bias).  Column-major: out^T (OC x BT) =
 * weight^T' (OC x C) . inp^T (C x BT). */
static void matmul_forward(float *out, const float *inp, const float *weight, const float *bias,
                           int B, int T, int C, int OC) {
  const float alpha = 1.0f;
  const float beta = 0.0f;
  cublasCheck(cublasSgemm(cublas_handle, CUBLAS_OP_T, CUBLAS_OP_N, OC, B * T, C, &alpha, weight, C,
                          inp, C, &beta, out, OC));
  if (bias != NULL) {
    add_bias_kernel<<<ceil_div(B * T * OC, BLOCK_SIZE), BLOCK_SIZE>>>(out, bias, B * T, OC);
    cudaCheck(cudaGetLastError());
  }
}

/* dinp = dout . weight (overwritten); dweight += dout^T . inp; dbias +=
 * column sums of dout. */
static void matmul_backward(float *dinp, float *dweight, float *dbias, const float *dout,
                            const float *inp, const float *weight, int B, int T, int C, int OC) {
  const float one = 1.0f;
  const float zero = 0.0f;
  /* dinp^T (C x BT) = weight^T (C x OC) . dout^T (OC x BT) */
  cublasCheck(cublasSgemm(cublas_handle, CUBLAS_OP_N, CUBLAS_OP_N, C, B * T, OC, &one, weight, C,
                          dout, OC, &zero, dinp, C));
  /* dweight^T (C x OC) += inp^T (C x BT) . dout (BT x OC) */
  cublasCheck(cublasSgemm(cublas_handle, CUBLAS_OP_N, CUBLAS_OP_T, C, OC, B * T, &one, inp, C, dout,
                          OC, &one, dweight, C));
  if (dbias != NULL) {
    matmul_backward_bias_kernel<<<ceil_div(OC, BLOCK_SIZE), BLOCK_SIZE>>>(dbias, dout, B * T, OC);
    cudaCheck(cudaGetLastError());
  }
}

/* Causal self-attention.  inp is the qkv projection (B, T, 3C); qkvr
 * receives q, k, v permuted to (B, NH, T, HS) and is kept for backward;
 * preatt = q.k^T / sqrt(HS); att = causal softmax(preatt); out (B, T, C).
 * Note [buffer reuse]: once permuted, inp is dead, so it holds the
 * attention output (B, NH, T, HS) before it is unpermuted into out. */
static void attention_forward(float *out, float *qkvr, float *preatt, float *att, float *inp, int B,
                              int T, int C, int NH) {
  int HS = C / NH;
  float *q = qkvr + 0 * B * T * C;
  float *k = qkvr + 1 * B * T * C;
  float *v = qkvr + 2 * B * T * C;
  permute_kernel<<<ceil_div(B * NH * T * HS, BLOCK_SIZE), BLOCK_SIZE>>>(q, k, v, inp, B, T, NH, HS);
  cudaCheck(cudaGetLastError());

  const float scale = 1.0f / sqrtf((float)HS);
  const float zero = 0.0f;
  const float one = 1.0f;
  /* per (b, h): preatt^T (T x T) = k (T x HS) . q^T, i.e. row-major
   * preatt[t][t2] = scale * q[t] . k[t2] */
  cublasCheck(cublasSgemmStridedBatched(cublas_handle, CUBLAS_OP_T, CUBLAS_OP_N, T, T, HS, &scale,
                                        k, HS, T * HS, q, HS, T * HS, &zero, preatt, T, T * T,
                                        B * NH));
  softmax_forward_kernel<<<ceil_div(B * NH * T, BLOCK_SIZE), BLOCK_SIZE>>>(att, preatt, B * NH, T);
  cudaCheck(cudaGetLastError());

  float *vaccum = inp;
  /* per (b, h): y^T (HS x T) = v^T (HS x T) . att^T, i.e. y = att . v */
  cublasCheck(cublasSgemmStridedBatched(cublas_handle, CUBLAS_OP_N, CUBLAS_OP_N, HS, T, T, &one, v,
                                        HS, T * HS, att, T, T * T, &zero, vaccum, HS, T * HS,
                                        B * NH));
  unpermute_kernel<<<ceil_div(B * NH * T * HS, BLOCK_SIZE), BLOCK_SIZE>>>(vaccum, out, B, T, NH,
                                                                          HS);
  cudaCheck(cudaGetLastError());
}

/* Backward of attention_forward.  dinp (B, T, 3C) is overwritten; dqkvr
 * (3 x (B, NH, T, HS)), dpreatt and datt (B, NH, T, T) and scratch
 * (B, NH, T, HS) are working space. */
static void attention_backward(float *dinp, float *dqkvr, float *dpreatt, float *datt,
                               float *scratch, const float *dout, const float *qkvr,
                               const float *att, int B, int T, int C, int NH) {
  int HS = C / NH;
  const float *q = qkvr + 0 * B * T * C;
  const float *k = qkvr + 1 * B * T * C;
  const float *v = qkvr + 2 * B * T * C;
  float *dq = dqkvr + 0 * B * T * C;
  float *dk = dqkvr + 1 * B * T * C;
  float *dv = dqkvr + 2 * B * T * C;
  const float scale = 1.0f / sqrtf((float)HS);
  const float zero = 0.0f;
  const float one = 1.0f;

  unpermute_backward_kernel<<<ceil_div(B * NH * T * HS, BLOCK_SIZE), BLOCK_SIZE>>>(scratch, dout, B,
                                                                                   T, NH, HS);
  cudaCheck(cudaGetLastError());
  /* datt[t][t2] = dy[t] . v[t2] */
  cublasCheck(cublasSgemmStridedBatched(cublas_handle, CUBLAS_OP_T, CUBLAS_OP_N, T, T, HS, &one, v,
                                        HS, T * HS, scratch, HS, T * HS, &zero, datt, T, T * T,
                                        B * NH));
  /* dv = att^T . dy */
  cublasCheck(cublasSgemmStridedBatched(cublas_handle, CUBLAS_OP_N, CUBLAS_OP_T, HS, T, T, &one,
                                        scratch, HS, T * HS, att, T, T * T, &zero, dv, HS, T * HS,
                                        B * NH));
  softmax_backward_kernel<<<ceil_div(B * NH * T, BLOCK_SIZE), BLOCK_SIZE>>>(dpreatt, datt, att,
                                                                            B * NH, T);
  cudaCheck(cudaGetLastError());
  /* dq = scale * dpreatt . k */
  cublasCheck(cublasSgemmStridedBatched(cublas_handle, CUBLAS_OP_N, CUBLAS_OP_N, HS, T, T, &scale,
                                        k, HS, T * HS, dpreatt, T, T * T, &zero, dq, HS, T * HS,
                                        B * NH));
  /* dk = scale * dpreatt^T . q */
  cublasCheck(cublasSgemmStridedBatched(cublas_handle, CUBLAS_OP_N, CUBLAS_OP_T, HS, T, T, &scale,
                                        q, HS, T * HS, dpreatt, T, T * T, &zero, dk, HS, T * HS,
                                        B * NH));
  permute_backward_kernel<<<ceil_div(B * NH * T * HS, BLOCK_SIZE), BLOCK_SIZE>>>(dinp, dq, dk, dv,
                                                                                 B, T, NH, HS);
  cudaCheck(cudaGetLastError());
}

static void residual_forward(float *out, const float *inp1, const float *inp2, int N) {
  residual_forward_kernel<<<ceil_div(N, BLOCK_SIZE), BLOCK_SIZE>>>(out, inp1, inp2, N);
  cudaCheck(cudaGetLastError());
}

static void gelu_forward(float *out, const float *inp, int N) {
  gelu_forward_kernel<<<ceil_div(N, BLOCK_SIZE), BLOCK_SIZE>>>(out, inp, N);
  cudaCheck(cudaGetLastError());
}

static void gelu_backward(float *dinp, const float *inp, const float *dout, int N) {
  gelu_backward_kernel<<<ceil_div(N, BLOCK_SIZE), BLOCK_SIZE>>>(dinp, inp, dout, N);
  cudaCheck(cudaGetLastError());
}

static void fused_classifier(float *logits, float *losses, const int *targets, int B, int T,
                             int V) {
  int N = B * T;
  fused_classifier_kernel<<<ceil_div(N, BLOCK_SIZE), BLOCK_SIZE>>>(logits, losses, targets, N, V,
                                                                   1.0f / (float)N);
  cudaCheck(cudaGetLastError());
}

/* ------------------------------------------------------------------------
 * The model: parameters, activations and their gradients. */

#define NUM_PARAMETER_TENSORS 16
typedef struct {
  float *wte;      /* (V, C) token embedding, tied with the output layer */
  float *wpe;      /* (T, C) position embedding */
  float *ln1w;     /* (L, C) */
  float *ln1b;     /* (L, C) */
  float *qkvw;     /* (L, 3C, C) */
  float *qkvb;     /* (L, 3C) */
  float *attprojw; /* (L, C, C) */
  float *attprojb; /* (L, C) */
  float *ln2w;     /* (L, C) */
  float *ln2b;     /* (L, C) */
  float *fcw;      /* (L, 4C, C) */
  float *fcb;      /* (L, 4C) */
  float *fcprojw;  /* (L, C, 4C) */
  float *fcprojb;  /* (L, C) */
  float *lnfw;     /* (C) */
  float *lnfb;     /* (C) */
} ParameterTensors;

/* Element counts in ParameterTensors order (also the initialisation order
 * shared with ref.c). */
static void fill_in_parameter_sizes(size_t *sizes) {
  sizes[0] = (size_t)V * C;
  sizes[1] = (size_t)T * C;
  sizes[2] = (size_t)L * C;
  sizes[3] = (size_t)L * C;
  sizes[4] = (size_t)L * 3 * C * C;
  sizes[5] = (size_t)L * 3 * C;
  sizes[6] = (size_t)L * C * C;
  sizes[7] = (size_t)L * C;
  sizes[8] = (size_t)L * C;
  sizes[9] = (size_t)L * C;
  sizes[10] = (size_t)L * 4 * C * C;
  sizes[11] = (size_t)L * 4 * C;
  sizes[12] = (size_t)L * C * 4 * C;
  sizes[13] = (size_t)L * C;
  sizes[14] = (size_t)C;
  sizes[15] = (size_t)C;
}

/* Carves one arena into the parameter tensors, in order.  Called for the
 * parameters and again for their gradients. */
static void point_parameters(ParameterTensors *p, float *memory) {
  p->wte = memory;
  p->wpe = p->wte + V * C;
  p->ln1w = p->wpe + T * C;
  p->ln1b = p->ln1w + L * C;
  p->qkvw = p->ln1b + L * C;
  p->qkvb = p->qkvw + L * 3 * C * C;
  p->attprojw = p->qkvb + L * 3 * C;
  p->attprojb = p->attprojw + L * C * C;
  p->ln2w = p->attprojb + L * C;
  p->ln2b = p->ln2w + L * C;
  p->fcw = p->ln2b + L * C;
  p->fcb = p->fcw + L * 4 * C * C;
  p->fcprojw = p->fcb + L * 4 * C;
  p->fcprojb = p->fcprojw + L * C * 4 * C;
  p->lnfw = p->fcprojb + L * C;
  p->lnfb = p->lnfw + C;
}

typedef struct {
  float *encoded;   /* (B, T, C) */
  float *ln1;       /* (L, B, T, C) */
  float *ln1_mean;  /* (L, B, T) */
  float *ln1_rstd;  /* (L, B, T) */
  float *qkv;       /* (L, B, T, 3C); after permuting, scratch (Note [buffer reuse]) */
  float *qkvr;      /* (L, 3, B, NH, T, HS) permuted q, k, v */
  float *atty;      /* (L, B, T, C) */
  float *preatt;    /* (L, B, NH, T, T); holds dpreatt in backward */
  float *att;       /* (L, B, NH, T, T) */
  float *attproj;   /* (L, B, T, C) */
  float *residual2; /* (L, B, T, C) */
  float *ln2;       /* (L, B, T, C) */
  float *ln2_mean;  /* (L, B, T) */
  float *ln2_rstd;  /* (L, B, T) */
  float *fch;       /* (L, B, T, 4C) */
  float *fch_gelu;  /* (L, B, T, 4C) */
  float *fcproj;    /* (L, B, T, C) */
  float *residual3; /* (L, B, T, C) */
  float *lnf;       /* (B, T, C) */
  float *lnf_mean;  /* (B, T) */
  float *lnf_rstd;  /* (B, T) */
  float *logits;    /* (B, T, V); holds dlogits after the classifier */
  float *losses;    /* (B, T) */
} ActivationTensors;

/* Element count of the activation arena, matching point_activations. */
static size_t num_activation_floats(void) {
  size_t per_layer = (size_t)B * T * C * (1 + 3 + 3 + 1 + 1 + 1 + 1 + 4 + 4 + 1 + 1) +
                     (size_t)B * NH * T * T * 2 + (size_t)B * T * 4;
  return per_layer * L + (size_t)B * T * C * 2 + (size_t)B * T * 2 + (size_t)B * T * V +
         (size_t)B * T;
}

static void point_activations(ActivationTensors *a, float *memory) {
  a->encoded = memory;
  a->ln1 = a->encoded + B * T * C;
  a->ln1_mean = a->ln1 + L * B * T * C;
  a->ln1_rstd = a->ln1_mean + L * B * T;
  a->qkv = a->ln1_rstd + L * B * T;
  a->qkvr = a->qkv + L * B * T * 3 * C;
  a->atty = a->qkvr + L * B * T * 3 * C;
  a->preatt = a->atty + L * B * T * C;
  a->att = a->preatt + L * B * NH * T * T;
  a->attproj = a->att + L * B * NH * T * T;
  a->residual2 = a->attproj + L * B * T * C;
  a->ln2 = a->residual2 + L * B * T * C;
  a->ln2_mean = a->ln2 + L * B * T * C;
  a->ln2_rstd = a->ln2_mean + L * B * T;
  a->fch = a->ln2_rstd + L * B * T;
  a->fch_gelu = a->fch + L * B * T * 4 * C;
  a->fcproj = a->fch_gelu + L * B * T * 4 * C;
  a->residual3 = a->fcproj + L * B * T * C;
  a->lnf = a->residual3 + L * B * T * C;
  a->lnf_mean = a->lnf + B * T * C;
  a->lnf_rstd = a->lnf_mean + B * T;
  a->logits = a->lnf_rstd + B * T;
  a->losses = a->logits + B * T * V;
}

/* Activation gradients: one layer's worth, reused by every layer. */
typedef struct {
  float *dresidual; /* (B, T, C) gradient flowing down the residual stream */
  float *dln;       /* (B, T, C) gradient of ln1 / ln2 / lnf outputs */
  float *datty;     /* (B, T, C) */
  float *dqkv;      /* (B, T, 3C) */
  float *dqkvr;     /* (3, B, NH, T, HS) */
  float *datt;      /* (B, NH, T, T) */
  float *dfch;      /* (B, T, 4C) */
  float *dfch_gelu; /* (B, T, 4C) */
} GradActTensors;

static size_t num_grad_act_floats(void) {
  return (size_t)B * T * C * (1 + 1 + 1 + 3 + 3 + 4 + 4) + (size_t)B * NH * T * T;
}

static void point_grad_acts(GradActTensors *g, float *memory) {
  g->dresidual = memory;
  g->dln = g->dresidual + B * T * C;
  g->datty = g->dln + B * T * C;
  g->dqkv = g->datty + B * T * C;
  g->dqkvr = g->dqkv + B * T * 3 * C;
  g->datt = g->dqkvr + B * T * 3 * C;
  g->dfch = g->datt + B * NH * T * T;
  g->dfch_gelu = g->dfch + B * T * 4 * C;
}

typedef struct {
  ParameterTensors params;
  float *params_memory;
  ParameterTensors grads;
  float *grads_memory;
  float *m_memory; /* AdamW first moments */
  float *v_memory; /* AdamW second moments */
  ParameterTensors m; /* the moments carved like the parameters, for per-tensor updates */
  ParameterTensors v;
  size_t num_parameters;
  ActivationTensors acts;
  float *acts_memory;
  size_t num_activations;
  GradActTensors grads_acts;
  float *grads_acts_memory;
  size_t num_grad_acts;
  int *inputs;       /* (B, T) device */
  int *targets;      /* (B, T) device */
  float *cpu_losses; /* (B, T) host copy of acts.losses */
  float mean_loss;
} GPT;

static void gpt_build(GPT *model) {
  size_t sizes[NUM_PARAMETER_TENSORS];
  fill_in_parameter_sizes(sizes);
  size_t n = 0;
  for (int i = 0; i < NUM_PARAMETER_TENSORS; i++)
    n += sizes[i];
  model->num_parameters = n;

  /* Deterministic init on the host, in tensor order: layernorm weights 1,
   * biases 0, matrices and embeddings uniform with std 0.02. */
  float *host = (float *)malloc(n * sizeof(float));
  if (host == NULL) {
    fprintf(stderr, "%s:%d: out of host memory\n", __FILE__, __LINE__);
    exit(EXIT_FAILURE);
  }
  uint64_t rng = PARAM_SEED;
  const float range = 0.02f * 1.7320508f; /* uniform(-r, r) has std r/sqrt(3) */
  size_t off = 0;
  for (int i = 0; i < NUM_PARAMETER_TENSORS; i++) {
    int is_ln_weight = i == 2 || i == 8 || i == 14;
    int is_bias = i == 3 || i == 5 || i == 7 || i == 9 || i == 11 || i == 13 || i == 15;
    for (size_t j = 0; j < sizes[i]; j++) {
      float w;
      if (is_ln_weight)
        w = 1.0f;
      else if (is_bias)
        w = 0.0f;
      else
        w = (2.0f * lcg_uniform(&rng) - 1.0f) * range;
      host[off + j] = w;
    }
    off += sizes[i];
  }

  cudaCheck(cudaMalloc((void **)&model->params_memory, n * sizeof(float)));
  cudaCheck(cudaMemcpy(model->params_memory, host, n * sizeof(float), cudaMemcpyHostToDevice));
  free(host);
  point_parameters(&model->params, model->params_memory);
  cudaCheck(cudaMalloc((void **)&model->grads_memory, n * sizeof(float)));
  point_parameters(&model->grads, model->grads_memory);
  cudaCheck(cudaMalloc((void **)&model->m_memory, n * sizeof(float)));
  cudaCheck(cudaMemset(model->m_memory, 0, n * sizeof(float)));
  cudaCheck(cudaMalloc((void **)&model->v_memory, n * sizeof(float)));
  cudaCheck(cudaMemset(model->v_memory, 0, n * sizeof(float)));
  point_parameters(&model->m, model->m_memory);
  point_parameters(&model->v, model->v_memory);

  model->num_activations = num_activation_floats();
  cudaCheck(cudaMalloc((void **)&model->acts_memory, model->num_activations * sizeof(float)));
  point_activations(&model->acts, model->acts_memory);
  if (model->acts.losses + B * T != model->acts_memory + model->num_activations) {
    fprintf(stderr, "%s:%d: activation arena size is out of sync\n", __FILE__, __LINE__);
    exit(EXIT_FAILURE);
  }

  model->num_grad_acts = num_grad_act_floats();
  cudaCheck(cudaMalloc((void **)&model->grads_acts_memory, model->num_grad_acts * sizeof(float)));
  point_grad_acts(&model->grads_acts, model->grads_acts_memory);
  if (model->grads_acts.dfch_gelu + B * T * 4 * C !=
      model->grads_acts_memory + model->num_grad_acts) {
    fprintf(stderr, "%s:%d: activation gradient arena size is out of sync\n", __FILE__, __LINE__);
    exit(EXIT_FAILURE);
  }

  cudaCheck(cudaMalloc((void **)&model->inputs, B * T * sizeof(int)));
  cudaCheck(cudaMalloc((void **)&model->targets, B * T * sizeof(int)));
  model->cpu_losses = (float *)malloc(B * T * sizeof(float));
  if (model->cpu_losses == NULL) {
    fprintf(stderr, "%s:%d: out of host memory\n", __FILE__, __LINE__);
    exit(EXIT_FAILURE);
  }
  model->mean_loss = 0.0f;
}

static void gpt_free(GPT *model) {
  cudaCheck(cudaFree(model->params_memory));
  cudaCheck(cudaFree(model->grads_memory));
  cudaCheck(cudaFree(model->m_memory));
  cudaCheck(cudaFree(model->v_memory));
  cudaCheck(cudaFree(model->acts_memory));
  cudaCheck(cudaFree(model->grads_acts_memory));
  cudaCheck(cudaFree(model->inputs));
  cudaCheck(cudaFree(model->targets));
  free(model->cpu_losses);
}

/* Forward pass; the mean loss over the batch lands in model->mean_loss and
 * acts.logits holds dloss/dlogits afterwards. */
static void gpt_forward(GPT *model, const int *inputs, const int *targets) {
  cudaCheck(cudaMemcpy(model->inputs, inputs, B * T * sizeof(int), cudaMemcpyHostToDevice));
  cudaCheck(cudaMemcpy(model->targets, targets, B * T * sizeof(int), cudaMemcpyHostToDevice));

  ParameterTensors params = model->params;
  ActivationTensors acts = model->acts;
  float *residual;
  encoder_forward(acts.encoded, model->inputs, params.wte, params.wpe, B, T, C);

  for (int l = 0; l < L; l++) {
    residual = l == 0 ? acts.encoded : acts.residual3 + (l - 1) * B * T * C;

    float *l_ln1w = params.ln1w + l * C;
    float *l_ln1b = params.ln1b + l * C;
    float *l_qkvw = params.qkvw + l * 3 * C * C;
    float *l_qkvb = params.qkvb + l * 3 * C;
    float *l_attprojw = params.attprojw + l * C * C;
    float *l_attprojb = params.attprojb + l * C;
    float *l_ln2w = params.ln2w + l * C;
    float *l_ln2b = params.ln2b + l * C;
    float *l_fcw = params.fcw + l * 4 * C * C;
    float *l_fcb = params.fcb + l * 4 * C;
    float *l_fcprojw = params.fcprojw + l * C * 4 * C;
    float *l_fcprojb = params.fcprojb + l * C;

    float *l_ln1 = acts.ln1 + l * B * T * C;
    float *l_ln1_mean = acts.ln1_mean + l * B * T;
    float *l_ln1_rstd = acts.ln1_rstd + l * B * T;
    float *l_qkv = acts.qkv + l * B * T * 3 * C;
    float *l_qkvr = acts.qkvr + l * B * T * 3 * C;
    float *l_atty = acts.atty + l * B * T * C;
    float *l_preatt = acts.preatt + l * B * NH * T * T;
    float *l_att = acts.att + l * B * NH * T * T;
    float *l_attproj = acts.attproj + l * B * T * C;
    float *l_residual2 = acts.residual2 + l * B * T * C;
    float *l_ln2 = acts.ln2 + l * B * T * C;
    float *l_ln2_mean = acts.ln2_mean + l * B * T;
    float *l_ln2_rstd = acts.ln2_rstd + l * B * T;
    float *l_fch = acts.fch + l * B * T * 4 * C;
    float *l_fch_gelu = acts.fch_gelu + l * B * T * 4 * C;
    float *l_fcproj = acts.fcproj + l * B * T * C;
    float *l_residual3 = acts.residual3 + l * B * T * C;

    layernorm_forward(l_ln1, l_ln1_mean, l_ln1_rstd, residual, l_ln1w, l_ln1b, B, T, C);
    matmul_forward(l_qkv, l_ln1, l_qkvw, l_qkvb, B, T, C, 3 * C);
    attention_forward(l_atty, l_qkvr, l_preatt, l_att, l_qkv, B, T, C, NH);
    matmul_forward(l_attproj, l_atty, l_attprojw, l_attprojb, B, T, C, C);
    residual_forward(l_residual2, residual, l_attproj, B * T * C);
    layernorm_forward(l_ln2, l_ln2_mean, l_ln2_rstd, l_residual2, l_ln2w, l_ln2b, B, T, C);
    matmul_forward(l_fch, l_ln2, l_fcw, l_fcb, B, T, C, 4 * C);
    gelu_forward(l_fch_gelu, l_fch, B * T * 4 * C);
    matmul_forward(l_fcproj, l_fch_gelu, l_fcprojw, l_fcprojb, B, T, 4 * C, C);
    residual_forward(l_residual3, l_residual2, l_fcproj, B * T * C);
  }

  residual = acts.residual3 + (L - 1) * B * T * C;
  layernorm_forward(acts.lnf, acts.lnf_mean, acts.lnf_rstd, residual, params.lnfw, params.lnfb, B,
                    T, C);
  matmul_forward(acts.logits, acts.lnf, params.wte, NULL, B, T, C, V);
  fused_classifier(acts.logits, acts.losses, model->targets, B, T, V);

  cudaCheck(
      cudaMemcpy(model->cpu_losses, acts.losses, B * T * sizeof(float), cudaMemcpyDeviceToHost));
  float sum = 0.0f;
  for (int i = 0; i < B * T; i++)
    sum += model->cpu_losses[i];
  model->mean_loss = sum / (B * T);
}

static void gpt_zero_grad(GPT *model) {
  cudaCheck(cudaMemset(model->grads_memory, 0, model->num_parameters * sizeof(float)));
  cudaCheck(cudaMemset(model->grads_acts_memory, 0, model->num_grad_acts * sizeof(float)));
}

static void gpt_backward(GPT *model) {
  ParameterTensors params = model->params;
  ParameterTensors grads = model->grads;
  ActivationTensors acts = model->acts;
  GradActTensors grads_acts = model->grads_acts;

  /* The classifier left dlogits in acts.logits. */
  float *dlogits = acts.logits;
  float *dresidual = grads_acts.dresidual;
  float *residual = acts.residual3 + (L - 1) * B * T * C;
  matmul_backward(grads_acts.dln, grads.wte, NULL, dlogits, acts.lnf, params.wte, B, T, C, V);
  layernorm_backward(dresidual, grads.lnfw, grads.lnfb, grads_acts.dln, residual, params.lnfw,
                     acts.lnf_mean, acts.lnf_rstd, B, T, C);

  for (int l = L - 1; l >= 0; l--) {
    residual = l == 0 ? acts.encoded : acts.residual3 + (l - 1) * B * T * C;

    float *l_ln1w = params.ln1w + l * C;
    float *l_qkvw = params.qkvw + l * 3 * C * C;
    float *l_attprojw = params.attprojw + l * C * C;
    float *l_ln2w = params.ln2w + l * C;
    float *l_fcw = params.fcw + l * 4 * C * C;
    float *l_fcprojw = params.fcprojw + l * C * 4 * C;

    float *dl_ln1w = grads.ln1w + l * C;
    float *dl_ln1b = grads.ln1b + l * C;
    float *dl_qkvw = grads.qkvw + l * 3 * C * C;
    float *dl_qkvb = grads.qkvb + l * 3 * C;
    float *dl_attprojw = grads.attprojw + l * C * C;
    float *dl_attprojb = grads.attprojb + l * C;
    float *dl_ln2w = grads.ln2w + l * C;
    float *dl_ln2b = grads.ln2b + l * C;
    float *dl_fcw = grads.fcw + l * 4 * C * C;
    float *dl_fcb = grads.fcb + l * 4 * C;
    float *dl_fcprojw = grads.fcprojw + l * C * 4 * C;
    float *dl_fcprojb = grads.fcprojb + l * C;

    float *l_ln1 = acts.ln1 + l * B * T * C;
    float *l_ln1_mean = acts.ln1_mean + l * B * T;
    float *l_ln1_rstd = acts.ln1_rstd + l * B * T;
    float *l_qkv = acts.qkv + l * B * T * 3 * C;
    float *l_qkvr = acts.qkvr + l * B * T * 3 * C;
    float *l_atty = acts.atty + l * B * T * C;
    float *l_preatt = acts.preatt + l * B * NH * T * T;
    float *l_att = acts.att + l * B * NH * T * T;
    float *l_residual2 = acts.residual2 + l * B * T * C;
    float *l_ln2 = acts.ln2 + l * B * T * C;
    float *l_ln2_mean = acts.ln2_mean + l * B * T;
    float *l_ln2_rstd = acts.ln2_rstd + l * B * T;
    float *l_fch = acts.fch + l * B * T * 4 * C;
    float *l_fch_gelu = acts.fch_gelu + l * B * T * 4 * C;

    /* Note [buffer reuse]: preatt is only read by the forward softmax and
     * this layer's qkv slot only held forward scratch, so backward writes
     * dpreatt over preatt and unpermutes dy into the qkv slot. */
    float *dl_preatt = l_preatt;
    float *scratch = l_qkv;

    /* residual3 = residual2 + fcproj: both receive dresidual. */
    matmul_backward(grads_acts.dfch_gelu, dl_fcprojw, dl_fcprojb, dresidual, l_fch_gelu, l_fcprojw,
                    B, T, 4 * C, C);
    gelu_backward(grads_acts.dfch, l_fch, grads_acts.dfch_gelu, B * T * 4 * C);
    matmul_backward(grads_acts.dln, dl_fcw, dl_fcb, grads_acts.dfch, l_ln2, l_fcw, B, T, C, 4 * C);
    layernorm_backward(dresidual, dl_ln2w, dl_ln2b, grads_acts.dln, l_residual2, l_ln2w, l_ln2_mean,
                       l_ln2_rstd, B, T, C);
    /* residual2 = residual + attproj: both receive dresidual. */
    matmul_backward(grads_acts.datty, dl_attprojw, dl_attprojb, dresidual, l_atty, l_attprojw, B, T,
                    C, C);
    attention_backward(grads_acts.dqkv, grads_acts.dqkvr, dl_preatt, grads_acts.datt, scratch,
                       grads_acts.datty, l_qkvr, l_att, B, T, C, NH);
    matmul_backward(grads_acts.dln, dl_qkvw, dl_qkvb, grads_acts.dqkv, l_ln1, l_qkvw, B, T, C,
                    3 * C);
    layernorm_backward(dresidual, dl_ln1w, dl_ln1b, grads_acts.dln, residual, l_ln1w, l_ln1_mean,
                       l_ln1_rstd, B, T, C);
  }
  encoder_backward(grads.wte, grads.wpe, dresidual, model->inputs, B, T, C);
}

/* The AdamW hyperparameters of one step. */
typedef struct {
  float lr, beta1, beta2, beta1_correction, beta2_correction, eps, weight_decay;
} AdamWStep;

/* Updates one parameter tensor of n floats. */
static void adamw_update(float *params, const float *grads, float *m, float *v, int n,
                         const AdamWStep *s) {
  adamw_kernel<<<ceil_div(n, BLOCK_SIZE), BLOCK_SIZE>>>(params, grads, m, v, n, s->lr, s->beta1,
                                                        s->beta2, s->beta1_correction,
                                                        s->beta2_correction, s->eps,
                                                        s->weight_decay);
  cudaCheck(cudaGetLastError());
}

/* One launch per parameter tensor, as non-fused optimizers do: the update
 * is elementwise, so the result is the same as one launch over the whole
 * arena, but each launch's working set is one tensor's parameters,
 * gradients and moments, not all of them at once (four times the parameter
 * bytes).  A memory manager can only go as low as the largest op's working
 * set.  The calls are written out, not a loop over the arena slices,
 * because `tidal graph` resolves a pointer offset only as a closed form of
 * loop variables, and the slice offsets are a running sum. */
static void gpt_update(GPT *model, float lr, float beta1, float beta2, float eps,
                       float weight_decay, int t) {
  AdamWStep s = {lr, beta1, beta2, 1.0f - powf(beta1, (float)t), 1.0f - powf(beta2, (float)t),
                 eps, weight_decay};
  ParameterTensors p = model->params, g = model->grads, m = model->m, v = model->v;
  adamw_update(p.wte, g.wte, m.wte, v.wte, V * C, &s);
  adamw_update(p.wpe, g.wpe, m.wpe, v.wpe, T * C, &s);
  adamw_update(p.ln1w, g.ln1w, m.ln1w, v.ln1w, L * C, &s);
  adamw_update(p.ln1b, g.ln1b, m.ln1b, v.ln1b, L * C, &s);
  adamw_update(p.qkvw, g.qkvw, m.qkvw, v.qkvw, L * 3 * C * C, &s);
  adamw_update(p.qkvb, g.qkvb, m.qkvb, v.qkvb, L * 3 * C, &s);
  adamw_update(p.attprojw, g.attprojw, m.attprojw, v.attprojw, L * C * C, &s);
  adamw_update(p.attprojb, g.attprojb, m.attprojb, v.attprojb, L * C, &s);
  adamw_update(p.ln2w, g.ln2w, m.ln2w, v.ln2w, L * C, &s);
  adamw_update(p.ln2b, g.ln2b, m.ln2b, v.ln2b, L * C, &s);
  adamw_update(p.fcw, g.fcw, m.fcw, v.fcw, L * 4 * C * C, &s);
  adamw_update(p.fcb, g.fcb, m.fcb, v.fcb, L * 4 * C, &s);
  adamw_update(p.fcprojw, g.fcprojw, m.fcprojw, v.fcprojw, L * C * 4 * C, &s);
  adamw_update(p.fcprojb, g.fcprojb, m.fcprojb, v.fcprojb, L * C, &s);
  adamw_update(p.lnfw, g.lnfw, m.lnfw, v.lnfw, C, &s);
  adamw_update(p.lnfb, g.lnfb, m.lnfb, v.lnfb, C, &s);
}

/* ------------------------------------------------------------------------
 * Data: B sequences of T+1 tokens over the first V/8 tokens of the
 * vocabulary, following a noisy rule, next = (5 * tok + 3 + noise) mod
 * (V/8) with noise in {0, 1, 2}: the loss falls from ln V as the model
 * learns which tokens occur, then towards ln 3 as it learns the rule.  The
 * same generator is in ref.c. */
static void make_batch(uint64_t *rng, int *inputs, int *targets) {
  const uint32_t used = (uint32_t)V / 8;
  for (int b = 0; b < B; b++) {
    int tok = (int)(lcg_next(rng) % used);
    for (int t = 0; t < T; t++) {
      int next = (int)((5u * (uint32_t)tok + 3u + lcg_next(rng) % 3u) % used);
      inputs[b * T + t] = tok;
      targets[b * T + t] = next;
      tok = next;
    }
  }
}

/* Host wall clock in ms: the third column of SAMPLE_LOSS_FILE is each
 * step's wall time, taken after the loss is read back (which waits for the
 * device), so per-step times exclude start-up (bench/gpu_overhead.sh). */
static double wall_ms(void) {
  struct timespec ts; /* C11's clock: the sim twin is built as strict C11 */
  timespec_get(&ts, TIME_UTC);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

int main(int argc, char **argv) {
  int steps = DEFAULT_STEPS;
  if (argc > 1) {
    steps = atoi(argv[1]);
    if (steps <= 0) {
      fprintf(stderr, "usage: %s [steps]\n", argv[0]);
      return 2;
    }
  }
  int device_count = 0;
  if (cudaGetDeviceCount(&device_count) != cudaSuccess || device_count == 0) {
    printf("no CUDA device; skipping\n");
    return 77;
  }
  FILE *loss_file = NULL;
  const char *loss_path = getenv("SAMPLE_LOSS_FILE");
  if (loss_path != NULL && loss_path[0] != '\0') {
    loss_file = fopen(loss_path, "w");
    if (loss_file == NULL) {
      fprintf(stderr, "%s:%d: cannot open %s\n", __FILE__, __LINE__, loss_path);
      return 1;
    }
  }

  cublasCheck(cublasCreate(&cublas_handle));
  /* Full fp32 GEMMs: the losses are compared with the CPU reference. */
  cublasCheck(cublasSetMathMode(cublas_handle, CUBLAS_DEFAULT_MATH));

  GPT model;
  gpt_build(&model);
  printf("config: B=%d T=%d C=%d L=%d NH=%d V=%d\n", B, T, C, L, NH, V);
  printf("parameters: %zu floats, activations: %zu floats, activation grads: %zu floats\n",
         model.num_parameters, model.num_activations, model.num_grad_acts);

  int *inputs = (int *)malloc(B * T * sizeof(int));
  int *targets = (int *)malloc(B * T * sizeof(int));
  if (inputs == NULL || targets == NULL) {
    fprintf(stderr, "%s:%d: out of host memory\n", __FILE__, __LINE__);
    return 1;
  }
  uint64_t data_rng = DATA_SEED;

  double t_prev = wall_ms();
  for (int step = 0; step < steps; step++) {
    make_batch(&data_rng, inputs, targets);
    gpt_forward(&model, inputs, targets);
    gpt_zero_grad(&model);
    gpt_backward(&model);
    gpt_update(&model, LEARNING_RATE, BETA1, BETA2, ADAM_EPS, WEIGHT_DECAY, step + 1);
    cudaCheck(cudaDeviceSynchronize());
    double t_now = wall_ms();
    printf("step %d: loss %.6f\n", step, model.mean_loss);
    if (loss_file != NULL)
      fprintf(loss_file, "%d %.9g %.3f\n", step, model.mean_loss, t_now - t_prev);
    t_prev = t_now;
  }

  if (loss_file != NULL && fclose(loss_file) != 0) {
    fprintf(stderr, "%s:%d: cannot write %s\n", __FILE__, __LINE__, loss_path);
    return 1;
  }
  free(inputs);
  free(targets);
  gpt_free(&model);
  cublasCheck(cublasDestroy(cublas_handle));
  return 0;
}
