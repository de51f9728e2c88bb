/* stats_at_exit.c - GPU check harness: prints libtidal's statistics when a
 * rewritten program shuts the runtime down.
 *
 * Linked into rewritten samples by scripts/gpu-check.sh with
 * -Xlinker --wrap=tidal_shutdown, so the program itself is unchanged: the
 * rewriter's tidal_shutdown() calls land here first.  Test harness only;
 * not part of libtidal. */
#include <stdio.h>

#include "tidal.h"

tidal_status __real_tidal_shutdown(void);
tidal_status __wrap_tidal_shutdown(void);

tidal_status __wrap_tidal_shutdown(void) {
  tidal_stats s;
  if (tidal_synchronize() == TIDAL_OK && tidal_stats_get(&s) == TIDAL_OK) {
    fprintf(stderr,
            "tidal-stats: budget=%llu peak_resident=%llu iterations=%llu swapped_out=%llu "
            "swapped_in=%llu prefetched=%llu dropped=%llu recomputes=%llu faults=%llu "
            "evictions=%llu plans_built=%llu plan_iterations=%llu off_plan_iterations=%llu "
            "timing_waits=%llu vmm_calls=%llu reclaimed=%llu rebound=%llu host_vmm_s=%.6f "
            "host_wait_s=%.6f\n",
            (unsigned long long)s.budget_bytes, (unsigned long long)s.total.peak_resident_bytes,
            (unsigned long long)s.iterations, (unsigned long long)s.total.swapped_out_bytes,
            (unsigned long long)s.total.swapped_in_bytes,
            (unsigned long long)s.total.prefetched_bytes,
            (unsigned long long)s.total.dropped_bytes, (unsigned long long)s.total.recomputes,
            (unsigned long long)s.total.faults, (unsigned long long)s.total.evictions,
            (unsigned long long)s.total.plans_built,
            (unsigned long long)s.total.plan_iterations,
            (unsigned long long)s.total.off_plan_iterations,
            (unsigned long long)s.total.timing_waits, (unsigned long long)s.total.vmm_calls,
            (unsigned long long)s.total.reclaimed_chunks,
            (unsigned long long)s.total.rebound_chunks, s.total.modelled_vmm_seconds,
            s.total.modelled_host_wait_seconds);
  }
  return __real_tidal_shutdown();
}
