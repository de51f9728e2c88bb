/* ref.c - the plain-C CPU reference of samples/gpt/train.cu.
 *
 * Owns the reference model: the same parameters in the same order and
 * initialisation, the same data generator, forward, backward and AdamW as
 * the CUDA trainer, computed in gpt_real (float, or double for the gradient
 * check) with straightforward loops.  It keeps every activation and
 * activation gradient in its own buffer (no reuse): clarity over memory,
 * since this is what the GPU program is checked against.
 *
 * Built twice: as the program gpt_ref (float, with main) and, with
 * -DGPT_REF_NO_MAIN -DREF_REAL=double, into the gradient-check test. */
#include "ref.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct gpt_ref {
  gpt_ref_config cfg;
  size_t sizes[GPT_REF_NUM_TENSORS];
  size_t num_params;
  gpt_real *params; /* one arena, carved in tensor order */
  gpt_real *grads;
  gpt_real *m; /* AdamW moments */
  gpt_real *v;
  gpt_real *tensors[GPT_REF_NUM_TENSORS];  /* into params */
  gpt_real *dtensors[GPT_REF_NUM_TENSORS]; /* into grads */
  /* activations, all layers */
  gpt_real *encoded, *ln1, *ln1_mean, *ln1_rstd, *qkv, *preatt, *att, *atty, *attproj, *residual2,
      *ln2, *ln2_mean, *ln2_rstd, *fch, *fch_gelu, *fcproj, *residual3, *lnf, *lnf_mean, *lnf_rstd,
      *logits, *probs;
  /* activation gradients, all layers */
  gpt_real *dencoded, *dln1, *dqkv, *dpreatt, *datt, *datty, *dattproj, *dresidual2, *dln2, *dfch,
      *dfch_gelu, *dfcproj, *dresidual3, *dlnf, *dlogits;
  int *inputs; /* the last forward pass's batch */
  int *targets;
};

enum {
  WTE,
  WPE,
  LN1W,
  LN1B,
  QKVW,
  QKVB,
  ATTPROJW,
  ATTPROJB,
  LN2W,
  LN2B,
  FCW,
  FCB,
  FCPROJW,
  FCPROJB,
  LNFW,
  LNFB
};

static const char *const tensor_names[GPT_REF_NUM_TENSORS] = {
    "wte",  "wpe",  "ln1w", "ln1b", "qkvw",    "qkvb",    "attprojw", "attprojb",
    "ln2w", "ln2b", "fcw",  "fcb",  "fcprojw", "fcprojb", "lnfw",     "lnfb"};

void gpt_ref_default_config(gpt_ref_config *cfg) {
  /* train.cu's compile-time constants */
  cfg->B = 4;
  cfg->T = 64;
  cfg->C = 128;
  cfg->L = 4;
  cfg->NH = 4;
  cfg->V = 512;
}

/* The same 64-bit LCG as train.cu. */
static uint32_t lcg_next(uint64_t *state) {
  *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (uint32_t)(*state >> 32);
}
static float lcg_uniform(uint64_t *state) {
  return (float)(lcg_next(state) >> 8) / 16777216.0f;
}

