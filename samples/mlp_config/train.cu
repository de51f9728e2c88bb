/* train.cu - samples/mlp with its sizes read at run time from a config file.
 *
 * The same MLP classifier, data, kernels, GEMMs and SGD as samples/mlp/train.cu
 * (the two should stay line-for-line alike outside main and the size reading),
 * except that BATCH, IN_DIM, HIDDEN and CLASSES are ints read from a small text
 * file named on the command line (samples/mlp_config/default.cfg holds
 * samples/mlp's sizes).  It exists for tidal: nothing in the source says how
 * big any buffer is, as with real trainers that read a checkpoint header or a
 * config, so `tidal graph`/`rewrite` must instrument and name candidates
 * without sizes, and the runtime plans from what it sees (docs/samples.md,
 * "Sizes read at run time").
 *  - usage: train CONFIG [steps]; CONFIG lines are `name = value` for
 *    batch, in_dim, hidden, classes (all required), `#` starts a comment.
 *  - Host staging buffers are malloc'd at those sizes.
 *  - SAMPLE_LOSS_FILE=path makes the program write "step loss ms" lines
 *    there (ms: the step's wall time).
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

/* Sizes, read from the config file by read_config (set once, before any
 * allocation). */
static int BATCH;   /* examples per step */
static int IN_DIM;  /* input features */
static int HIDDEN;  /* units in each hidden layer */
static int CLASSES; /* output classes */
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

/* Reads `name = value` lines (batch, in_dim, hidden, classes; `#` comments)
 * into the size globals.  Returns 0, or prints `path:line: error` and
 * returns 1. */
static int read_config(const char *path) {
  FILE *f = fopen(path, "r");
  if (f == NULL) {
    fprintf(stderr, "%s: error: cannot open config file\n", path);
    return 1;
  }
  struct {
    const char *name;
    int *value;
  } keys[] = {{"batch", &BATCH}, {"in_dim", &IN_DIM}, {"hidden", &HIDDEN}, {"classes", &CLASSES}};
  const int n_keys = (int)(sizeof(keys) / sizeof(keys[0]));
  char line[256];
  int lineno = 0, bad = 0;
  while (!bad && fgets(line, sizeof(line), f) != NULL) {
    lineno++;
    char *hash = strchr(line, '#');
    if (hash != NULL) *hash = '\0';
    char name[64];
    int value;
    char rest;
    int got = sscanf(line, " %63[a-z_] = %d %c", name, &value, &rest);
    if (got <= 0) continue; /* blank or comment */
    int k = 0;
    while (k < n_keys && strcmp(keys[k].name, name) != 0)
      k++;
    if (got != 2 || k == n_keys || value <= 0) {
      fprintf(stderr, "%s:%d: error: expected `batch|in_dim|hidden|classes = N` with N > 0\n",
              path, lineno);
      bad = 1;
    } else {
      *keys[k].value = value;
    }
  }
  fclose(f);
  for (int k = 0; !bad && k < n_keys; k++)
    if (*keys[k].value <= 0) {
      fprintf(stderr, "%s: error: `%s` is not set\n", path, keys[k].name);
      bad = 1;
    }
  return bad;
}

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
  if (argc < 2 || argc > 3 || (argc == 3 && (steps = atoi(argv[2])) <= 0)) {
    fprintf(stderr, "usage: %s CONFIG [steps]\n", argv[0]);
    return 2;
  }
  if (read_config(argv[1]) != 0) return 2;
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

  /* host staging: the largest weight (HIDDEN x max(IN_DIM, HIDDEN, CLASSES)), the data */
  int widest = IN_DIM > HIDDEN ? IN_DIM : HIDDEN;
  widest = widest > CLASSES ? widest : CLASSES;
  float *host_w = (float *)malloc((size_t)HIDDEN * widest * sizeof(float));
  float *centres = (float *)malloc((size_t)CLASSES * IN_DIM * sizeof(float));
  float *host_x = (float *)malloc((size_t)BATCH * IN_DIM * sizeof(float));
  int *host_labels = (int *)malloc((size_t)BATCH * sizeof(int));
  float *host_losses = (float *)malloc((size_t)BATCH * sizeof(float));
  if (host_w == NULL || centres == NULL || host_x == NULL || host_labels == NULL ||
      host_losses == NULL) {
    fprintf(stderr, "%s:%d: out of host memory\n", __FILE__, __LINE__);
    return 1;
  }
  uint64_t param_rng = PARAM_SEED;
  init_linear(&param_rng, host_w, w1, b1, IN_DIM, HIDDEN);
  init_linear(&param_rng, host_w, w2, b2, HIDDEN, HIDDEN);
  init_linear(&param_rng, host_w, w3, b3, HIDDEN, CLASSES);

  uint64_t data_rng = DATA_SEED;
  make_centres(&data_rng, centres);

  double t_prev = wall_ms();
#pragma tidal train
  for (int step = 0; step < steps; step++) {
    make_batch(&data_rng, centres, host_x, host_labels);
    CUDA_CHECK(cudaMemcpy(x, host_x, (size_t)BATCH * IN_DIM * sizeof(float),
                          cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(labels, host_labels, (size_t)BATCH * sizeof(int),
                          cudaMemcpyHostToDevice));

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

    CUDA_CHECK(cudaMemcpy(host_losses, losses, (size_t)BATCH * sizeof(float),
                          cudaMemcpyDeviceToHost));
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
  free(host_w);
  free(centres);
  free(host_x);
  free(host_labels);
  free(host_losses);
  return 0;
}
