/* costmodel.c - the roofline cost model shared by the planner and replay.
 *
 * Owns the default figures (an H100 SXM on PCIe Gen5 x16) and the parsing
 * of overrides.  The compute figures are deliberately round and documented
 * in docs/replay.md: the planner only needs their ratios to be right (copy
 * time versus compute time), not the third digit.  The copy figures are
 * the runtime's own table (below). */
#include "plan/costmodel.h"

#include <ctype.h>
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
}

/* "55G", "3.35e12", "5e-6", "10u" -> value; -1 on syntax error. */
static int parse_value(const char *s, double *out) {
  char *end;
  double v = strtod(s, &end);
  if (end == s) return -1;
  double scale = 1.0;
  switch (*end) {
  case 'k': case 'K': scale = 1e3; end++; break;
  case 'M': scale = 1e6; end++; break;
  case 'G': scale = 1e9; end++; break;
  case 'T': scale = 1e12; end++; break;
  case 'm': scale = 1e-3; end++; break;
  case 'u': scale = 1e-6; end++; break;
  case 'n': scale = 1e-9; end++; break;
  default: break;
  }
  if (*end != '\0') return -1;
  *out = v * scale;
  return 0;
}

struct key_info {
  const char *key;
  size_t offset;
  int zero_ok; /* fixed costs may be 0; rates may not */
};

static const struct key_info KEYS[] = {
    {"peak_flops", offsetof(cost_model, peak_flops), 0},
    {"hbm_bw", offsetof(cost_model, hbm_bytes_per_s), 0},
    {"launch", offsetof(cost_model, launch_s), 1},
    {"h2d_bw", offsetof(cost_model, h2d_bytes_per_s), 0},
    {"d2h_bw", offsetof(cost_model, d2h_bytes_per_s), 0},
    {"latency", offsetof(cost_model, copy_latency_s), 1},
};
#define N_KEYS (sizeof KEYS / sizeof KEYS[0])

int cost_model_set(cost_model *m, const char *key, const char *value) {
  for (size_t i = 0; i < N_KEYS; i++) {
    if (strcasecmp(key, KEYS[i].key) != 0) continue;
    double v;
    if (parse_value(value, &v) != 0) return -1;
    if (v < 0 || (v == 0 && !KEYS[i].zero_ok)) return -1;
    *(double *)((char *)m + KEYS[i].offset) = v;
    return 0;
  }
  return -1;
}

int cost_model_set_pair(cost_model *m, const char *pair) {
  const char *eq = strchr(pair, '=');
  if (!eq || eq == pair) return -1;
  char key[32];
  size_t n = (size_t)(eq - pair);
  if (n >= sizeof key) return -1;
  memcpy(key, pair, n);
  key[n] = '\0';
  return cost_model_set(m, key, eq + 1);
}

int cost_model_from_env(cost_model *m, const char **bad) {
  static char name[64];
  for (size_t i = 0; i < N_KEYS; i++) {
    size_t j = 0;
    j += (size_t)snprintf(name, sizeof name, "TIDAL_COST_");
    for (const char *k = KEYS[i].key; *k && j + 1 < sizeof name; k++)
      name[j++] = (char)toupper((unsigned char)*k);
    name[j] = '\0';
    const char *v = getenv(name);
    if (!v) continue;
    if (cost_model_set(m, KEYS[i].key, v) != 0) {
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