void gpt_ref_make_batch(const gpt_ref_config *cfg, uint64_t *rng, int *inputs, int *targets) {
  const int B = cfg->B, T = cfg->T;
  const uint32_t used = (uint32_t)cfg->V / 8; /* see train.cu's make_batch */
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

static gpt_real *zalloc(size_t n, int *failed) {
  gpt_real *p = calloc(n ? n : 1, sizeof(gpt_real));
  if (p == NULL) *failed = 1;
  return p;
}

gpt_ref *gpt_ref_create(const gpt_ref_config *cfg, uint64_t seed) {
  if (cfg->B <= 0 || cfg->T <= 0 || cfg->C <= 0 || cfg->L <= 0 || cfg->NH <= 0 || cfg->V < 8 ||
      cfg->C % cfg->NH != 0)
    return NULL;
  gpt_ref *m = calloc(1, sizeof(*m));
  if (m == NULL) return NULL;
  m->cfg = *cfg;
  const size_t B = (size_t)cfg->B, T = (size_t)cfg->T, C = (size_t)cfg->C, L = (size_t)cfg->L,
               NH = (size_t)cfg->NH, V = (size_t)cfg->V;
  const size_t sizes[GPT_REF_NUM_TENSORS] = {
      V * C, T * C, L * C,         L * C,     L * 3 * C * C, L * 3 * C, L * C * C, L * C,
      L * C, L * C, L * 4 * C * C, L * 4 * C, L * C * 4 * C, L * C,     C,         C};
  int failed = 0;
  m->num_params = 0;
  for (int i = 0; i < GPT_REF_NUM_TENSORS; i++) {
    m->sizes[i] = sizes[i];
    m->num_params += sizes[i];
  }
  m->params = zalloc(m->num_params, &failed);
  m->grads = zalloc(m->num_params, &failed);
  m->m = zalloc(m->num_params, &failed);
  m->v = zalloc(m->num_params, &failed);
  const size_t BT = B * T, BTC = B * T * C, att = B * NH * T * T;
  m->encoded = zalloc(BTC, &failed);
  m->ln1 = zalloc(L * BTC, &failed);
  m->ln1_mean = zalloc(L * BT, &failed);
  m->ln1_rstd = zalloc(L * BT, &failed);
  m->qkv = zalloc(L * 3 * BTC, &failed);
  m->preatt = zalloc(L * att, &failed);
  m->att = zalloc(L * att, &failed);
  m->atty = zalloc(L * BTC, &failed);
  m->attproj = zalloc(L * BTC, &failed);
  m->residual2 = zalloc(L * BTC, &failed);
  m->ln2 = zalloc(L * BTC, &failed);
  m->ln2_mean = zalloc(L * BT, &failed);
  m->ln2_rstd = zalloc(L * BT, &failed);
  m->fch = zalloc(L * 4 * BTC, &failed);
  m->fch_gelu = zalloc(L * 4 * BTC, &failed);
  m->fcproj = zalloc(L * BTC, &failed);
  m->residual3 = zalloc(L * BTC, &failed);
  m->lnf = zalloc(BTC, &failed);
  m->lnf_mean = zalloc(BT, &failed);
  m->lnf_rstd = zalloc(BT, &failed);
  m->logits = zalloc(BT * V, &failed);
  m->probs = zalloc(BT * V, &failed);
  m->dencoded = zalloc(BTC, &failed);
  m->dln1 = zalloc(L * BTC, &failed);
  m->dqkv = zalloc(L * 3 * BTC, &failed);
  m->dpreatt = zalloc(L * att, &failed);
  m->datt = zalloc(L * att, &failed);
  m->datty = zalloc(L * BTC, &failed);
  m->dattproj = zalloc(L * BTC, &failed);
  m->dresidual2 = zalloc(L * BTC, &failed);
  m->dln2 = zalloc(L * BTC, &failed);
  m->dfch = zalloc(L * 4 * BTC, &failed);
  m->dfch_gelu = zalloc(L * 4 * BTC, &failed);
  m->dfcproj = zalloc(L * BTC, &failed);
  m->dresidual3 = zalloc(L * BTC, &failed);
  m->dlnf = zalloc(BTC, &failed);
  m->dlogits = zalloc(BT * V, &failed);
  m->inputs = calloc(BT, sizeof(int));
  m->targets = calloc(BT, sizeof(int));
  if (failed || m->inputs == NULL || m->targets == NULL) {
    gpt_ref_destroy(m);
    return NULL;
  }

  /* train.cu's initialisation: the same draws, in the same order, in float */
  uint64_t rng = seed;
  const float range = 0.02f * 1.7320508f;
  size_t off = 0;
  for (int i = 0; i < GPT_REF_NUM_TENSORS; i++) {
    int is_ln_weight = i == LN1W || i == LN2W || i == LNFW;
    int is_bias = i == LN1B || i == QKVB || i == ATTPROJB || i == LN2B || i == FCB ||
                  i == FCPROJB || i == LNFB;
    m->tensors[i] = m->params + off;
    m->dtensors[i] = m->grads + off;
    for (size_t j = 0; j < sizes[i]; j++) {
      float w;
      if (is_ln_weight)
        w = 1.0f;
      else if (is_bias)
        w = 0.0f;
      else
        w = (2.0f * lcg_uniform(&rng) - 1.0f) * range;
      m->params[off + j] = (gpt_real)w;
    }
    off += sizes[i];
  }
  return m;
}

void gpt_ref_destroy(gpt_ref *m) {
  if (m == NULL) return;
  gpt_real *bufs[] = {
      m->params,    m->grads,     m->m,          m->v,          m->encoded,  m->ln1,
      m->ln1_mean,  m->ln1_rstd,  m->qkv,        m->preatt,     m->att,      m->atty,
      m->attproj,   m->residual2, m->ln2,        m->ln2_mean,   m->ln2_rstd, m->fch,
      m->fch_gelu,  m->fcproj,    m->residual3,  m->lnf,        m->lnf_mean, m->lnf_rstd,
      m->logits,    m->probs,     m->dencoded,   m->dln1,       m->dqkv,     m->dpreatt,
      m->datt,      m->datty,     m->dattproj,   m->dresidual2, m->dln2,     m->dfch,
      m->dfch_gelu, m->dfcproj,   m->dresidual3, m->dlnf,       m->dlogits};
  for (size_t i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++)
    free(bufs[i]);
  free(m->inputs);
  free(m->targets);
  free(m);
}

const char *gpt_ref_tensor_name(int i) {
  return tensor_names[i];
}
size_t gpt_ref_tensor_size(const gpt_ref *m, int i) {
  return m->sizes[i];
}
gpt_real *gpt_ref_tensor(gpt_ref *m, int i) {
  return m->tensors[i];
}
gpt_real *gpt_ref_tensor_grad(gpt_ref *m, int i) {
  return m->dtensors[i];
}

/* ---- layers (row-major; weight (OC, C) as in train.cu) ---- */

static void layernorm_forward(gpt_real *out, gpt_real *mean, gpt_real *rstd, const gpt_real *inp,
                              const gpt_real *w, const gpt_real *b, int N, int C) {
  for (int i = 0; i < N; i++) {
    const gpt_real *x = inp + (size_t)i * C;
    gpt_real mu = 0;
    for (int c = 0; c < C; c++)
      mu += x[c];
    mu /= C;
    gpt_real var = 0;
    for (int c = 0; c < C; c++)
      var += (x[c] - mu) * (x[c] - mu);
    var /= C;
    gpt_real s = (gpt_real)(1.0 / sqrt((double)var + 1e-5));
    for (int c = 0; c < C; c++)
      out[(size_t)i * C + c] = s * (x[c] - mu) * w[c] + b[c];
    mean[i] = mu;
    rstd[i] = s;
  }
}

static void layernorm_backward(gpt_real *dinp, gpt_real *dw, gpt_real *db, const gpt_real *dout,
                               const gpt_real *inp, const gpt_real *w, const gpt_real *mean,
                               const gpt_real *rstd, int N, int C) {
  for (int i = 0; i < N; i++) {
    const gpt_real *dy = dout + (size_t)i * C;
    const gpt_real *x = inp + (size_t)i * C;
    gpt_real dnorm_mean = 0, dnorm_norm_mean = 0;
    for (int c = 0; c < C; c++) {
      gpt_real norm = (x[c] - mean[i]) * rstd[i];
      gpt_real dnorm = w[c] * dy[c];
      dnorm_mean += dnorm;
      dnorm_norm_mean += dnorm * norm;
    }
    dnorm_mean /= C;
    dnorm_norm_mean /= C;
    for (int c = 0; c < C; c++) {
      gpt_real norm = (x[c] - mean[i]) * rstd[i];
      gpt_real dnorm = w[c] * dy[c];
      dinp[(size_t)i * C + c] += (dnorm - dnorm_mean - norm * dnorm_norm_mean) * rstd[i];
      dw[c] += norm * dy[c];
      db[c] += dy[c];
    }
  }
}

/* out (N, OC) = inp (N, C) . w^T + b */
static void matmul_forward(gpt_real *out, const gpt_real *inp, const gpt_real *w, const gpt_real *b,
                           int N, int C, int OC) {
  for (int i = 0; i < N; i++) {
    for (int o = 0; o < OC; o++) {
      gpt_real sum = b ? b[o] : 0;
      for (int c = 0; c < C; c++)
        sum += inp[(size_t)i * C + c] * w[(size_t)o * C + c];
      out[(size_t)i * OC + o] = sum;
    }
  }
}

/* dinp += dout . w; dw += dout^T . inp; db += column sums of dout */
static void matmul_backward(gpt_real *dinp, gpt_real *dw, gpt_real *db, const gpt_real *dout,
                            const gpt_real *inp, const gpt_real *w, int N, int C, int OC) {
  for (int i = 0; i < N; i++) {
    for (int o = 0; o < OC; o++) {
      gpt_real d = dout[(size_t)i * OC + o];
      for (int c = 0; c < C; c++) {
        dinp[(size_t)i * C + c] += d * w[(size_t)o * C + c];
        dw[(size_t)o * C + c] += d * inp[(size_t)i * C + c];
      }
      if (db) db[o] += d;
    }
  }
}

/* Causal self-attention straight from qkv (B, T, 3C), no permutes. */
static void attention_forward(gpt_real *out, gpt_real *preatt, gpt_real *att, const gpt_real *qkv,
                              int B, int T, int C, int NH) {
  const int HS = C / NH;
  const gpt_real scale = (gpt_real)(1.0 / sqrt((double)HS));
  for (int b = 0; b < B; b++)
    for (int h = 0; h < NH; h++)
      for (int t = 0; t < T; t++) {
        const gpt_real *q = qkv + ((size_t)b * T + t) * 3 * C + h * HS;
        gpt_real *pre = preatt + (((size_t)b * NH + h) * T + t) * T;
        gpt_real *a = att + (((size_t)b * NH + h) * T + t) * T;
        gpt_real maxval = -INFINITY;
        for (int t2 = 0; t2 <= t; t2++) {
          const gpt_real *k = qkv + ((size_t)b * T + t2) * 3 * C + C + h * HS;
          gpt_real dot = 0;
          for (int d = 0; d < HS; d++)
            dot += q[d] * k[d];
          pre[t2] = dot * scale;
          if (pre[t2] > maxval) maxval = pre[t2];
        }
        gpt_real sum = 0;
        for (int t2 = 0; t2 <= t; t2++) {
          a[t2] = (gpt_real)exp((double)(pre[t2] - maxval));
          sum += a[t2];
        }
        for (int t2 = 0; t2 < T; t2++)
          a[t2] = t2 <= t ? a[t2] / sum : 0;
        gpt_real *y = out + ((size_t)b * T + t) * C + h * HS;
        for (int d = 0; d < HS; d++)
          y[d] = 0;
        for (int t2 = 0; t2 <= t; t2++) {
          const gpt_real *v = qkv + ((size_t)b * T + t2) * 3 * C + 2 * C + h * HS;
          for (int d = 0; d < HS; d++)
            y[d] += a[t2] * v[d];
        }
      }
}

static void attention_backward(gpt_real *dqkv, gpt_real *dpreatt, gpt_real *datt,
                               const gpt_real *dout, const gpt_real *qkv, const gpt_real *att,
                               int B, int T, int C, int NH) {
  const int HS = C / NH;
  const gpt_real scale = (gpt_real)(1.0 / sqrt((double)HS));
  for (int b = 0; b < B; b++)
    for (int h = 0; h < NH; h++)
      for (int t = 0; t < T; t++) {
        const gpt_real *a = att + (((size_t)b * NH + h) * T + t) * T;
        gpt_real *da = datt + (((size_t)b * NH + h) * T + t) * T;
        gpt_real *dp = dpreatt + (((size_t)b * NH + h) * T + t) * T;
        const gpt_real *dy = dout + ((size_t)b * T + t) * C + h * HS;
        const gpt_real *q = qkv + ((size_t)b * T + t) * 3 * C + h * HS;
        gpt_real *dq = dqkv + ((size_t)b * T + t) * 3 * C + h * HS;
        /* y = att . v */
        for (int t2 = 0; t2 <= t; t2++) {
          const gpt_real *v = qkv + ((size_t)b * T + t2) * 3 * C + 2 * C + h * HS;
          gpt_real *dv = dqkv + ((size_t)b * T + t2) * 3 * C + 2 * C + h * HS;
          da[t2] = 0;
          for (int d = 0; d < HS; d++) {
            da[t2] += dy[d] * v[d];
            dv[d] += a[t2] * dy[d];
          }
        }
        /* att = softmax(preatt) over t2 <= t */
        gpt_real dot = 0;
        for (int t2 = 0; t2 <= t; t2++)
          dot += a[t2] * da[t2];
        for (int t2 = 0; t2 <= t; t2++)
          dp[t2] = a[t2] * (da[t2] - dot);
        /* preatt = scale * q . k */
        for (int t2 = 0; t2 <= t; t2++) {
          const gpt_real *k = qkv + ((size_t)b * T + t2) * 3 * C + C + h * HS;
          gpt_real *dk = dqkv + ((size_t)b * T + t2) * 3 * C + C + h * HS;
          for (int d = 0; d < HS; d++) {
            dq[d] += scale * dp[t2] * k[d];
            dk[d] += scale * dp[t2] * q[d];
          }
        }
      }
}

#define GELU_SCALING_FACTOR 0.7978845608028654 /* sqrt(2 / pi) */

static void gelu_forward(gpt_real *out, const gpt_real *inp, size_t N) {
  for (size_t i = 0; i < N; i++) {
    double x = inp[i];
    out[i] = (gpt_real)(0.5 * x * (1.0 + tanh(GELU_SCALING_FACTOR * (x + 0.044715 * x * x * x))));
  }
}

static void gelu_backward(gpt_real *dinp, const gpt_real *inp, const gpt_real *dout, size_t N) {
  for (size_t i = 0; i < N; i++) {
    double x = inp[i];
    double arg = GELU_SCALING_FACTOR * (x + 0.044715 * x * x * x);
    double th = tanh(arg);
    double sech2 = 1.0 / (cosh(arg) * cosh(arg));
    double local =
        0.5 * (1.0 + th) + x * 0.5 * sech2 * GELU_SCALING_FACTOR * (1.0 + 3.0 * 0.044715 * x * x);
    dinp[i] += (gpt_real)local * dout[i];
  }
}

/* ---- the model ---- */

double gpt_ref_forward(gpt_ref *m, const int *inputs, const int *targets) {
  const int B = m->cfg.B, T = m->cfg.T, C = m->cfg.C, L = m->cfg.L, NH = m->cfg.NH, V = m->cfg.V;
  const size_t BT = (size_t)B * T, BTC = BT * C, ATT = (size_t)B * NH * T * T;
  gpt_real **p = m->tensors;
  memcpy(m->inputs, inputs, BT * sizeof(int));
  memcpy(m->targets, targets, BT * sizeof(int));

  for (size_t bt = 0; bt < BT; bt++) {
    int t = (int)(bt % (size_t)T);
    for (int c = 0; c < C; c++)
      m->encoded[bt * C + c] = p[WTE][(size_t)inputs[bt] * C + c] + p[WPE][(size_t)t * C + c];
  }
  const gpt_real *residual = m->encoded;
  for (int l = 0; l < L; l++) {
    gpt_real *ln1 = m->ln1 + l * BTC, *qkv = m->qkv + l * 3 * BTC, *atty = m->atty + l * BTC;
    gpt_real *attproj = m->attproj + l * BTC, *res2 = m->residual2 + l * BTC;
    gpt_real *ln2 = m->ln2 + l * BTC, *fch = m->fch + l * 4 * BTC;
    gpt_real *fch_gelu = m->fch_gelu + l * 4 * BTC, *fcproj = m->fcproj + l * BTC;
    gpt_real *res3 = m->residual3 + l * BTC;
    layernorm_forward(ln1, m->ln1_mean + l * BT, m->ln1_rstd + l * BT, residual, p[LN1W] + l * C,
                      p[LN1B] + l * C, (int)BT, C);
    matmul_forward(qkv, ln1, p[QKVW] + (size_t)l * 3 * C * C, p[QKVB] + l * 3 * C, (int)BT, C,
                   3 * C);
    attention_forward(atty, m->preatt + l * ATT, m->att + l * ATT, qkv, B, T, C, NH);
    matmul_forward(attproj, atty, p[ATTPROJW] + (size_t)l * C * C, p[ATTPROJB] + l * C, (int)BT, C,
                   C);
    for (size_t i = 0; i < BTC; i++)
      res2[i] = residual[i] + attproj[i];
    layernorm_forward(ln2, m->ln2_mean + l * BT, m->ln2_rstd + l * BT, res2, p[LN2W] + l * C,
                      p[LN2B] + l * C, (int)BT, C);
    matmul_forward(fch, ln2, p[FCW] + (size_t)l * 4 * C * C, p[FCB] + l * 4 * C, (int)BT, C, 4 * C);
    gelu_forward(fch_gelu, fch, 4 * BTC);
    matmul_forward(fcproj, fch_gelu, p[FCPROJW] + (size_t)l * C * 4 * C, p[FCPROJB] + l * C,
                   (int)BT, 4 * C, C);
    for (size_t i = 0; i < BTC; i++)
      res3[i] = res2[i] + fcproj[i];
    residual = res3;
  }
  layernorm_forward(m->lnf, m->lnf_mean, m->lnf_rstd, residual, p[LNFW], p[LNFB], (int)BT, C);
  matmul_forward(m->logits, m->lnf, p[WTE], NULL, (int)BT, C, V);

  double loss = 0;
  for (size_t i = 0; i < BT; i++) {
    const gpt_real *x = m->logits + i * V;
    gpt_real *pr = m->probs + i * V;
    gpt_real maxval = -INFINITY;
    for (int v = 0; v < V; v++)
      if (x[v] > maxval) maxval = x[v];
    gpt_real sum = 0;
    for (int v = 0; v < V; v++) {
      pr[v] = (gpt_real)exp((double)(x[v] - maxval));
      sum += pr[v];
    }
    for (int v = 0; v < V; v++)
      pr[v] /= sum;
    loss += log((double)sum) - (double)(x[targets[i]] - maxval);
  }
  return loss / (double)BT;
}

void gpt_ref_backward(gpt_ref *m) {
  const int B = m->cfg.B, T = m->cfg.T, C = m->cfg.C, L = m->cfg.L, NH = m->cfg.NH, V = m->cfg.V;
  const size_t BT = (size_t)B * T, BTC = BT * C, ATT = (size_t)B * NH * T * T;
  gpt_real **p = m->tensors;
  gpt_real **g = m->dtensors;

  memset(m->grads, 0, m->num_params * sizeof(gpt_real));
  gpt_real *zero[] = {m->dencoded,  m->dln1,     m->dqkv,       m->dpreatt, m->datt,
                      m->datty,     m->dattproj, m->dresidual2, m->dln2,    m->dfch,
                      m->dfch_gelu, m->dfcproj,  m->dresidual3, m->dlnf};
  size_t zero_n[] = {BTC,     L * BTC, L * 3 * BTC, L * ATT,     L * ATT, L * BTC, L * BTC,
                     L * BTC, L * BTC, L * 4 * BTC, L * 4 * BTC, L * BTC, L * BTC, BTC};
  for (size_t i = 0; i < sizeof(zero) / sizeof(zero[0]); i++)
    memset(zero[i], 0, zero_n[i] * sizeof(gpt_real));

  /* mean loss over BT rows: dlogits = (probs - onehot) / BT */
  for (size_t i = 0; i < BT; i++)
    for (int v = 0; v < V; v++)
      m->dlogits[i * V + v] = (m->probs[i * V + v] - (v == m->targets[i] ? 1 : 0)) / (gpt_real)BT;

  matmul_backward(m->dlnf, g[WTE], NULL, m->dlogits, m->lnf, p[WTE], (int)BT, C, V);
  const gpt_real *last = m->residual3 + (L - 1) * BTC;
  gpt_real *dlast = m->dresidual3 + (L - 1) * BTC;
  layernorm_backward(dlast, g[LNFW], g[LNFB], m->dlnf, last, p[LNFW], m->lnf_mean, m->lnf_rstd,
                     (int)BT, C);

  for (int l = L - 1; l >= 0; l--) {
    const gpt_real *residual = l == 0 ? m->encoded : m->residual3 + (l - 1) * BTC;
    gpt_real *dresidual = l == 0 ? m->dencoded : m->dresidual3 + (l - 1) * BTC;
    gpt_real *dres3 = m->dresidual3 + l * BTC, *dres2 = m->dresidual2 + l * BTC;
    /* res3 = res2 + fcproj */
    for (size_t i = 0; i < BTC; i++) {
      dres2[i] += dres3[i];
      m->dfcproj[l * BTC + i] += dres3[i];
    }
    matmul_backward(m->dfch_gelu + l * 4 * BTC, g[FCPROJW] + (size_t)l * C * 4 * C,
                    g[FCPROJB] + l * C, m->dfcproj + l * BTC, m->fch_gelu + l * 4 * BTC,
                    p[FCPROJW] + (size_t)l * C * 4 * C, (int)BT, 4 * C, C);
    gelu_backward(m->dfch + l * 4 * BTC, m->fch + l * 4 * BTC, m->dfch_gelu + l * 4 * BTC, 4 * BTC);
    matmul_backward(m->dln2 + l * BTC, g[FCW] + (size_t)l * 4 * C * C, g[FCB] + l * 4 * C,
                    m->dfch + l * 4 * BTC, m->ln2 + l * BTC, p[FCW] + (size_t)l * 4 * C * C,
                    (int)BT, C, 4 * C);
    layernorm_backward(dres2, g[LN2W] + l * C, g[LN2B] + l * C, m->dln2 + l * BTC,
                       m->residual2 + l * BTC, p[LN2W] + l * C, m->ln2_mean + l * BT,
                       m->ln2_rstd + l * BT, (int)BT, C);
    /* res2 = residual + attproj */
    for (size_t i = 0; i < BTC; i++) {
      dresidual[i] += dres2[i];
      m->dattproj[l * BTC + i] += dres2[i];
    }
    matmul_backward(m->datty + l * BTC, g[ATTPROJW] + (size_t)l * C * C, g[ATTPROJB] + l * C,
                    m->dattproj + l * BTC, m->atty + l * BTC, p[ATTPROJW] + (size_t)l * C * C,
                    (int)BT, C, C);
    attention_backward(m->dqkv + l * 3 * BTC, m->dpreatt + l * ATT, m->datt + l * ATT,
                       m->datty + l * BTC, m->qkv + l * 3 * BTC, m->att + l * ATT, B, T, C, NH);
    matmul_backward(m->dln1 + l * BTC, g[QKVW] + (size_t)l * 3 * C * C, g[QKVB] + l * 3 * C,
                    m->dqkv + l * 3 * BTC, m->ln1 + l * BTC, p[QKVW] + (size_t)l * 3 * C * C,
                    (int)BT, C, 3 * C);
    layernorm_backward(dresidual, g[LN1W] + l * C, g[LN1B] + l * C, m->dln1 + l * BTC, residual,
                       p[LN1W] + l * C, m->ln1_mean + l * BT, m->ln1_rstd + l * BT, (int)BT, C);
  }
  for (size_t bt = 0; bt < BT; bt++) {
    int t = (int)(bt % (size_t)T);
    for (int c = 0; c < C; c++) {
      g[WTE][(size_t)m->inputs[bt] * C + c] += m->dencoded[bt * C + c];
      g[WPE][(size_t)t * C + c] += m->dencoded[bt * C + c];
    }
  }
}

void gpt_ref_update(gpt_ref *m, float lr, float beta1, float beta2, float eps, float weight_decay,
                    int t) {
  /* the same float arithmetic as adamw_kernel */
  float beta1_correction = 1.0f - powf(beta1, (float)t);
  float beta2_correction = 1.0f - powf(beta2, (float)t);
  for (size_t i = 0; i < m->num_params; i++) {
    gpt_real g = m->grads[i];
    gpt_real mi = beta1 * m->m[i] + (1.0f - beta1) * g;
    gpt_real vi = beta2 * m->v[i] + (1.0f - beta2) * g * g;
    m->m[i] = mi;
    m->v[i] = vi;
    gpt_real mhat = mi / beta1_correction;
    gpt_real vhat = vi / beta2_correction;
    m->params[i] -=
        lr * (mhat / ((gpt_real)sqrt((double)vhat) + eps) + weight_decay * m->params[i]);
  }
}

#ifndef GPT_REF_NO_MAIN
/* gpt_ref [steps]: trains at train.cu's default size and prints the same
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
  gpt_ref_config cfg;
  gpt_ref_default_config(&cfg);
  gpt_ref *m = gpt_ref_create(&cfg, GPT_REF_PARAM_SEED);
  int *inputs = malloc((size_t)cfg.B * cfg.T * sizeof(int));
  int *targets = malloc((size_t)cfg.B * cfg.T * sizeof(int));
  if (m == NULL || inputs == NULL || targets == NULL) {
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
  printf("config: B=%d T=%d C=%d L=%d NH=%d V=%d\n", cfg.B, cfg.T, cfg.C, cfg.L, cfg.NH, cfg.V);
  uint64_t rng = GPT_REF_DATA_SEED;
  for (int step = 0; step < steps; step++) {
    gpt_ref_make_batch(&cfg, &rng, inputs, targets);
    double loss = gpt_ref_forward(m, inputs, targets);
    gpt_ref_backward(m);
    gpt_ref_update(m, GPT_REF_LEARNING_RATE, GPT_REF_BETA1, GPT_REF_BETA2, GPT_REF_EPS,
                   GPT_REF_WEIGHT_DECAY, step + 1);
    printf("step %d: loss %.6f\n", step, loss);
    if (loss_file != NULL) fprintf(loss_file, "%d %.9g\n", step, loss);
  }
  if (loss_file != NULL && fclose(loss_file) != 0) {
    fprintf(stderr, "%s:%d: cannot write %s\n", __FILE__, __LINE__, loss_path);
    return 1;
  }
  free(inputs);
  free(targets);
  gpt_ref_destroy(m);
  return 0;
}
#endif
