/* costmodel.c - the roofline cost model shared by the planner and replay.
 *
 * Owns the default figures (an H100 SXM on PCIe Gen5 x16) and the parsing
 * of overrides.  The compute figures are deliberately round and documented
 * in docs/replay.md: the planner only needs their ratios to be right (copy
 * time versus compute time), not the third digit.  The copy figures are
 * the runtime's own table (below). */
#include "plan/costmodel.h"

#include <ctype.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tidal_copy_costs.h" /* generated from runtime/device/sim_costs.txt */

/* H100 SXM: fp32 FMA peak 67 TFLOP/s; HBM3 3.35 TB/s. */
#define DEFAULT_PEAK_FLOPS 67e12
#define DEFAULT_HBM_BYTES_PER_S 3.35e12
/* A kernel launch or library call costs a few microseconds on the host. */
#define DEFAULT_LAUNCH_S 5e-6
/* Copies: the one table the sim runs on (runtime/device/sim_costs.txt, an
 * H100 on PCIe Gen5 x16 with pinned memory, measured), so that a plan is
 * made for the copies replay then models.  cmake/costs.cmake writes its
 * values into tidal_copy_costs.h. */

void cost_model_default(cost_model *m) {
  m->peak_flops = DEFAULT_PEAK_FLOPS;
  m->hbm_bytes_per_s = DEFAULT_HBM_BYTES_PER_S;
  m->launch_s = DEFAULT_LAUNCH_S;
  m->h2d_bytes_per_s = TIDAL_COPY_H2D_BYTES_PER_S;
  m->d2h_bytes_per_s = TIDAL_COPY_D2H_BYTES_PER_S;
  m->copy_latency_s = TIDAL_COPY_LATENCY_S;
  m->op_seconds = NULL;
  m->n_op_seconds = 0;
  m->set_keys = 0;
}

struct key_info {
  const char *key;
  size_t offset;
  int seconds; /* 1: a fixed cost in seconds (may be 0); 0: a rate (positive) */
};

static const struct key_info KEYS[] = {
    [COST_PEAK_FLOPS] = {"peak_flops", offsetof(cost_model, peak_flops), 0},
    [COST_HBM_BW] = {"hbm_bw", offsetof(cost_model, hbm_bytes_per_s), 0},
    [COST_LAUNCH] = {"launch", offsetof(cost_model, launch_s), 1},
    [COST_H2D_BW] = {"h2d_bw", offsetof(cost_model, h2d_bytes_per_s), 0},
    [COST_D2H_BW] = {"d2h_bw", offsetof(cost_model, d2h_bytes_per_s), 0},
    [COST_LATENCY] = {"latency", offsetof(cost_model, copy_latency_s), 1},
};
#define N_KEYS (sizeof KEYS / sizeof KEYS[0])

/* value for a message: printable ASCII, other bytes as \xNN, cut to fit */
static const char *quoted(const char *s, char *out, size_t cap) {
  size_t o = 0;
  for (; *s && o + 8 < cap; s++) {
    unsigned char c = (unsigned char)*s;
    o += (size_t)snprintf(out + o, cap - o, c >= 0x20 && c < 0x7f ? "%c" : "\\x%02x", c);
  }
  if (*s) snprintf(out + o, cap - o, "...");
  return out;
}

/* "55G", "3.35e12", "5e-6", "10u": a plain decimal (digits, an optional
 * fraction and exponent) and a suffix of the key's kind.  0, or -1 with
 * the reason in why. */
