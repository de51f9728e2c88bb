/* policy.h - the policy layer: which chunk to evict (evict_lru.c), what
 * the budget is and when it changes (budget.c, arbiter.c), and the
 * run-time planner (record.c, planner.c, plan_exec.c; planner.h).
 *
 * Policy decides, the memory layer below carries it out: policy files
 * call memory/, device/ and base/, and the memory layer reaches back only
 * through the tables set at tidal_init (rt_mem.evict, rt_mem.share) and
 * rt_pol.budget_changed. */
#ifndef TIDAL_RT_POLICY_H
#define TIDAL_RT_POLICY_H

#include "memory/memory.h"

/* The layer's state (Note [one thread], base/thread.c). */
typedef struct rt_pol_state {
  /* Called after every budget change (the run-time planner replans); NULL = none. */
  void (*budget_changed)(size_t old_bytes, size_t new_bytes);
  struct rt_arbiter *arb;        /* arbiter.c: shared budget, or NULL */
  /* budget.c (Note [budget meaning]) */
  double budget_peak_percent;    /* budget = this % of the first iteration's peak; 0 = none */
  size_t budget_peak_bytes;      /* that peak, once measured */
  size_t budget_resolved_bytes;  /* the budget it gives, once resolved */
  int in_iteration;              /* between tidal_iteration_begin and _end */
} rt_pol_state;

RT_HIDDEN extern rt_pol_state rt_pol; /* budget.c */

/* ---- budget.c ---- */
/* The budget tidal_init creates the pool with (Note [budget meaning]). */
RT_HIDDEN tidal_status rt_budget_initial(const tidal_config *cfg, size_t device_free,
                                         size_t *budget);
/* Resolves a percent-of-peak budget after the first iteration. */
RT_HIDDEN void rt_budget_iteration_end(void);
/* Changes the budget: growing lets the pool add chunks as they are needed;
 * shrinking evicts through the usual path (nothing is lost) and gives the
 * chunks back.  Chunks pinned by open ops go when released.  Calls
 * rt_pol.budget_changed.  TIDAL_ERR_CONFIG for a budget under one chunk or
 * over the device. */
RT_HIDDEN tidal_status rt_budget_set(size_t bytes);

/* ---- arbiter.c ---- */
/* Joins the shared budget named by the config (TIDAL_SHARED_BUDGET); sets
 * *budget to this process's first share, and rt_mem.share.  No-op when
 * none is configured. */
RT_HIDDEN tidal_status rt_arbiter_join(const tidal_config *cfg, size_t *budget);
RT_HIDDEN void rt_arbiter_leave(void);
/* Publishes demand and applies a changed share (rt_budget_set).  full: take
 * the lock, check who is alive and divide again (iteration boundaries);
 * else only a changed division or demand costs more than a load (ops). */
RT_HIDDEN void rt_arbiter_poll(int full);
/* An op's working set of `bytes` exceeds this process's share: it becomes
 * the process's floor in the division (Note [shared budget]) and the
 * budget follows the new share.  1 if the budget now holds it. */
RT_HIDDEN int rt_arbiter_need(size_t bytes);
/* The shared total and the most physical memory the group held at once (0 if none). */
RT_HIDDEN void rt_arbiter_stats(uint64_t *total, uint64_t *peak);

/* ---- evict_lru.c: the LRU eviction policy (Note [eviction seam]) ---- */
RT_HIDDEN extern const rt_evict_ops rt_evict_lru;

/* ---- the run-time planner (plan_exec.c; planner.h has the rest) ----
 * Hooks from api.c.  op_enter runs the plan's actions for the op about to
 * begin (top level only); op_pinned sees which chunks it will fault in;
 * op_ready/op_exit time it; hint says whether a build-time hint runs. */
RT_HIDDEN tidal_status rt_planner_init(void);
RT_HIDDEN void rt_planner_shutdown(void);
RT_HIDDEN tidal_status rt_planner_op_enter(const tidal_site *site, int n, const tidal_access *acc);
RT_HIDDEN void rt_planner_op_pinned(size_t pin_start, size_t pin_end);
RT_HIDDEN void rt_planner_op_ready(void);
RT_HIDDEN void rt_planner_op_failed(void);
RT_HIDDEN void rt_planner_op_exit(tidal_stream s);
RT_HIDDEN int rt_planner_hint(int kind, const rt_alloc *a, size_t off, size_t len);
/* The run-time planner (TIDAL_PLANNER=runtime) decides the releases (the
 * eviction policy leaves the chunks it keeps alone: Note [clean before
 * waiting], evict_lru.c). */
RT_HIDDEN int rt_planner_steering(void);
/* Note [the hints as a candidate] (plan_exec.c): -1 while nothing was
 * chosen, 1 the build-time hints were kept, 0 the plan; with the least
 * stretch each measured. */
RT_HIDDEN int rt_planner_choice(double *hints_stretch, double *plan_stretch);
RT_HIDDEN void rt_planner_iteration_begin(void);
RT_HIDDEN void rt_planner_iteration_end(void);
/* rt_pol.budget_changed while the run-time planner runs (rt_budget_set
 * calls it): the plan is rebuilt at the next iteration end; until then LRU
 * eviction keeps resident bytes inside the new budget. */
RT_HIDDEN void rt_planner_budget_changed(size_t old_bytes, size_t new_bytes);

#endif
