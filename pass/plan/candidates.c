/* candidates.c - build-time candidate hints when the sizes are not known
 * until run time.
 *
 * Note [candidates without sizes]: plan_make needs the unrolled trace, so
 * it needs every size; a program that reads its sizes from a file at run
 * time (samples/mlp_config) has none.  What the pass proves without sizes
 * is still worth emitting: the graph's eviction candidates (liveness.c,
 * on the static op list) name a tensor, the op of its last use before an
 * idle span and the op of its next use.  Each becomes a swap-out after the
 * last use and, unless the next use writes without reading, a prefetch
 * before the next use, both on the uses' own accesses, so the rewriter
 * names their ranges with the program's own expressions.  They are hints:
 * a hint never makes a program wrong, and the run-time planner, which sees
 * the real sizes, runs only those its plan agrees with (docs/runtime-api.md,
 * "Planners").  Drops and recompute closures are not emitted: their proofs
 * are byte ranges over the unrolled iteration (other names for the same
 * memory, every instance of a loop), which need the sizes. */
#include "plan/candidates.h"

#include <stdlib.h>
#include <string.h>

/* The first access of op o to tensor ti that is declared to the runtime, or -1. */
static int access_of(const graph *g, int o, int ti) {
  const graph_op *op = &g->ops[o];
  for (int k = 0; k < op->n_acc; k++)
    if (op->acc[k].tensor == ti && !op->acc[k].unmanaged) return k;
  return -1;
}

static int add(plan_result *out, plan_kind kind, int op, plan_where where, int acc,
               const graph_candidate *c, const graph *g) {
  plan_action *n = realloc(out->actions, (size_t)(out->n_actions + 1) * sizeof *n);
  if (!n) return -1;
  out->actions = n;
  plan_action *a = &n[out->n_actions];
  memset(a, 0, sizeof *a);
  a->kind = kind;
  a->at_op = op;
  a->where = where;
  a->ref_op = op;
  a->ref_access = acc;
  a->bytes = 0; /* known at run time */
  a->instances = 1;
  a->idle_ops = (int)c->idle_ops;
  a->tensor = strdup(g->tensors[c->tensor].name ? g->tensors[c->tensor].name : "?");
  a->reason = strdup(kind == PLAN_SWAP_OUT
                         ? "idle until its next use; a candidate: the run-time planner decides"
                         : "its next use; a candidate: the run-time planner decides");
  if (!a->tensor || !a->reason) {
    free(a->tensor);
    free(a->reason);
    return -1;
  }
  out->n_actions++;
  return 0;
}

int plan_candidates(const graph *g, plan_result *out) {
  memset(out, 0, sizeof *out);
  out->budget_met = 1;
  for (int i = 0; i < g->n_candidates; i++) {
    const graph_candidate *c = &g->candidates[i];
    if (c->tensor < 0 || c->last_use_op < 0 || c->next_use_op < 0) continue;
    /* periodic ops do not run every iteration, nor does one of several
     * candidates of an indirect call: a hint there names a use that may not
     * happen */
    if (g->ops[c->last_use_op].branch >= 0 || g->ops[c->next_use_op].branch >= 0 ||
        g->ops[c->last_use_op].maybe || g->ops[c->next_use_op].maybe)
      continue;
    int out_acc = access_of(g, c->last_use_op, c->tensor);
    int in_acc = access_of(g, c->next_use_op, c->tensor);
    if (out_acc < 0 || in_acc < 0) continue;
    if (add(out, PLAN_SWAP_OUT, c->last_use_op, PLAN_AFTER, out_acc, c, g) != 0) goto oom;
    /* a next use that only writes needs nothing back */
    if (g->ops[c->next_use_op].acc[in_acc].mode != ACCESS_WRITE &&
        add(out, PLAN_PREFETCH, c->next_use_op, PLAN_BEFORE, in_acc, c, g) != 0)
      goto oom;
  }
  return 0;
oom:
  plan_free(out);
  memset(out, 0, sizeof *out);
  return -1;
}