static int parse_value(const struct key_info *k, const char *s, double *out, char *why,
                       size_t cap) {
  char q[64];
  const char *e = s;
  int digits = 0;
  while (isdigit((unsigned char)*e)) e++, digits++;
  if (*e == '.') {
    e++;
    while (isdigit((unsigned char)*e)) e++, digits++;
  }
  if (digits && (*e == 'e' || *e == 'E')) {
    const char *x = e + 1;
    if (*x == '+' || *x == '-') x++;
    if (isdigit((unsigned char)*x)) {
      while (isdigit((unsigned char)*x)) x++;
      e = x;
    }
  }
  if (!digits) {
    snprintf(why, cap, "%s: '%s' is not a plain decimal number", k->key, quoted(s, q, sizeof q));
    return -1;
  }
  double v = strtod(s, NULL), scale = 1.0;
  static const char rate_sfx[] = "kKMGT", sec_sfx[] = "mun";
  static const double rate_mul[] = {1e3, 1e3, 1e6, 1e9, 1e12}, sec_mul[] = {1e-3, 1e-6, 1e-9};
  if (*e) {
    const char *sfx = k->seconds ? sec_sfx : rate_sfx;
    const char *hit = strchr(sfx, *e);
    if (!hit || e[1] != '\0') {
      snprintf(why, cap, "%s: '%s': %s", k->key, quoted(s, q, sizeof q),
               k->seconds ? "expected seconds with an optional m, u or n suffix"
                          : "expected a rate with an optional k, M, G or T suffix");
      return -1;
    }
    scale = k->seconds ? sec_mul[hit - sfx] : rate_mul[hit - sfx];
  }
  v *= scale;
  double max = k->seconds ? COST_MAX_SECONDS : COST_MAX_RATE;
  if (!isfinite(v) || v > max || (!k->seconds && v <= 0)) {
    snprintf(why, cap, "%s: '%s' is out of range (%s)", k->key, quoted(s, q, sizeof q),
             k->seconds ? "0 to 1 second" : "more than 0, at most 1e18 a second");
    return -1;
  }
  *out = v;
  return 0;
}

int cost_model_set(cost_model *m, const char *key, const char *value, char *why, size_t cap) {
  for (size_t i = 0; i < N_KEYS; i++) {
    if (strcasecmp(key, KEYS[i].key) != 0) continue;
    double v;
    if (parse_value(&KEYS[i], value, &v, why, cap) != 0) return -1;
    *(double *)((char *)m + KEYS[i].offset) = v;
    m->set_keys |= 1u << i;
    return 0;
  }
  char q[64];
  snprintf(why, cap, "unknown key '%s' (keys: peak_flops, hbm_bw, launch, h2d_bw, d2h_bw, "
           "latency)", quoted(key, q, sizeof q));
  return -1;
}

int cost_model_set_pair(cost_model *m, const char *pair, char *why, size_t cap) {
  const char *eq = strchr(pair, '=');
  char key[32];
  size_t n = eq ? (size_t)(eq - pair) : 0;
  if (!eq || n == 0 || n >= sizeof key) {
    char q[64];
    snprintf(why, cap, "'%s' is not KEY=VALUE", quoted(pair, q, sizeof q));
    return -1;
  }
  memcpy(key, pair, n);
  key[n] = '\0';
  return cost_model_set(m, key, eq + 1, why, cap);
}

int cost_model_from_env(cost_model *m, const char **bad, char *why, size_t cap) {
  static char name[64];
  for (size_t i = 0; i < N_KEYS; i++) {
    size_t j = 0;
    j += (size_t)snprintf(name, sizeof name, "TIDAL_COST_");
    for (const char *k = KEYS[i].key; *k && j + 1 < sizeof name; k++)
      name[j++] = (char)toupper((unsigned char)*k);
    name[j] = '\0';
    const char *v = getenv(name);
    if (!v) continue;
    if (cost_model_set(m, KEYS[i].key, v, why, cap) != 0) {
      if (bad) *bad = name;
      return -1;
    }
  }
  return 0;
}

double cost_op_seconds(const cost_model *m, double flops, uint64_t bytes) {
  double compute = flops > 0 ? flops / m->peak_flops : 0.0;
  double memory = (double)bytes / m->hbm_bytes_per_s;
  return (compute > memory ? compute : memory) + m->launch_s;
}

double cost_h2d_seconds(const cost_model *m, uint64_t bytes) {
  return m->copy_latency_s + (double)bytes / m->h2d_bytes_per_s;
}

double cost_d2h_seconds(const cost_model *m, uint64_t bytes) {
  return m->copy_latency_s + (double)bytes / m->d2h_bytes_per_s;
}
