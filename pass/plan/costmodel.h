/* costmodel.h - how long ops and copies take, for the planner and replay.
 *
 * A roofline: an op takes max(flops / peak_flops, bytes / hbm_bw) plus a
 * launch overhead; a host<->device copy takes latency + bytes / bandwidth,
 * per direction.  Defaults describe an H100 SXM on PCIe Gen5 x16 with
 * pinned host memory (docs/replay.md says where each figure comes from).
 * Overrides: TIDAL_COST_<KEY>=VALUE in the environment, then --cost
 * KEY=VALUE on the command line (cost_model_set), later wins. */
#ifndef TIDAL_PASS_COSTMODEL_H
#define TIDAL_PASS_COSTMODEL_H

#include <stddef.h>
#include <stdint.h>

typedef struct cost_model {
  double peak_flops;       /* FLOP/s an op can reach (fp32 FMA peak) */
  double hbm_bytes_per_s;  /* device memory bandwidth */
  double launch_s;         /* fixed cost per op (kernel launch, library call) */
  double h2d_bytes_per_s;  /* host -> device copy bandwidth (pinned) */
  double d2h_bytes_per_s;  /* device -> host copy bandwidth (pinned) */
  double copy_latency_s;   /* fixed cost per copy */
  /* Measured op durations (a TIDAL_PROFILE file, `tidal replay --profile`):
   * per static (graph) op, seconds per instance, < 0 where unmeasured; NULL
   * = the roofline estimate for every op. */
  const double *op_seconds;
  int n_op_seconds;
  unsigned set_keys;       /* 1u << cost_key for each key cost_model_set set (the user's
                              choice, which a cost file must not override) */
} cost_model;

/* The keys, as bits of cost_model.set_keys. */
typedef enum cost_key {
  COST_PEAK_FLOPS,
  COST_HBM_BW,
  COST_LAUNCH,
  COST_H2D_BW,
  COST_D2H_BW,
  COST_LATENCY
} cost_key;

/* The H100 SXM / PCIe Gen5 defaults. */
void cost_model_default(cost_model *m);

/* Sets one field by key: peak_flops, hbm_bw, launch, h2d_bw, d2h_bw,
 * latency (case-insensitive).  Values are plain decimals in base units
 * (no sign, hex, inf or nan) with an optional suffix of the key's kind:
 * rates (peak_flops, the bandwidths) k/K/M/G/T, seconds (launch, latency)
 * m/u/n; e.g. "55G", "10u".  Rates must be positive and at most COST_MAX_RATE,
 * seconds from 0 to COST_MAX_SECONDS.  Returns 0, or -1 with the reason in
 * why (cap bytes; the value quoted with binary bytes escaped). */
int cost_model_set(cost_model *m, const char *key, const char *value, char *why, size_t cap);

/* Parses "KEY=VALUE" and calls cost_model_set. */
int cost_model_set_pair(cost_model *m, const char *pair, char *why, size_t cap);

/* Applies every TIDAL_COST_<KEY> variable that is set.  Returns 0, or -1
 * naming the bad variable in *bad (static storage) and the reason in why. */
int cost_model_from_env(cost_model *m, const char **bad, char *why, size_t cap);

/* Bounds on values (a figure beyond them is a unit mistake). */
#define COST_MAX_RATE 1e18    /* per second: FLOP/s or bytes/s */
#define COST_MAX_SECONDS 1.0  /* a per-op or per-copy fixed cost */

/* Modelled duration of an op that does `flops` work and moves `bytes`
 * through device memory. */
double cost_op_seconds(const cost_model *m, double flops, uint64_t bytes);

/* Modelled duration of one copy of `bytes` in each direction. */
double cost_h2d_seconds(const cost_model *m, uint64_t bytes);
double cost_d2h_seconds(const cost_model *m, uint64_t bytes);

#endif
