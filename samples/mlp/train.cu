/* train.cu - an MLP classifier (two ReLU hidden layers) trained with SGD on
 * generated data: points scattered around K class centres.
 *
 * A tidal sample: a small, plain input for `tidal graph/rewrite/replay`, and
 * with samples/mlp/ref.c a program whose losses can be checked against a
 * plain-C reference of the same math.  Design decisions a reader needs:
 *  - Sizes are compile-time #defines (no argv override) so the static
 *    analysis can bind every extent; argv[1] may set the step count.
 *  - One cudaMalloc per tensor: parameters, gradients, activations.
 *  - Linear layers are cuBLAS SGEMMs; bias, ReLU, softmax-cross-entropy and
 *    SGD are kernels, one thread per element or row, deterministic.
 *  - The training loop is marked with `#pragma tidal train`.
 *  - float32 only.  Matrices are row-major; cuBLAS is column-major, so each
 *    GEMM computes the transposed product (see linear_forward).
 *  - SAMPLE_LOSS_FILE=path makes the program write "step loss ms" lines
 *    there (ms: the step's wall time; test/samples/compare_losses.py
 *    compares the losses with the reference).
 *  - Exit 77 without a CUDA device (the ctest SKIP_RETURN_CODE).
 */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Sizes.  Keep in sync with mlp_ref_default_config() in ref.c: the GPU loss
 * comparison checks the printed config line. */
#define BATCH 256  /* examples per step */
#define IN_DIM 64  /* input features */
#define HIDDEN 512 /* units in each hidden layer */
#define CLASSES 10 /* output classes */
#define DEFAULT_STEPS 10

static const float LEARNING_RATE = 0.2f;
static const float NOISE = 1.0f; /* spread of the points around their centre */
static const uint64_t PARAM_SEED = 1234;
static const uint64_t DATA_SEED = 99;
static const int BLOCK_SIZE = 256;

static void cuda_check(cudaError_t err, const char *file, int line) {
  if (err != cudaSuccess) {
    fprintf(stderr, "%s:%d: CUDA error: %s\n", file, line, cudaGetErrorString(err));
    exit(EXIT_FAILURE);
  }
}
#define CUDA_CHECK(err) (cuda_check((err), __FILE__, __LINE__))

static void cublas_check(cublasStatus_t status, const char *file, int line) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    fprintf(stderr, "%s:%d: cuBLAS error %d\n", file, line, (int)status);
    exit(EXIT_FAILURE);
  }
}
#define CUBLAS_CHECK(status) (cublas_check((status), __FILE__, __LINE__))

static int ceil_div(int a, int b) {
  return (a + b - 1) / b;
}

/* The same 64-bit LCG as ref.c. */
static uint32_t lcg_next(uint64_t *state) {
  *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (uint32_t)(*state >> 32);
}
static float lcg_symmetric(uint64_t *state) { /* [-1, 1) */
  return 2.0f * ((float)(lcg_next(state) >> 8) / 16777216.0f) - 1.0f;
}

static cublasHandle_t cublas;

/* ---- kernels ---- */

__global__ void bias_add_kernel(float *out, const float *bias, int N, int OUT) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N * OUT) out[i] += bias[i % OUT];
}

/* dbias[o] = sum over rows of dout[:, o]; one thread per column. */
__global__ void bias_backward_kernel(float *dbias, const float *dout, int N, int OUT) {
  int o = blockIdx.x * blockDim.x + threadIdx.x;
  if (o >= OUT) return;
  float sum = 0.0f;
  for (int n = 0; n < N; n++)
    sum += dout[n * OUT + o];
  dbias[o] = sum;
}

__global__ void relu_forward_kernel(float *out, const float *inp, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = inp[i] > 0.0f ? inp[i] : 0.0f;
}

__global__ void relu_backward_kernel(float *dinp, const float *dout, const float *inp, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dinp[i] = inp[i] > 0.0f ? dout[i] : 0.0f;
}

/* probs = softmax(logits) per row; losses[n] = -log probs[n][label]. */
__global__ void softmax_xent_forward_kernel(float *probs, float *losses, const float *logits,
                                            const int *labels, int N, int K) {
  int n = blockIdx.x * blockDim.x + threadIdx.x;
  if (n >= N) return;
  const float *x = logits + n * K;
  float *p = probs + n * K;
  float maxval = -INFINITY;
  for (int k = 0; k < K; k++)
    maxval = fmaxf(maxval, x[k]);
  float sum = 0.0f;
  for (int k = 0; k < K; k++) {
    p[k] = expf(x[k] - maxval);
    sum += p[k];
  }
  for (int k = 0; k < K; k++)
    p[k] /= sum;
  losses[n] = logf(sum) - (x[labels[n]] - maxval);
}

