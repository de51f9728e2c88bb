/* ref.c - the plain-C CPU reference of samples/mlp/train.cu.
 *
 * Owns the reference MLP: the same tensors, initialisation order, data
 * generator, forward, backward and SGD as the CUDA trainer, in mlp_real
 * (float for the program, double for the gradient check), with plain loops.
 *
 * Built twice: as the program mlp_ref (float, with main) and, with
 * -DMLP_REF_NO_MAIN -DREF_REAL=double, into the gradient-check test. */
#include "ref.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct mlp_ref {
  mlp_ref_config cfg;
  size_t sizes[MLP_REF_NUM_TENSORS];
  mlp_real *p[MLP_REF_NUM_TENSORS];                 /* parameters */
  mlp_real *g[MLP_REF_NUM_TENSORS];                 /* gradients */
  mlp_real *x, *h1, *a1, *h2, *a2, *logits, *probs; /* the last forward pass */
  mlp_real *dlogits, *da2, *dh2, *da1, *dh1;
  int *labels;
};

static const char *const tensor_names[MLP_REF_NUM_TENSORS] = {"w1", "b1", "w2", "b2", "w3", "b3"};

void mlp_ref_default_config(mlp_ref_config *cfg) {
  /* train.cu's #defines */
  cfg->batch = 256;
  cfg->in_dim = 64;
  cfg->hidden = 512;
  cfg->classes = 10;
}

static uint32_t lcg_next(uint64_t *state) {
  *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (uint32_t)(*state >> 32);
}
static float lcg_symmetric(uint64_t *state) {
  return 2.0f * ((float)(lcg_next(state) >> 8) / 16777216.0f) - 1.0f;
}

void mlp_ref_make_centres(const mlp_ref_config *cfg, uint64_t *rng, float *centres) {
  for (int i = 0; i < cfg->classes * cfg->in_dim; i++)
    centres[i] = lcg_symmetric(rng);
}

void mlp_ref_make_batch(const mlp_ref_config *cfg, uint64_t *rng, const float *centres, float *x,
                        int *labels) {
  for (int n = 0; n < cfg->batch; n++) {
    int k = (int)(lcg_next(rng) % (uint32_t)cfg->classes);
    labels[n] = k;
    for (int d = 0; d < cfg->in_dim; d++)
      x[n * cfg->in_dim + d] = centres[k * cfg->in_dim + d] + MLP_REF_NOISE * lcg_symmetric(rng);
  }
}

mlp_ref *mlp_ref_create(const mlp_ref_config *cfg, uint64_t seed) {
  if (cfg->batch <= 0 || cfg->in_dim <= 0 || cfg->hidden <= 0 || cfg->classes <= 0) return NULL;
  mlp_ref *m = calloc(1, sizeof(*m));
  if (m == NULL) return NULL;
  m->cfg = *cfg;
  const size_t N = (size_t)cfg->batch, D = (size_t)cfg->in_dim, H = (size_t)cfg->hidden,
               K = (size_t)cfg->classes;
  const size_t sizes[MLP_REF_NUM_TENSORS] = {H * D, H, H * H, H, K * H, K};
  int failed = 0;
  for (int i = 0; i < MLP_REF_NUM_TENSORS; i++) {
    m->sizes[i] = sizes[i];
    m->p[i] = calloc(sizes[i], sizeof(mlp_real));
    m->g[i] = calloc(sizes[i], sizeof(mlp_real));
    failed |= m->p[i] == NULL || m->g[i] == NULL;
  }
  mlp_real **acts[] = {&m->x,     &m->h1,      &m->a1,  &m->h2,  &m->a2,  &m->logits,
                       &m->probs, &m->dlogits, &m->da2, &m->dh2, &m->da1, &m->dh1};
  const size_t act_sizes[] = {N * D, N * H, N * H, N * H, N * H, N * K,
                              N * K, N * K, N * H, N * H, N * H, N * H};
  for (size_t i = 0; i < sizeof(acts) / sizeof(acts[0]); i++) {
    *acts[i] = calloc(act_sizes[i], sizeof(mlp_real));
    failed |= *acts[i] == NULL;
  }
  m->labels = calloc(N, sizeof(int));
  if (failed || m->labels == NULL) {
    mlp_ref_destroy(m);
    return NULL;
  }
  /* train.cu's init_linear, in the order W1, W2, W3; biases stay 0 */
  uint64_t rng = seed;
  const int fan_in[3] = {(int)D, (int)H, (int)H};
  for (int layer = 0; layer < 3; layer++) {
    float scale = 1.0f / sqrtf((float)fan_in[layer]);
    for (size_t i = 0; i < sizes[2 * layer]; i++)
      m->p[2 * layer][i] = (mlp_real)(scale * lcg_symmetric(&rng));
  }
  return m;
}

