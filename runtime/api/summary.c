/* summary.c - what the run did: tidal_stats_get, and the memory summary
 * printed at tidal_shutdown.
 *
 * TIDAL_STATS=1 (cfg.stats), or log level info and above, prints what the
 * run did, like torch.cuda.memory_summary(): one row per counter of
 * tidal_counters, for the whole run and for the last completed iteration,
 * sizes in B/KiB/MiB/GiB.  The rows are a table: a counter added to
 * tidal_counters appears by adding one line to `rows` below. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "api/api.h"

tidal_status tidal_stats_get(tidal_stats *out) {
  if (!out)
    return rt_error(TIDAL_ERR_INVALID, "tidal_stats_get: out is NULL");
  tidal_status st0 = rt_api_check("tidal_stats_get");
  if (st0 != TIDAL_OK)
    return st0;
  memset(out, 0, sizeof *out);
  /* Exact once relocatable allocations exist (Note [units]); else the
   * chunk pool's size, the budget rounded down to whole chunks. */
  out->budget_bytes = rt_mem.reloc_seen ? rt_mem.budget_exact : rt_mem.budget_bytes;
  out->resident_bytes = rt_resident_bytes();
  out->physical_bytes = rt_physical_bytes();
  out->physical_limit_bytes = rt_mem.reloc_seen ? rt_physical_limit() : 0;
  out->iterations = rt_base.iterations_done;
  rt_arbiter_stats(&out->shared_budget_bytes, &out->shared_peak_bytes);
  out->chunk_bytes = rt_mem.chunk_bytes;
  out->total = rt_base.total;
  out->total.modelled_seconds = rt_dev_now();
  out->last_iteration = rt_base.iterations_done ? rt_base.last_iteration : rt_base.cur;
  if (!rt_base.iterations_done)
    memset(&out->last_iteration, 0, sizeof out->last_iteration);
  return TIDAL_OK;
}

enum row_kind { ROW_BYTES, ROW_COUNT, ROW_SECONDS };

static const struct row {
  const char *label;
  size_t offset; /* in tidal_counters */
  enum row_kind kind;
  int reloc; /* printed only once relocatable allocations exist */
} rows[] = {
    {"peak resident", offsetof(tidal_counters, peak_resident_bytes), ROW_BYTES, 0},
    {"swapped out (D2H)", offsetof(tidal_counters, swapped_out_bytes), ROW_BYTES, 0},
    {"swapped in (H2D)", offsetof(tidal_counters, swapped_in_bytes), ROW_BYTES, 0},
    {"  of it prefetched", offsetof(tidal_counters, prefetched_bytes), ROW_BYTES, 0},
    {"dropped", offsetof(tidal_counters, dropped_bytes), ROW_BYTES, 0},
    {"drops", offsetof(tidal_counters, drops), ROW_COUNT, 0},
    {"recomputes", offsetof(tidal_counters, recomputes), ROW_COUNT, 0},
    {"faults (sync restores)", offsetof(tidal_counters, faults), ROW_COUNT, 0},
    {"evictions (LRU)", offsetof(tidal_counters, evictions), ROW_COUNT, 0},
    {"stall time", offsetof(tidal_counters, stall_seconds), ROW_SECONDS, 0},
    {"modelled time (sim)", offsetof(tidal_counters, modelled_seconds), ROW_SECONDS, 0},
    /* sim: modelled; CUDA: the host's clock (Note [measured host time], backend_cuda.c) */
    {"  host in VMM calls", offsetof(tidal_counters, modelled_vmm_seconds), ROW_SECONDS, 0},
    {"  host waiting", offsetof(tidal_counters, modelled_host_wait_seconds), ROW_SECONDS, 0},
    {"  device waiting for launch (sim)", offsetof(tidal_counters, modelled_launch_wait_seconds),
     ROW_SECONDS, 0},
    {"  device waiting for copies (sim)", offsetof(tidal_counters, modelled_copy_wait_seconds),
     ROW_SECONDS, 0},
    {"VMM driver calls", offsetof(tidal_counters, vmm_calls), ROW_COUNT, 0},
    {"reclaimed (no copy, no call)", offsetof(tidal_counters, reclaimed_chunks), ROW_COUNT, 0},
    {"rebound (no call)", offsetof(tidal_counters, rebound_chunks), ROW_COUNT, 0},
    {"planner: swap-outs", offsetof(tidal_counters, planner_swap_outs), ROW_COUNT, 0},
    {"planner: prefetches", offsetof(tidal_counters, planner_prefetches), ROW_COUNT, 0},
    {"planner: drops", offsetof(tidal_counters, planner_drops), ROW_COUNT, 0},
    {"planner: recomputes", offsetof(tidal_counters, planner_recomputes), ROW_COUNT, 0},
    {"hints taken", offsetof(tidal_counters, hints_run), ROW_COUNT, 0},
    {"hints skipped", offsetof(tidal_counters, hints_skipped), ROW_COUNT, 0},
    {"plans built", offsetof(tidal_counters, plans_built), ROW_COUNT, 0},
    {"iterations on a plan", offsetof(tidal_counters, plan_iterations), ROW_COUNT, 0},
    {"iterations off the plan", offsetof(tidal_counters, off_plan_iterations), ROW_COUNT, 0},
    {"iterations on the hints", offsetof(tidal_counters, hint_iterations), ROW_COUNT, 0},
    {"planner waits for op times", offsetof(tidal_counters, timing_waits), ROW_COUNT, 0},
    {"swap-outs (chunk copies D2H)", offsetof(tidal_counters, swap_outs), ROW_COUNT, 0},
    {"prefetches (chunk copies H2D)", offsetof(tidal_counters, prefetches), ROW_COUNT, 0},
    {"relocated (units moved)", offsetof(tidal_counters, relocated_bytes), ROW_BYTES, 1},
    {"  device to device", offsetof(tidal_counters, d2d_bytes), ROW_BYTES, 1},
    {"    copies", offsetof(tidal_counters, d2d_copies), ROW_COUNT, 1},
    {"  compactions", offsetof(tidal_counters, compactions), ROW_COUNT, 1},
    {"  gathers", offsetof(tidal_counters, gathers), ROW_COUNT, 1},
    {"  undeclared tidal_at", offsetof(tidal_counters, undeclared_uses), ROW_COUNT, 1},
    {"  prefetches deferred to need order", offsetof(tidal_counters, prefetches_deferred), ROW_COUNT,
     1},
    {"  device pool growths", offsetof(tidal_counters, pool_grows), ROW_COUNT, 1},
    {"peak device memory created", offsetof(tidal_counters, peak_physical_bytes), ROW_BYTES, 1},
    {"  device pool shrinks", offsetof(tidal_counters, pool_shrinks), ROW_COUNT, 1},
    {"  over the bound (pinned)", offsetof(tidal_counters, physical_overruns), ROW_COUNT, 1},
    {"accesses cut at their allocation's end", offsetof(tidal_counters, extents_clamped), ROW_COUNT, 1},
};

