/* budget.c - what the device budget means, and when it takes effect.
 *
 * Note [budget meaning]: one budget, three spellings (Note [size syntax]):
 *   bytes   "8G"      the budget from tidal_init on;
 *   N%dev   "50%dev"  of the device memory free at tidal_init;
 *   N%      "50%"     of the program's peak, as `tidal rewrite --budget 50%`
 *                     means of the modelled peak.  The runtime cannot know the
 *                     peak before the program runs, so the first iteration
 *                     (up to the first tidal_iteration_end) runs limited only
 *                     by the device, and its measured high-water mark of
 *                     resident bytes (setup included) is the peak; the budget
 *                     is N% of it, rounded down to whole chunks (at least
 *                     one), from then on.
 * The pool starts lazy in that case (it grows as the first iteration uses
 * memory, up to what the device has free), and rt_budget_set shrinks it to
 * the resolved budget through the usual eviction path.
 *
 * rt_budget_set is every change of the budget at run time (the shared
 * budget's arbiter, the resolved N%, tests): the pool converges to it
 * (Note [resizable pool], memory/pool.c) and rt_pol.budget_changed hears of
 * it (the run-time planner replans). */
#include "policy/policy.h"

rt_pol_state rt_pol; /* policy.h */

tidal_status rt_budget_initial(const tidal_config *cfg, size_t device_free, size_t *budget) {
  int set = (cfg->budget_bytes != 0) + (cfg->budget_percent != 0) +
            (cfg->budget_device_percent != 0);
  if (set > 1)
    return rt_error(TIDAL_ERR_CONFIG,
                    "tidal_init: budget_bytes (%zu), budget_percent (%g) and "
                    "budget_device_percent (%g): set at most one",
                    cfg->budget_bytes, cfg->budget_percent, cfg->budget_device_percent);
  rt_pol.budget_peak_percent = cfg->budget_percent;
  if (cfg->budget_bytes)
    *budget = cfg->budget_bytes;
  else if (cfg->budget_device_percent)
    *budget = (size_t)((double)device_free * cfg->budget_device_percent / 100.0);
  else /* no budget, or N% of a peak not measured yet: the device is the limit */
    *budget = device_free;
  return TIDAL_OK;
}

tidal_status rt_budget_set(size_t bytes) {
  if (!rt_base.initialized)
    return rt_error(TIDAL_ERR_NOT_INITIALIZED, "budget change: tidal_init has not run");
  size_t cb = rt_mem.chunk_bytes;
  if (bytes / cb == 0 || bytes / cb > UINT32_MAX || bytes > rt_dev.device_free)
    return rt_error(TIDAL_ERR_CONFIG,
                    "budget change to %zu bytes: not 1..2^32 chunks of %zu within the %zu bytes "
                    "the device offered",
                    bytes, cb, rt_dev.device_free);
  size_t old = rt_mem.budget_bytes;
  rt_mem.phys_target = (uint32_t)(bytes / cb);
  rt_mem.budget_bytes = (size_t)rt_mem.phys_target * cb;
  rt_mem.budget_exact = bytes;
  rt_phys_shrink(); /* Note [resizable pool] */
  if (RT_TRACING())
    rt_trace("budget", "\"old\":%zu,\"new\":%zu,\"physical\":%zu", old, rt_mem.budget_bytes,
             (size_t)rt_mem.nphys * cb);
  if (old != rt_mem.budget_bytes && rt_pol.budget_changed)
    rt_pol.budget_changed(old, rt_mem.budget_bytes);
  return TIDAL_OK;
}

/* Makes `bytes` the budget from now on. */
static void rt_budget_apply(size_t bytes) {
  rt_pol.budget_resolved_bytes = bytes;
  rt_log(3, "budget: %g%% of the first iteration's peak of %zu bytes is %zu bytes",
         rt_pol.budget_peak_percent, rt_pol.budget_peak_bytes, bytes);
  if (rt_budget_set(bytes) != TIDAL_OK) /* cannot fail for 1 chunk..peak; keep running */
    rt_log(1, "budget: could not apply %zu bytes: %s", bytes, tidal_last_error());
  if (RT_TRACING())
    rt_trace_counters();
}

void rt_budget_iteration_end(void) {
  if (rt_pol.budget_peak_percent <= 0 || rt_pol.budget_resolved_bytes)
    return;
  size_t peak = (size_t)rt_base.total.peak_resident_bytes;
  size_t cb = rt_mem.chunk_bytes;
  size_t want = (size_t)((double)peak * rt_pol.budget_peak_percent / 100.0);
  if (!rt_mem.reloc_seen) /* whole chunks; units count exact bytes (Note [units]) */
    want = want / cb * cb;
  if (want < cb)
    want = cb;
  rt_pol.budget_peak_bytes = peak;
  rt_budget_apply(want);
}

