/* stats.c - counters, per iteration and in total.
 *
 * Every event is added to both the running iteration (cur) and the total;
 * tidal_iteration_end publishes cur as last_iteration.  The peak of each
 * starts from the resident bytes at the moment it starts, so an iteration's
 * peak includes what earlier iterations left resident. */
#include <string.h>
#include "rt.h"

static tidal_counters last_iteration;

void rt_stats_add(size_t offset, uint64_t v) {
  *(uint64_t *)((char *)&rt_g.total + offset) += v;
  *(uint64_t *)((char *)&rt_g.cur + offset) += v;
}

void rt_stats_add_time(size_t offset, double s) {
  *(double *)((char *)&rt_g.total + offset) += s;
  *(double *)((char *)&rt_g.cur + offset) += s;
}

void rt_stats_note_resident(void) {
  uint64_t r = rt_resident_bytes();
  if (r > rt_g.total.peak_resident_bytes)
    rt_g.total.peak_resident_bytes = r;
  if (r > rt_g.cur.peak_resident_bytes)
    rt_g.cur.peak_resident_bytes = r;
}

void rt_stats_iteration_begin(void) {
  memset(&rt_g.cur, 0, sizeof rt_g.cur);
  rt_g.cur.peak_resident_bytes = rt_resident_bytes();
  rt_g.iter_t0 = rt_g.be->modelled_now(rt_g.b);
}

void rt_stats_iteration_end(void) {
  rt_g.cur.modelled_seconds = rt_g.be->modelled_now(rt_g.b) - rt_g.iter_t0;
  last_iteration = rt_g.cur;
  rt_g.iterations_done++;
  rt_stats_iteration_begin();
}

tidal_status tidal_stats_get(tidal_stats *out) {
  if (!out)
    return rt_error(TIDAL_ERR_INVALID, "tidal_stats_get: out is NULL");
  tidal_status st0 = rt_api_check("tidal_stats_get");
  if (st0 != TIDAL_OK)
    return st0;
  memset(out, 0, sizeof *out);
  out->budget_bytes = rt_g.budget_bytes;
  out->resident_bytes = rt_resident_bytes();
  out->iterations = rt_g.iterations_done;
  rt_arbiter_stats(&out->shared_budget_bytes, &out->shared_peak_bytes);
  out->total = rt_g.total;
  out->total.modelled_seconds = rt_g.be->modelled_now(rt_g.b);
  out->last_iteration = rt_g.iterations_done ? last_iteration : rt_g.cur;
  if (!rt_g.iterations_done)
    memset(&out->last_iteration, 0, sizeof out->last_iteration);
  return TIDAL_OK;
}