/* dlogits of the mean loss: (probs - onehot(label)) / N. */
__global__ void softmax_xent_backward_kernel(float *dlogits, const float *probs, const int *labels,
                                             int N, int K) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N * K) {
    int n = i / K;
    int k = i % K;
    dlogits[i] = (probs[i] - (k == labels[n] ? 1.0f : 0.0f)) / N;
  }
}

__global__ void sgd_kernel(float *param, const float *grad, float lr, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) param[i] -= lr * grad[i];
}

/* ---- host wrappers ---- */

/* out (N, OUT) = inp (N, IN) . weight^T + bias, weight (OUT, IN).
 * Column-major: out^T (OUT x N) = weight^T' (OUT x IN) . inp^T (IN x N). */
static void linear_forward(float *out, const float *inp, const float *weight, const float *bias,
                           int N, int IN, int OUT) {
  const float one = 1.0f, zero = 0.0f;
  CUBLAS_CHECK(cublasSgemm(cublas, CUBLAS_OP_T, CUBLAS_OP_N, OUT, N, IN, &one, weight, IN, inp, IN,
                           &zero, out, OUT));
  bias_add_kernel<<<ceil_div(N * OUT, BLOCK_SIZE), BLOCK_SIZE>>>(out, bias, N, OUT);
  CUDA_CHECK(cudaGetLastError());
}

/* dweight = dout^T . inp; dbias = column sums of dout; dinp = dout .
 * weight unless dinp is NULL (the input layer needs no input gradient). */
static void linear_backward(float *dinp, float *dweight, float *dbias, const float *dout,
                            const float *inp, const float *weight, int N, int IN, int OUT) {
  const float one = 1.0f, zero = 0.0f;
  /* dweight^T (IN x OUT) = inp^T (IN x N) . dout (N x OUT) */
  CUBLAS_CHECK(cublasSgemm(cublas, CUBLAS_OP_N, CUBLAS_OP_T, IN, OUT, N, &one, inp, IN, dout, OUT,
                           &zero, dweight, IN));
  bias_backward_kernel<<<ceil_div(OUT, BLOCK_SIZE), BLOCK_SIZE>>>(dbias, dout, N, OUT);
  CUDA_CHECK(cudaGetLastError());
  if (dinp != NULL) {
    /* dinp^T (IN x N) = weight^T (IN x OUT) . dout^T (OUT x N) */
    CUBLAS_CHECK(cublasSgemm(cublas, CUBLAS_OP_N, CUBLAS_OP_N, IN, N, OUT, &one, weight, IN, dout,
                             OUT, &zero, dinp, IN));
  }
}

static void relu_forward(float *out, const float *inp, int n) {
  relu_forward_kernel<<<ceil_div(n, BLOCK_SIZE), BLOCK_SIZE>>>(out, inp, n);
  CUDA_CHECK(cudaGetLastError());
}

static void relu_backward(float *dinp, const float *dout, const float *inp, int n) {
  relu_backward_kernel<<<ceil_div(n, BLOCK_SIZE), BLOCK_SIZE>>>(dinp, dout, inp, n);
  CUDA_CHECK(cudaGetLastError());
}

static void softmax_xent_forward(float *probs, float *losses, const float *logits,
                                 const int *labels, int N, int K) {
  softmax_xent_forward_kernel<<<ceil_div(N, BLOCK_SIZE), BLOCK_SIZE>>>(probs, losses, logits,
                                                                       labels, N, K);
  CUDA_CHECK(cudaGetLastError());
}

static void softmax_xent_backward(float *dlogits, const float *probs, const int *labels, int N,
                                  int K) {
  softmax_xent_backward_kernel<<<ceil_div(N * K, BLOCK_SIZE), BLOCK_SIZE>>>(dlogits, probs, labels,
                                                                            N, K);
  CUDA_CHECK(cudaGetLastError());
}

static void sgd_update(float *param, const float *grad, float lr, int n) {
  sgd_kernel<<<ceil_div(n, BLOCK_SIZE), BLOCK_SIZE>>>(param, grad, lr, n);
  CUDA_CHECK(cudaGetLastError());
}

/* ---- data: BATCH points per step around CLASSES fixed centres (same
 * generator as ref.c) ---- */

