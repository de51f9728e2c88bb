/* plan_replay.h - the plan of one unrolled iteration, placed where `tidal
 * rewrite` emits it and replayed on libtidal's simulator: what `tidal
 * replay` proves, what `tidal rewrite` reports as its cost and what `tidal
 * fit` searches with (Note [one model of cost] in plan_replay.c).
 *
 * The plan is made with the build-time planner (plan/plan.h), each action
 * placed by the rewriter's own decision (rewrite/rewrite.h, rw_plan_place),
 * small allocations packed as the rewritten program packs them
 * (plan/pack.h), and the result replayed (replay/replay.h).  Owns
 * everything it makes; plan_replay_free releases it. */
#ifndef TIDAL_PASS_PLAN_REPLAY_H
#define TIDAL_PASS_PLAN_REPLAY_H

#include <stdint.h>

#include "graph/graph.h"
#include "graph/trace.h"
#include "plan/plan.h"
#include "replay/replay.h"
#include "rewrite/rewrite.h"

typedef struct plan_replay_request {
  plan_mode mode;
  uint64_t budget_bytes; /* the plan's budget in bytes (0: none), when budget_pct is 0 */
  double budget_pct;     /* > 0: percent of the modelled peak for the plan, and of the
                            unmanaged run's peak in chunks for the runtime (Note [budgets
                            in chunks], replay.c) */
  uint64_t runtime_budget_bytes; /* the managed run's budget when it is not the plan's
                                   (several programs sharing one), else 0 */
  replay_options ro;     /* the replay's options; plan_replay_run sets its budgets, place,
                            pack and n_static_ops */
} plan_replay_request;

typedef struct plan_replay {
  plan_result plan;
  uint64_t plan_budget;  /* the bytes the plan aimed at */
  unsigned *pack;        /* per allocation: its packing group (NULL with --plan none) */
  replay_report rep;
  int replayed;          /* replay_trace ran (rep is filled) */
  /* the placement, kept for the plan's lifetime */
  rw_placer placer;
  rw_place *places;
  replay_place *rplace;
} plan_replay;

/* Plans, places, packs and replays trace (the unrolled iteration of g).
 * Returns TIDAL_EXIT_OK when the replay ran (pr->rep says whether its runs
 * completed and agreed), else TIDAL_EXIT_INTERNAL after a diagnostic (out
 * of memory).  pr is always to be released with plan_replay_free. */
int plan_replay_run(pass_tu *tu, graph *g, const tidal_trace *trace,
                    const plan_replay_request *rq, plan_replay *pr);
void plan_replay_free(plan_replay *pr); /* NULL-safe; members only */

/* The runtime's variables that change what a replay models, read as
 * libtidal reads them (options_env_flag): TIDAL_RELOCATE into
 * ro->no_relocate, TIDAL_PREFETCH_ORDER into ro->prefetch_order_off, so
 * that `tidal replay`, `rewrite` and `fit` model the program as it would
 * run.  0, or -1 after a diagnostic for a bad value. */
int plan_replay_env(replay_options *ro);

/* The budget the plan aims at for this request: rq's bytes, or its
 * percentage of the trace's modelled peak. */
uint64_t plan_replay_plan_budget(const tidal_trace *trace, const plan_replay_request *rq);

#endif
