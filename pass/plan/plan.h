/* plan.h - the static memory plan: which tensors to swap out, prefetch,
 * drop or recompute, and where.
 *
 * Input: one iteration's concrete op trace (trace.h), a budget in bytes, a
 * mode and a cost model.  Output: a list of actions.
 *
 * Decisions are static.  Every action is keyed to a static op (a graph op
 * id, trace_op.static_op) and placed before or after it; it applies to every
 * dynamic instance of that static op.  That is exactly what `tidal rewrite`
 * can emit in source (one call next to one statement) and exactly what
 * `tidal replay` executes, so a plan proven by replay is the plan that runs.
 *
 * The byte range an action names is given by a reference access: the
 * static access `ref_access` of static op `ref_op`.  The rewriter emits that
 * access's pointer and byte expressions in training-loop context; replay
 * resolves it to the instance of `ref_op` in the same scope (trace_op.scope)
 * as the instance of `at_op` being executed.  The planner guarantees that
 * such an instance exists for every instance of `at_op` (same static scope),
 * so the expression is valid where the call is placed.
 *
 *   kind           placed                     ref (the range)
 *   SWAP_OUT       after the last use          that use's access
 *   PREFETCH       before an earlier op in     the next use's access
 *                  the next use's scope, or
 *                  before the next use itself
 *   DROP           after the last use          that use's access
 *   RECOMPUTE      after the producer          the producer's write access
 *                  (tidal_recompute_register; the closure re-runs ref_op with
 *                  its captured arguments; a SWAP_OUT with `recomputed` set
 *                  evicts it later and the runtime drops it instead of
 *                  copying)
 *   KEEP           after the producer          the producer's access
 *                  (a candidate the mode may not evict, e.g. an RNG producer
 *                  under --plan recompute: the reason says why)
 *
 * Modelled peak: the planner simulates residency over two iterations of the
 * trace and reports the peak of the second, the steady state (in the first,
 * live-in data such as optimizer moments is resident until first used), at byte granularity over disjoint segments of each
 * allocation.  Segments the loop reads before writing (plan_live_in) start
 * resident, the rest when first touched; a segment becomes resident when an op touches it and stops being
 * resident when a SWAP_OUT or DROP covering it runs.  Copies are assumed to
 * release memory when issued (the runtime releases it when the copy
 * completes, so measured peaks can sit a little above the model).  A
 * split op (trace_op.split_count) too big for half the budget holds two
 * pieces of its elementwise ranges and leaves them evicted (plan.c, Note
 * [split ops in the model]).
 *
 * Ownership: plan_result owns its actions, strings and notes; plan_free
 * releases them.  The trace is only read, and must outlive nothing. */
#ifndef TIDAL_PASS_PLAN_H
#define TIDAL_PASS_PLAN_H

#include <stdint.h>
#include "plan/costmodel.h"
#include "graph/trace.h"

typedef enum plan_mode {
  PLAN_MODE_AUTO = 0,  /* the best of: per candidate the cheaper of swap and recompute,
                          swap only, recompute only (by the cost model) */
  PLAN_MODE_SWAP,      /* swap (and drop) only */
  PLAN_MODE_RECOMPUTE, /* recompute (and drop) only */
  PLAN_MODE_NONE       /* no actions: instrumentation only */
} plan_mode;

/* "auto" "swap" "recompute" "none" -> mode; returns -1 if unknown. */
int plan_mode_parse(const char *s, plan_mode *out);
const char *plan_mode_name(plan_mode m);

typedef enum plan_kind {
  PLAN_SWAP_OUT = 0,
  PLAN_PREFETCH,
  PLAN_DROP,
  PLAN_RECOMPUTE,
  PLAN_KEEP
} plan_kind;

/* "swap_out" "prefetch" "drop" "recompute" "keep" */
const char *plan_kind_name(plan_kind k);

typedef enum plan_where { PLAN_BEFORE = 0, PLAN_AFTER = 1 } plan_where;