void mlp_ref_destroy(mlp_ref *m) {
  if (m == NULL) return;
  for (int i = 0; i < MLP_REF_NUM_TENSORS; i++) {
    free(m->p[i]);
    free(m->g[i]);
  }
  mlp_real *acts[] = {m->x,     m->h1,      m->a1,  m->h2,  m->a2,  m->logits,
                      m->probs, m->dlogits, m->da2, m->dh2, m->da1, m->dh1};
  for (size_t i = 0; i < sizeof(acts) / sizeof(acts[0]); i++)
    free(acts[i]);
  free(m->labels);
  free(m);
}

const char *mlp_ref_tensor_name(int i) {
  return tensor_names[i];
}
size_t mlp_ref_tensor_size(const mlp_ref *m, int i) {
  return m->sizes[i];
}
mlp_real *mlp_ref_tensor(mlp_ref *m, int i) {
  return m->p[i];
}
mlp_real *mlp_ref_tensor_grad(mlp_ref *m, int i) {
  return m->g[i];
}

/* out (N, OUT) = inp (N, IN) . w^T + b, w (OUT, IN) */
static void linear_forward(mlp_real *out, const mlp_real *inp, const mlp_real *w, const mlp_real *b,
                           int N, int IN, int OUT) {
  for (int n = 0; n < N; n++)
    for (int o = 0; o < OUT; o++) {
      mlp_real sum = 0;
      for (int i = 0; i < IN; i++)
        sum += inp[(size_t)n * IN + i] * w[(size_t)o * IN + i];
      out[(size_t)n * OUT + o] = sum + b[o];
    }
}

/* dw = dout^T . inp, db = column sums, dinp = dout . w (if dinp) */
static void linear_backward(mlp_real *dinp, mlp_real *dw, mlp_real *db, const mlp_real *dout,
                            const mlp_real *inp, const mlp_real *w, int N, int IN, int OUT) {
  memset(dw, 0, (size_t)OUT * IN * sizeof(mlp_real));
  memset(db, 0, (size_t)OUT * sizeof(mlp_real));
  if (dinp) memset(dinp, 0, (size_t)N * IN * sizeof(mlp_real));
  for (int n = 0; n < N; n++)
    for (int o = 0; o < OUT; o++) {
      mlp_real d = dout[(size_t)n * OUT + o];
      db[o] += d;
      for (int i = 0; i < IN; i++) {
        dw[(size_t)o * IN + i] += d * inp[(size_t)n * IN + i];
        if (dinp) dinp[(size_t)n * IN + i] += d * w[(size_t)o * IN + i];
      }
    }
}

static void relu(mlp_real *out, const mlp_real *inp, size_t n) {
  for (size_t i = 0; i < n; i++)
    out[i] = inp[i] > 0 ? inp[i] : 0;
}

static void relu_backward(mlp_real *dinp, const mlp_real *dout, const mlp_real *inp, size_t n) {
  for (size_t i = 0; i < n; i++)
    dinp[i] = inp[i] > 0 ? dout[i] : 0;
}