/* Every counter is 8 bytes (uint64_t or double): a field added to
 * tidal_counters without a row above stops the build here. */
_Static_assert(sizeof rows / sizeof *rows == sizeof(tidal_counters) / 8,
               "a field of tidal_counters has no row in summary.c's table");

/* "1.50 GiB", "12.0 MiB", "512 B" into buf. */
static const char *human_bytes(char *buf, size_t len, double b) {
  static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4) {
    b /= 1024;
    u++;
  }
  snprintf(buf, len, u == 0 ? "%.0f %s" : b < 10 ? "%.2f %s" : "%.1f %s", b, unit[u]);
  return buf;
}

static const char *human_seconds(char *buf, size_t len, double s) {
  if (s >= 1 || s == 0)
    snprintf(buf, len, "%.3f s", s);
  else if (s >= 1e-3)
    snprintf(buf, len, "%.3f ms", s * 1e3);
  else
    snprintf(buf, len, "%.1f us", s * 1e6);
  return buf;
}

static const char *cell(char *buf, size_t len, const tidal_counters *c, const struct row *r) {
  const char *p = (const char *)c + r->offset;
  switch (r->kind) {
  case ROW_BYTES: return human_bytes(buf, len, (double)*(const uint64_t *)p);
  case ROW_COUNT: snprintf(buf, len, "%llu", (unsigned long long)*(const uint64_t *)p); return buf;
  case ROW_SECONDS: return human_seconds(buf, len, *(const double *)p);
  }
  return "?";
}

void rt_summary_print(FILE *out) {
  tidal_stats s;
  if (tidal_stats_get(&s) != TIDAL_OK)
    return;
  char a[32], b[32];
  fprintf(out, "tidal: memory summary (%s backend, %llu iteration%s)\n", rt_dev.be->name,
          (unsigned long long)s.iterations, s.iterations == 1 ? "" : "s");
  fprintf(out, "tidal:   %-24s %14s in %llu chunks of %s\n", "budget",
          human_bytes(a, sizeof a, (double)s.budget_bytes),
          (unsigned long long)(s.budget_bytes / rt_mem.chunk_bytes),
          human_bytes(b, sizeof b, (double)rt_mem.chunk_bytes));
  if (rt_pol.budget_peak_percent > 0) {
    if (rt_pol.budget_resolved_bytes)
      fprintf(out, "tidal:   %-24s %14s = %g%% of the first iteration's peak of %s\n",
              "budget after iteration 1",
              human_bytes(a, sizeof a, (double)rt_pol.budget_resolved_bytes),
              rt_pol.budget_peak_percent,
              human_bytes(b, sizeof b, (double)rt_pol.budget_peak_bytes));
    else
      fprintf(out, "tidal:   %-24s %14s (%g%% of a peak never measured: no iteration ended)\n",
              "budget after iteration 1", "-", rt_pol.budget_peak_percent);
  }
  fprintf(out, "tidal:   %-24s %14s\n", "host store used",
          human_bytes(a, sizeof a, (double)rt_host_used_bytes()));
  fprintf(out, "tidal:   %-24s %14s %14s\n", "", "total", "last iteration");
  for (size_t i = 0; i < sizeof rows / sizeof *rows; i++)
    if (!rows[i].reloc || rt_mem.reloc_seen)
      fprintf(out, "tidal:   %-24s %14s %14s\n", rows[i].label,
            cell(a, sizeof a, &s.total, &rows[i]),
            s.iterations ? cell(b, sizeof b, &s.last_iteration, &rows[i]) : "-");
  double hs = 0, ps = 0;
  int chose = rt_planner_choice(&hs, &ps);
  if (chose >= 0) /* Note [the hints as a candidate], plan_exec.c */
    fprintf(out, "tidal:   run-time planner kept %s (iteration stretch: hints %.3gx, plan %.3gx)\n",
            chose ? "the build-time hints" : "its plan", hs, ps);
}