static void make_centres(uint64_t *rng, float *centres) {
  for (int i = 0; i < CLASSES * IN_DIM; i++)
    centres[i] = lcg_symmetric(rng);
}

static void make_batch(uint64_t *rng, const float *centres, float *x, int *labels) {
  for (int n = 0; n < BATCH; n++) {
    int k = (int)(lcg_next(rng) % CLASSES);
    labels[n] = k;
    for (int d = 0; d < IN_DIM; d++)
      x[n * IN_DIM + d] = centres[k * IN_DIM + d] + NOISE * lcg_symmetric(rng);
  }
}

/* Uniform(-1/sqrt(fan_in), 1/sqrt(fan_in)) weights, zero biases, drawn in
 * the order W1, W2, W3 (as ref.c). */
static void init_linear(uint64_t *rng, float *host, float *weight, float *bias, int IN, int OUT) {
  float scale = 1.0f / sqrtf((float)IN);
  for (int i = 0; i < OUT * IN; i++)
    host[i] = scale * lcg_symmetric(rng);
  CUDA_CHECK(cudaMemcpy(weight, host, (size_t)OUT * IN * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(bias, 0, (size_t)OUT * sizeof(float)));
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
  CUBLAS_CHECK(cublasCreate(&cublas));
  CUBLAS_CHECK(cublasSetMathMode(cublas, CUBLAS_DEFAULT_MATH)); /* full fp32 */
  printf("config: BATCH=%d IN_DIM=%d HIDDEN=%d CLASSES=%d\n", BATCH, IN_DIM, HIDDEN, CLASSES);

  /* parameters */
  float *w1, *b1, *w2, *b2, *w3, *b3;
  CUDA_CHECK(cudaMalloc((void **)&w1, HIDDEN * IN_DIM * sizeof(float)));
  CUDA_CHECK(cudaMalloc((void **)&b1, HIDDEN * sizeof(float)));
  CUDA_CHECK(cudaMalloc((void **)&w2, HIDDEN * HIDDEN * sizeof(float)));
  CUDA_CHECK(cudaMalloc((void **)&b2, HIDDEN * sizeof(float)));
  CUDA_CHECK(cudaMalloc((void **)&w3, CLASSES * HIDDEN * sizeof(float)));
  CUDA_CHECK(cudaMalloc((void **)&b3, CLASSES * sizeof(float)));
  /* gradients */
  float *dw1, *db1, *dw2, *db2, *dw3, *db3;
  CUDA_CHECK(cudaMalloc((void **)&dw1, HIDDEN * IN_DIM * sizeof(float)));
  CUDA_CHECK(cudaMalloc((void **)&db1, HIDDEN * sizeof(float)));
  CUDA_CHECK(cudaMalloc((void **)&dw2, HIDDEN * HIDDEN * sizeof(float)));
  CUDA_CHECK(cudaMalloc((void **)&db2, HIDDEN * sizeof(float)));
  CUDA_CHECK(cudaMalloc((void **)&dw3, CLASSES * HIDDEN * sizeof(float)));
  CUDA_CHECK(cudaMalloc((void **)&db3, CLASSES * sizeof(float)));
  /* activations and their gradients */
  float *x, *h1, *a1, *h2, *a2, *logits, *probs, *losses;
  int *labels;
  CUDA_CHECK(cudaMalloc((void **)&x, BATCH * IN_DIM * sizeof(float)));
  CUDA_CHECK(cudaMalloc((void **)&labels, BATCH * sizeof(int)));
  CUDA_CHECK(cudaMalloc((void **)&h1, BATCH * HIDDEN * sizeof(float)));
  CUDA_CHECK(cudaMalloc((void **)&a1, BATCH * HIDDEN * sizeof(float)));
  CUDA_CHECK(cudaMalloc((void **)&h2, BATCH * HIDDEN * sizeof(float)));
  CUDA_CHECK(cudaMalloc((void **)&a2, BATCH * HIDDEN * sizeof(float)));
  CUDA_CHECK(cudaMalloc((void **)&logits, BATCH * CLASSES * sizeof(float)));
  CUDA_CHECK(cudaMalloc((void **)&probs, BATCH * CLASSES * sizeof(float)));
  CUDA_CHECK(cudaMalloc((void **)&losses, BATCH * sizeof(float)));
  float *dlogits, *da2, *dh2, *da1, *dh1;
  CUDA_CHECK(cudaMalloc((void **)&dlogits, BATCH * CLASSES * sizeof(float)));
  CUDA_CHECK(cudaMalloc((void **)&da2, BATCH * HIDDEN * sizeof(float)));
  CUDA_CHECK(cudaMalloc((void **)&dh2, BATCH * HIDDEN * sizeof(float)));
  CUDA_CHECK(cudaMalloc((void **)&da1, BATCH * HIDDEN * sizeof(float)));
  CUDA_CHECK(cudaMalloc((void **)&dh1, BATCH * HIDDEN * sizeof(float)));

  static float host_w[HIDDEN * HIDDEN]; /* staging for the largest weight */
  uint64_t param_rng = PARAM_SEED;
  init_linear(&param_rng, host_w, w1, b1, IN_DIM, HIDDEN);
  init_linear(&param_rng, host_w, w2, b2, HIDDEN, HIDDEN);
  init_linear(&param_rng, host_w, w3, b3, HIDDEN, CLASSES);

  static float centres[CLASSES * IN_DIM];
  static float host_x[BATCH * IN_DIM];
  static int host_labels[BATCH];
  static float host_losses[BATCH];
  uint64_t data_rng = DATA_SEED;
  make_centres(&data_rng, centres);

  double t_prev = wall_ms();
#pragma tidal train
  for (int step = 0; step < steps; step++) {
    make_batch(&data_rng, centres, host_x, host_labels);
    CUDA_CHECK(cudaMemcpy(x, host_x, sizeof(host_x), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(labels, host_labels, sizeof(host_labels), cudaMemcpyHostToDevice));

    /* forward */
    linear_forward(h1, x, w1, b1, BATCH, IN_DIM, HIDDEN);
    relu_forward(a1, h1, BATCH * HIDDEN);
    linear_forward(h2, a1, w2, b2, BATCH, HIDDEN, HIDDEN);
    relu_forward(a2, h2, BATCH * HIDDEN);
    linear_forward(logits, a2, w3, b3, BATCH, HIDDEN, CLASSES);
    softmax_xent_forward(probs, losses, logits, labels, BATCH, CLASSES);

    /* backward: every gradient is overwritten, so no zeroing */
    softmax_xent_backward(dlogits, probs, labels, BATCH, CLASSES);
    linear_backward(da2, dw3, db3, dlogits, a2, w3, BATCH, HIDDEN, CLASSES);
    relu_backward(dh2, da2, h2, BATCH * HIDDEN);
    linear_backward(da1, dw2, db2, dh2, a1, w2, BATCH, HIDDEN, HIDDEN);
    relu_backward(dh1, da1, h1, BATCH * HIDDEN);
    linear_backward(NULL, dw1, db1, dh1, x, w1, BATCH, IN_DIM, HIDDEN);

    /* update */
    sgd_update(w1, dw1, LEARNING_RATE, HIDDEN * IN_DIM);
    sgd_update(b1, db1, LEARNING_RATE, HIDDEN);
    sgd_update(w2, dw2, LEARNING_RATE, HIDDEN * HIDDEN);
    sgd_update(b2, db2, LEARNING_RATE, HIDDEN);
    sgd_update(w3, dw3, LEARNING_RATE, CLASSES * HIDDEN);
    sgd_update(b3, db3, LEARNING_RATE, CLASSES);

    CUDA_CHECK(cudaMemcpy(host_losses, losses, sizeof(host_losses), cudaMemcpyDeviceToHost));
    float loss = 0.0f;
    for (int n = 0; n < BATCH; n++)
      loss += host_losses[n];
    loss /= BATCH;
    double t_now = wall_ms();
    printf("step %d: loss %.6f\n", step, loss);
    if (loss_file != NULL) fprintf(loss_file, "%d %.9g %.3f\n", step, loss, t_now - t_prev);
    t_prev = t_now;
  }

  if (loss_file != NULL && fclose(loss_file) != 0) {
    fprintf(stderr, "%s:%d: cannot write %s\n", __FILE__, __LINE__, loss_path);
    return 1;
  }
  float *all[] = {w1, b1, w2, b2, w3,     b3,    dw1,    db1,     dw2, db2, dw3, db3, x,
                  h1, a1, h2, a2, logits, probs, losses, dlogits, da2, dh2, da1, dh1};
  for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
    CUDA_CHECK(cudaFree(all[i]));
  CUDA_CHECK(cudaFree(labels));
  CUBLAS_CHECK(cublasDestroy(cublas));
  return 0;
}