double mlp_ref_forward(mlp_ref *m, const float *x, const int *labels) {
  const int N = m->cfg.batch, D = m->cfg.in_dim, H = m->cfg.hidden, K = m->cfg.classes;
  for (size_t i = 0; i < (size_t)N * D; i++)
    m->x[i] = x[i];
  memcpy(m->labels, labels, (size_t)N * sizeof(int));
  linear_forward(m->h1, m->x, m->p[0], m->p[1], N, D, H);
  relu(m->a1, m->h1, (size_t)N * H);
  linear_forward(m->h2, m->a1, m->p[2], m->p[3], N, H, H);
  relu(m->a2, m->h2, (size_t)N * H);
  linear_forward(m->logits, m->a2, m->p[4], m->p[5], N, H, K);
  double loss = 0;
  for (int n = 0; n < N; n++) {
    const mlp_real *z = m->logits + (size_t)n * K;
    mlp_real *pr = m->probs + (size_t)n * K;
    mlp_real maxval = -INFINITY;
    for (int k = 0; k < K; k++)
      if (z[k] > maxval) maxval = z[k];
    mlp_real sum = 0;
    for (int k = 0; k < K; k++) {
      pr[k] = (mlp_real)exp((double)(z[k] - maxval));
      sum += pr[k];
    }
    for (int k = 0; k < K; k++)
      pr[k] /= sum;
    loss += log((double)sum) - (double)(z[labels[n]] - maxval);
  }
  return loss / N;
}

void mlp_ref_backward(mlp_ref *m) {
  const int N = m->cfg.batch, D = m->cfg.in_dim, H = m->cfg.hidden, K = m->cfg.classes;
  for (int n = 0; n < N; n++)
    for (int k = 0; k < K; k++)
      m->dlogits[(size_t)n * K + k] =
          (m->probs[(size_t)n * K + k] - (k == m->labels[n] ? 1 : 0)) / N;
  linear_backward(m->da2, m->g[4], m->g[5], m->dlogits, m->a2, m->p[4], N, H, K);
  relu_backward(m->dh2, m->da2, m->h2, (size_t)N * H);
  linear_backward(m->da1, m->g[2], m->g[3], m->dh2, m->a1, m->p[2], N, H, H);
  relu_backward(m->dh1, m->da1, m->h1, (size_t)N * H);
  linear_backward(NULL, m->g[0], m->g[1], m->dh1, m->x, m->p[0], N, D, H);
}

void mlp_ref_update(mlp_ref *m, float lr) {
  for (int t = 0; t < MLP_REF_NUM_TENSORS; t++)
    for (size_t i = 0; i < m->sizes[t]; i++)
      m->p[t][i] -= lr * m->g[t][i];
}

#ifndef MLP_REF_NO_MAIN
/* mlp_ref [steps]: trains at train.cu's default size and prints the same
 * lines; SAMPLE_LOSS_FILE=path also writes "step loss" lines there. */
int main(int argc, char **argv) {
  int steps = 10;
  if (argc > 1) {
    steps = atoi(argv[1]);
    if (steps <= 0) {
      fprintf(stderr, "usage: %s [steps]\n", argv[0]);
      return 2;
    }
  }
  mlp_ref_config cfg;
  mlp_ref_default_config(&cfg);
  mlp_ref *m = mlp_ref_create(&cfg, MLP_REF_PARAM_SEED);
  float *centres = malloc((size_t)cfg.classes * cfg.in_dim * sizeof(float));
  float *x = malloc((size_t)cfg.batch * cfg.in_dim * sizeof(float));
  int *labels = malloc((size_t)cfg.batch * sizeof(int));
  if (m == NULL || centres == NULL || x == NULL || labels == NULL) {
    fprintf(stderr, "%s:%d: out of memory\n", __FILE__, __LINE__);
    return 1;
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
  printf("config: BATCH=%d IN_DIM=%d HIDDEN=%d CLASSES=%d\n", cfg.batch, cfg.in_dim, cfg.hidden,
         cfg.classes);
  uint64_t rng = MLP_REF_DATA_SEED;
  mlp_ref_make_centres(&cfg, &rng, centres);
  for (int step = 0; step < steps; step++) {
    mlp_ref_make_batch(&cfg, &rng, centres, x, labels);
    double loss = mlp_ref_forward(m, x, labels);
    mlp_ref_backward(m);
    mlp_ref_update(m, MLP_REF_LEARNING_RATE);
    printf("step %d: loss %.6f\n", step, loss);
    if (loss_file != NULL) fprintf(loss_file, "%d %.9g\n", step, loss);
  }
  if (loss_file != NULL && fclose(loss_file) != 0) {
    fprintf(stderr, "%s:%d: cannot write %s\n", __FILE__, __LINE__, loss_path);
    return 1;
  }
  free(centres);
  free(x);
  free(labels);
  mlp_ref_destroy(m);
  return 0;
}
#endif
