/* plan_replay.c - see plan_replay.h.
 *
 * Note [one model of cost]
 * The build-time planner chooses with a model of its own: bytes of
 * disjoint segments, copy time against compute time, no chunks, no
 * driver calls, no run-time LRU (plan/plan.c).  It is good at ranking
 * choices and wrong about their cost: on small programs the runtime's
 * 2 MiB chunks, the pieces of split ops and the faults the plan does not
 * foresee dominate (`rewrite --budget 50%` said +11% where the replay of
 * the same plan said +714%).  So no command reports the planner's own
 * figure: the cost of a plan is what the runtime does with it on the
 * simulator (runtime/device/backend_sim.c, whose cost model is calibrated on GPU
 * measurements: bench/README.md), here, for `tidal replay` (with the data
 * oracle), `tidal rewrite` and `tidal fit` (cost only: ops move no bytes,
 * replay_options.cost_only, so a program of any size costs no memory to
 * cost).  One figure, computed in one place; a change to how memory moves
 * changes the runtime and the figure follows.  The headline is the steady
 * state (the last iteration), the first iteration beside it (Note [steady
 * headline], replay.h). */
#include "cli/plan_replay.h"
#include "cli/options.h"

#include <stdlib.h>
#include <string.h>

#include "analysis/libcalls.h"
#include "base/diag.h"
#include "base/progress.h"
#include "plan/pack.h"

uint64_t plan_replay_plan_budget(const tidal_trace *trace, const plan_replay_request *rq) {
  if (rq->budget_pct > 0)
    return (uint64_t)((double)plan_modelled_peak(trace, NULL, 0) * rq->budget_pct / 100.0);
  return rq->budget_bytes;
}

/* Per graph op, 1 where its call returns to the host only once the device
 * has run it: a LIBCALL_HOST_SYNC call (cudaMemcpy) with a host side, i.e.
 * not both a read and a write of device memory (Note [host costs per site],
 * replay.c).  NULL when out of memory (then no op waits). */
static unsigned char *host_sync_ops(const graph *g) {
  unsigned char *sync = calloc((size_t)(g->n_ops ? g->n_ops : 1), 1);
  for (int i = 0; sync && i < g->n_ops; i++) {
    const graph_op *op = &g->ops[i];
    const libcall_info *li = op->callee ? libcall_find(op->callee) : NULL;
    if (!li || !(li->flags & LIBCALL_HOST_SYNC)) continue;
    int reads = 0, writes = 0;
    for (int a = 0; a < op->n_acc; a++) {
      if (op->acc[a].unmanaged) continue;
      if (op->acc[a].mode & ACCESS_READ) reads = 1;
      if (op->acc[a].mode & ACCESS_WRITE) writes = 1;
    }
    sync[i] = !(reads && writes);
  }
  return sync;
}

int plan_replay_run(pass_tu *tu, graph *g, const tidal_trace *trace,
                    const plan_replay_request *rq, plan_replay *pr) {
  memset(pr, 0, sizeof *pr);
  pr->plan_budget = plan_replay_plan_budget(trace, rq);
  plan_options po;
  plan_options_default(&po);
  po.mode = rq->mode;
  po.budget_bytes = pr->plan_budget;
  po.cost = rq->ro.cost;
  if (plan_make(trace, &po, &pr->plan) != 0) goto oom;
  /* Exactly the actions `tidal rewrite` emits, where it emits them: the
   * rewriter's own placement decision (rewrite_place.c). */
  pr->places = calloc((size_t)pr->plan.n_actions + 1, sizeof *pr->places);
  pr->rplace = calloc((size_t)pr->plan.n_actions + 1, sizeof *pr->rplace);
  if (!pr->places || !pr->rplace || rw_placer_init(&pr->placer, tu, g) != 0)
    goto oom;
  for (int k = 0; k < pr->plan.n_actions; k++) {
    if (rw_plan_place(&pr->placer, &pr->plan.actions[k], &pr->places[k]) != 0) goto oom;
    pr->rplace[k].run = pr->places[k].emit;
    pr->rplace[k].level = pr->places[k].level;
    pr->rplace[k].in_call = pr->places[k].in_call;
  }
  replay_options ro = rq->ro;
  ro.place = pr->rplace;
  ro.n_static_ops = g->n_ops;
  ro.budget_bytes = rq->runtime_budget_bytes ? rq->runtime_budget_bytes : pr->plan_budget;
  ro.budget_percent = rq->runtime_budget_bytes ? 0 : rq->budget_pct;
  /* Small allocations packed as the rewritten program packs them. */
  if (rq->mode != PLAN_MODE_NONE) {
    pr->pack = calloc((size_t)trace->n_allocs + 1, sizeof *pr->pack);
    if (!pr->pack || plan_pack_groups(trace, PACK_CHUNK_BYTES, pr->pack) < 0 ||
        plan_pack_by_site(g, pr->pack) < 0) /* Note [groups per call site] */
      goto oom;
    ro.pack = pr->pack;
  }
  progress_stage(ro.cost_only ? "costing the plan on the simulator" : "replaying on the simulator");
  /* what every command costs alike (Note [one model of cost]): the sync
   * calls' host waits and the loop's device sync, as `tidal replay` had
   * alone (rewrite's figure was +49.7% where replay's was +166.7%) */
  unsigned char *sync = host_sync_ops(g);
  ro.op_host_sync = sync;
  /* Note [device sync], backend_sim.c: 2 when the rewrite makes the calls
   * tidal_device_synchronize (Note [the program's sync], rewrite.c) */
  if (g->loop_device_syncs == 0)
    ro.device_sync = 0;
  else if (g->sync_keep_why || g->loop_device_syncs_kept > 0 || ro.sync_as_written)
    ro.device_sync = 1; /* kept as written: it waits for tidal's copies too */
  else
    ro.device_sync = 2;
  replay_trace(trace, &pr->plan, &ro, &pr->rep); /* a run that failed says so in rep */
  free(sync);
  pr->replayed = 1;
  return TIDAL_EXIT_OK;
oom:
  diag_error(NULL, 0, 0, "out of memory while planning");
  return TIDAL_EXIT_INTERNAL;
}

void plan_replay_free(plan_replay *pr) {
  if (!pr) return;
  /* places first: plan_free zeroes n_actions (the leak ASan found) */
  for (int k = 0; pr->places && k < pr->plan.n_actions; k++) rw_place_free(&pr->places[k]);
  plan_free(&pr->plan);
  free(pr->places);
  free(pr->rplace);
  free(pr->pack);
  rw_placer_free(&pr->placer);
  memset(pr, 0, sizeof *pr);
}

int plan_replay_env(replay_options *ro) {
  int relocate = 1, order = 1;
  if (options_env_flag("TIDAL_RELOCATE", 1, &relocate) != 0 ||
      options_env_flag("TIDAL_PREFETCH_ORDER", 1, &order) != 0)
    return -1;
  ro->no_relocate = !relocate;
  ro->prefetch_order_off = !order;
  return 0;
}
