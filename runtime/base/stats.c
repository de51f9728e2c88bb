/* stats.c - counters, per iteration and in total.
 *
 * Every event is added to both the running iteration (cur) and the total;
 * tidal_iteration_end publishes cur as last_iteration.  The peak of each
 * starts from the resident bytes at the moment it starts, so an iteration's
 * peak includes what earlier iterations left resident.  The layers above
 * hand in what only they know (resident bytes, the modelled clock);
 * tidal_stats_get, which reads every layer, is api/summary.c's. */
#include <string.h>
#include "base/base.h"

void rt_stats_add(size_t offset, uint64_t v) {
  *(uint64_t *)((char *)&rt_base.total + offset) += v;
  *(uint64_t *)((char *)&rt_base.cur + offset) += v;
}

void rt_stats_add_time(size_t offset, double s) {
  *(double *)((char *)&rt_base.total + offset) += s;
  *(double *)((char *)&rt_base.cur + offset) += s;
}

void rt_stats_resident(uint64_t r) {
  if (r > rt_base.total.peak_resident_bytes)
    rt_base.total.peak_resident_bytes = r;
  if (r > rt_base.cur.peak_resident_bytes)
    rt_base.cur.peak_resident_bytes = r;
}

void rt_stats_physical(uint64_t p) {
  rt_base.physical_now = p;
  if (p > rt_base.total.peak_physical_bytes)
    rt_base.total.peak_physical_bytes = p;
  if (p > rt_base.cur.peak_physical_bytes)
    rt_base.cur.peak_physical_bytes = p;
}

void rt_stats_iteration_begin(uint64_t resident, double now) {
  memset(&rt_base.cur, 0, sizeof rt_base.cur);
  rt_base.cur.peak_resident_bytes = resident;
  rt_base.cur.peak_physical_bytes = rt_base.physical_now;
  rt_base.iter_t0 = now;
}

void rt_stats_iteration_end(uint64_t resident, double now) {
  rt_base.cur.modelled_seconds = now - rt_base.iter_t0;
  rt_base.last_iteration = rt_base.cur;
  rt_base.iterations_done++;
  rt_stats_iteration_begin(resident, now);
}
