/* replay_test.c - the replay engine on a hand-built 12-layer training trace,
 * through the real runtime (sim backend): plans under 50% of the natural
 * peak replay with identical checksums and within budget, and a broken plan
 * is caught (the oracle can fail). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hand_trace.h"
#include "plan/plan.h"
#include "replay/replay.h"

#include "../check.h"

#define KIB 1024ull

static tidal_trace *trace;

static void make_plan(plan_mode mode, uint64_t budget, plan_result *r) {
  plan_options o;
  plan_options_default(&o);
  o.mode = mode;
  o.budget_bytes = budget;
  if (plan_make(trace, &o, r) != 0) {
    fprintf(stderr, "plan_make failed\n");
    exit(2);
  }
}

static void run(const plan_result *plan, uint64_t budget, replay_break brk, replay_report *rep,
                const char *what) {
  replay_options o;
  replay_options_default(&o);
  o.chunk_bytes = 4096; /* the hand trace's tensors are KiB-sized (the default is 2 MiB) */
  o.budget_bytes = budget;
  o.brk = brk;
  int rc = replay_trace(trace, plan, &o, rep);
  fprintf(stderr, "--- %s\n", what);
  replay_print_text(stderr, rep, plan, what);
  CHECK(rc == 0);
}

static int has_note(const plan_result *r, const char *part) {
  for (int k = 0; k < r->n_notes; k++)
    if (strstr(r->notes[k], part)) return 1;
  return 0;
}

/* An AdamW over params + grads + moments = 16 MiB, most of the program,
 * under half its peak: whole, tidal_op_begin refuses it; split (the pass
 * proved it elementwise), it runs in pieces within the budget and every
 * checksum matches, at more than one budget (other piece counts); and the
 * oracle catches a piece that reads the wrong range. */
static void test_split(void) {
  trace = hand_trace(4, 64 * KIB, 1024 * KIB, 0);
  uint64_t natural = plan_modelled_peak(trace, NULL, 0);
  uint64_t budget = natural / 2;
  plan_result plan;
  replay_report rep;
  make_plan(PLAN_MODE_AUTO, budget, &plan);
  CHECK(!plan.budget_met);
  run(&plan, budget, REPLAY_BREAK_NONE, &rep, "adamw whole at 50%");
  CHECK(rep.managed.failed);
  CHECK(rep.managed.status == TIDAL_ERR_BUDGET); /* refused: said so, not wrong data */
  CHECK(replay_refused(&rep));
  CHECK(strstr(rep.managed.error, "exceeds the") != NULL);
  CHECK(rep.splittable_ops == 0);
  plan_free(&plan);

  hand_trace_split_adamw(trace);
  static const double fracs[3] = {0.5, 0.4, 1.25}; /* pieces of 2, 1 and 4 grains (a power of two) */
  uint64_t pieces[3] = {0, 0, 0};
  for (int f = 0; f < 3; f++) {
    budget = (uint64_t)((double)natural * fracs[f]);
    make_plan(PLAN_MODE_AUTO, budget, &plan);
    CHECK(plan.budget_met);
    CHECK(has_note(&plan, "adamw runs split"));
    run(&plan, budget, REPLAY_BREAK_NONE, &rep, "adamw split");
    CHECK(replay_ok(&rep));
    CHECK(rep.checksums_match && rep.final_state_match);
    CHECK(rep.managed.peak_bytes <= budget);
    CHECK(rep.splittable_ops == 1);
    CHECK(rep.managed.split_ops == 1);
    CHECK(rep.managed.split_pieces > 1);
    CHECK(rep.unmanaged.split_ops == 0); /* the unmanaged run has the device: whole */
    pieces[f] = rep.managed.split_pieces;
    if (f == 0) {
      /* a piece that reads (and writes) the first piece's range of one
       * argument: resident, declared, but the wrong bytes */
      replay_report bad;
      run(&plan, budget, REPLAY_BREAK_SPLIT_NO_ADVANCE, &bad, "adamw split, pointer not advanced");
      CHECK(!bad.managed.failed);
      CHECK(!bad.checksums_match);
      CHECK(bad.mismatched_ops > 0);
      CHECK(!replay_ok(&bad));
    }
    plan_free(&plan);
  }
  CHECK(pieces[1] > pieces[0] && pieces[0] > pieces[2]); /* smaller budget, more pieces */
  hand_trace_free(trace);
}

