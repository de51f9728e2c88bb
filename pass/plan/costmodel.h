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
} cost_model;

/* The H100 SXM / PCIe Gen5 defaults. */
void cost_model_default(cost_model *m);

/* Sets one field by key: peak_flops, hbm_bw, launch, h2d_bw, d2h_bw,
 * latency (case-insensitive; values are plain numbers in base units, with an
 * optional k/M/G/T suffix, e.g. "55G").  Returns 0, or -1 for an unknown key
 * or a malformed or non-positive value (launch and latency may be 0). */
int cost_model_set(cost_model *m, const char *key, const char *value);

/* Parses "KEY=VALUE" and calls cost_model_set. */
int cost_model_set_pair(cost_model *m, const char *pair);

/* Applies every TIDAL_COST_<KEY> variable that is set.  Returns 0, or -1
 * naming the bad variable in *bad (static storage) when one is malformed. */
int cost_model_from_env(cost_model *m, const char **bad);

/* Modelled duration of an op that does `flops` work and moves `bytes`
 * through device memory. */
double cost_op_seconds(const cost_model *m, double flops, uint64_t bytes);

/* Modelled duration of one copy of `bytes` in each direction. */
double cost_h2d_seconds(const cost_model *m, uint64_t bytes);
double cost_d2h_seconds(const cost_model *m, uint64_t bytes);

#endif
