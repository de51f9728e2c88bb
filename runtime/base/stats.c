/* stats.c - counters, per iteration and in total.
 *
 * Every event is added to both the running iteration (cur) and the total;
 * tidal_iteration_end publishes cur as last_iteration.  The peak of each
 * starts from the resident bytes at the moment it starts, so an iteration's
 * peak includes what earlier iterations left resident.  The layers above
 * hand in what only they know (resident bytes, the modelled clock);
 * tidal_stats_get, which reads every layer, is api/summary.c's. */
#include <string.h>
#include "rt.h"

void rt_stats_add(size_t offset, uint64_t v) {
  *(uint64_t *)((char *)&rt_g.total + offset) += v;
  *(uint64_t *)((char *)&rt_g.cur + offset) += v;
}

void rt_stats_add_time(size_t offset, double s) {
  *(double *)((char *)&rt_g.total + offset) += s;
  *(double *)((char *)&rt_g.cur + offset) += s;
}

void rt_stats_resident(uint64_t r) {
  if (r > rt_g.total.peak_resident_bytes)
    rt_g.total.peak_resident_bytes = r;
  if (r > rt_g.cur.peak_resident_bytes)
    rt_g.cur.peak_resident_bytes = r;
}

void rt_stats_iteration_begin(uint64_t resident, double now) {
  memset(&rt_g.cur, 0, sizeof rt_g.cur);
  rt_g.cur.peak_resident_bytes = resident;
  rt_g.iter_t0 = now;
}

void rt_stats_iteration_end(uint64_t resident, double now) {
  rt_g.cur.modelled_seconds = now - rt_g.iter_t0;
  rt_g.last_iteration = rt_g.cur;
  rt_g.iterations_done++;
  rt_stats_iteration_begin(resident, now);
}