/* A recompute closure of a split op re-runs it in pieces too, each a
 * tidal_op_begin nested in the consumer's, and gives the same bytes.  The
 * planner never registers one (plan.c, Note [split ops in the model]), so
 * the plan is made first and the producers it registers with
 * activation-sized accesses are marked split after: 4 bytes per element of
 * each such access, the rest (weights: not elementwise) whole in every
 * piece.  Its other registrations are not run (replay_place.run = 0), so
 * every recompute is of a split op. */
static void test_split_recompute(void) {
  const uint64_t act = 1024 * KIB;
  trace = hand_trace(4, act, 64 * KIB, 0);
  uint64_t budget = 3900 * KIB; /* a 2 MiB elementwise working set is more than half */
  plan_result plan;
  make_plan(PLAN_MODE_RECOMPUTE, budget, &plan);
  replay_place *place = calloc((size_t)plan.n_actions, sizeof *place);
  int marked = 0;
  for (int k = 0; k < plan.n_actions; k++) {
    place[k].run = 1;
    if (plan.actions[k].kind != PLAN_RECOMPUTE) continue;
    place[k].run = 0;
    for (int i = 0; i < trace->n_ops; i++) {
      trace_op *op = &trace->ops[i];
      if (op->static_op != plan.actions[k].ref_op) continue;
      for (int a = 0; a < op->n_acc; a++)
        if (op->acc[a].bytes == act) {
          op->acc[a].split_elem_bytes = 4;
          op->split_count = act / 4;
          place[k].run = 1;
        }
      marked += op->split_count > 0;
    }
  }
  CHECK(marked > 0);
  replay_options o;
  replay_options_default(&o);
  o.chunk_bytes = 4096;
  o.budget_bytes = budget;
  o.place = place;
  replay_report rep;
  CHECK(replay_trace(trace, &plan, &o, &rep) == 0);
  replay_print_text(stderr, &rep, &plan, "recompute of a split op");
  CHECK(rep.managed.split_ops == (uint64_t)marked);
  CHECK(rep.managed.split_pieces > (uint64_t)marked);
  CHECK(rep.managed.recomputed_ops > 0);
  CHECK(rep.recompute_mismatches == 0);
  CHECK(replay_ok(&rep));
  free(place);
  plan_free(&plan);
  hand_trace_free(trace);
}