typedef struct plan_action {
  plan_kind kind;
  int at_op;          /* static op the call is placed next to */
  plan_where where;   /* before or after that op */
  int ref_op;         /* static op whose access names the range */
  int ref_access;     /* static access index within ref_op (trace_access.static_access) */
  int recomputed;     /* SWAP_OUT only: a RECOMPUTE is registered for this range,
                         so the runtime drops it instead of copying */
  char *tensor;       /* tensor name of the first instance ("acts.ln1[l=0]") */
  uint64_t bytes;     /* bytes of the range, first instance */
  int instances;      /* dynamic instances per iteration the action runs at */
  int idle_ops;       /* idle span of the first evicted instance, in ops (0 if n/a) */
  char *reason;       /* one line, for the rewriter's comment and reports */
} plan_action;

typedef struct plan_options {
  plan_mode mode;
  uint64_t budget_bytes;   /* 0 = no budget: only free actions (drops) */
  cost_model cost;
  int min_idle_ops;        /* shortest idle span worth evicting; 0 = default (4) */
} plan_options;

/* Fills defaults: auto, no budget, cost_model_default, min_idle_ops 0. */
void plan_options_default(plan_options *o);

typedef struct plan_result {
  int n_actions;
  plan_action *actions;    /* sorted by (at_op, where, kind) */
  uint64_t peak_before;    /* modelled peak with no actions */
  uint64_t peak_after;     /* modelled peak with the actions */
  uint64_t budget_bytes;   /* as asked (0 = none) */
  int budget_met;          /* peak_after <= budget (1 when no budget) */
  uint64_t evicted_bytes;  /* per iteration: bytes swapped out, dropped or recomputed */
  uint64_t swapped_bytes;  /* per iteration, of evicted_bytes: copied to the host */
  uint64_t dropped_bytes;  /* per iteration, of evicted_bytes: dropped (dead) */
  uint64_t recomputed_bytes; /* per iteration, of evicted_bytes: recomputed */
  double modelled_compute_s; /* one iteration's op time under the cost model */
  double modelled_overhead_s; /* per iteration, the plan's modelled cost: copy-in time
                                 not hidden behind compute, plus recompute time and calls */
  int n_notes;
  char **notes;            /* what could not be planned, and why (one line each) */
} plan_result;

/* Makes a plan.  Returns 0, or -1 on allocation failure (out untouched).
 * Deterministic: the same trace and options give the same plan. */
int plan_make(const tidal_trace *t, const plan_options *o, plan_result *out);

/* Modelled peak resident bytes of `t` over two iterations under `actions`
 * (n may be 0).  Exposed for tests and for `tidal rewrite`'s header. */
uint64_t plan_modelled_peak(const tidal_trace *t, const plan_action *actions, int n);

void plan_free(plan_result *r); /* NULL-safe; frees members, not r */

/* The dynamic instance of static op `ref_op` that an action placed at trace
 * op `i` refers to: the first at or after i in i's scope, else the last one
 * before it in that scope; -1 if that scope has none.  The model and replay
 * both resolve actions with this, as the rewritten source would. */
int plan_resolve_ref(const tidal_trace *t, int i, int ref_op);

/* Index into op->acc of the access with the given static access, or -1. */
int plan_find_static_access(const trace_op *op, int static_access);

/* A byte range of one allocation. */
typedef struct plan_range {
  int alloc;
  uint64_t offset;
  uint64_t bytes;
} plan_range;

/* The ranges the loop reads before writing them (parameters, optimizer
 * state, ...): they must hold data before the first iteration, and they are
 * the only memory the model counts as resident at loop entry.  *out is
 * malloc'd (caller frees).  Returns 0, or -1 on allocation failure. */
int plan_live_in(const tidal_trace *t, plan_range **out, int *n);

/* Duration of trace op `i` under the cost model (uses op.flops and the sum
 * of its access bytes). */
double plan_op_seconds(const tidal_trace *t, int i, const cost_model *m);

#endif