int main(void) {
  test_split();
  test_split_recompute();
  trace = hand_trace(12, 256 * KIB, 64 * KIB, 0);
  uint64_t natural = plan_modelled_peak(trace, NULL, 0);
  uint64_t budget = natural / 2;

  /* unmanaged and managed under each mode */
  plan_mode modes[] = {PLAN_MODE_SWAP, PLAN_MODE_AUTO, PLAN_MODE_RECOMPUTE, PLAN_MODE_NONE};
  uint64_t faults_swap = 0;
  for (int k = 0; k < 4; k++) {
    plan_result plan;
    make_plan(modes[k], budget, &plan);
    replay_report rep;
    run(&plan, budget, REPLAY_BREAK_NONE, &rep, plan_mode_name(modes[k]));
    CHECK(rep.checksums_match);
    CHECK(rep.final_state_match);
    CHECK(rep.recompute_mismatches == 0);
    CHECK(rep.budget_respected);
    CHECK(rep.managed.peak_bytes <= budget);
    CHECK(replay_ok(&rep));
    /* the model and the runtime agree on the natural peak (within chunking) */
    CHECK(rep.unmanaged.peak_bytes >= natural * 9 / 10);
    CHECK(rep.unmanaged.peak_bytes <= natural * 11 / 10 + 64 * KIB);
    CHECK(rep.unmanaged.faults == 0);
    if (modes[k] == PLAN_MODE_SWAP) {
      CHECK(rep.managed.swapped_out_bytes > 0);
      CHECK(rep.managed.prefetched_bytes > 0);
      faults_swap = rep.managed.faults;
    }
    if (modes[k] == PLAN_MODE_RECOMPUTE) CHECK(rep.managed.recomputed_ops > 0);
    CHECK(rep.managed.modelled_s >= rep.unmanaged.modelled_s * 0.999);
    plan_free(&plan);
  }

  /* Note [one model of cost]: a cost-only replay (no data: what `tidal
   * rewrite` and `tidal fit` report) gives the full replay's figures,
   * first iteration and steady state, and the same actions */
  {
    plan_result plan;
    make_plan(PLAN_MODE_SWAP, budget, &plan);
    replay_report full, cost;
    run(&plan, budget, REPLAY_BREAK_NONE, &full, "swap, with the oracle");
    replay_options o;
    replay_options_default(&o);
    o.chunk_bytes = 4096;
    o.budget_bytes = budget;
    o.cost_only = 1;
    CHECK(replay_trace(trace, &plan, &o, &cost) == 0);
    replay_print_text(stderr, &cost, &plan, "swap, cost only");
    CHECK(cost.cost_only && !full.cost_only);
    CHECK(full.managed.first_modelled_s > 0 && full.managed.last_modelled_s > 0);
    CHECK(cost.managed.first_modelled_s == full.managed.first_modelled_s);
    CHECK(cost.managed.last_modelled_s == full.managed.last_modelled_s);
    CHECK(cost.unmanaged.last_modelled_s == full.unmanaged.last_modelled_s);
    CHECK(replay_overhead_steady(&cost) == replay_overhead_steady(&full));
    CHECK(cost.managed.peak_bytes == full.managed.peak_bytes);
    CHECK(memcmp(cost.managed.last_actions, full.managed.last_actions,
                 sizeof cost.managed.last_actions) == 0);
    CHECK(full.managed.last_actions[REPLAY_SWAP_OUTS] > 0);
    CHECK(full.managed.last_actions[REPLAY_PREFETCHES] > 0);
    /* one budget: the runtime's, whole chunks, met */
    CHECK(full.budget_bytes == budget / 4096 * 4096);
    CHECK(full.budget_respected && !replay_refused(&full));
    plan_free(&plan);
  }

  /* broken plans: a skipped prefetch is repaired by fault-in ... */
  {
    plan_result plan;
    make_plan(PLAN_MODE_SWAP, budget, &plan);
    replay_report rep;
    run(&plan, budget, REPLAY_BREAK_SKIP_PREFETCH, &rep, "swap, prefetches skipped");
    CHECK(rep.checksums_match);
    CHECK(rep.managed.faults > faults_swap);
    CHECK(rep.managed.prefetched_bytes == 0);
    /* ... a live tensor dropped is not: the oracle must fail */
    run(&plan, budget, REPLAY_BREAK_DROP_LIVE, &rep, "swap, live tensors dropped");
    CHECK(!rep.checksums_match);
    CHECK(rep.mismatched_ops > 0);
    CHECK(!replay_ok(&rep));
    plan_free(&plan);
  }

  /* a budget below one op's working set fails loudly, it does not pass */
  {
    plan_result plan;
    make_plan(PLAN_MODE_AUTO, 64 * KIB, &plan);
    replay_report rep;
    replay_options o;
    replay_options_default(&o);
    o.chunk_bytes = 4096;
    o.budget_bytes = 64 * KIB;
    replay_trace(trace, &plan, &o, &rep);
    CHECK(rep.managed.failed);
    CHECK(rep.managed.status == TIDAL_ERR_BUDGET);
    CHECK(replay_refused(&rep));
    CHECK(!replay_ok(&rep));
    plan_free(&plan);
  }

  hand_trace_free(trace);
  if (failures) {
    fprintf(stderr, "replay_test: %d checks failed\n", failures);
    return 1;
  }
  printf("replay_test: all checks passed\n");
  return 0;
}
