/* plan_test.c - unit tests of the planner and cost model on hand-built
 * training-shaped traces (hand_trace.h): candidates found, drops where the
 * next access overwrites everything, recompute never chosen for RNG
 * producers, modelled peak within budget, placement rules, --plan none. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "costmodel.h"
#include "hand_trace.h"
#include "plan.h"

static int failures;
#define CHECK(cond)                                                         \
  do {                                                                      \
    if (!(cond)) {                                                          \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      failures++;                                                           \
    }                                                                       \
  } while (0)

#define KIB 1024ull
#define MIB (1024ull * 1024ull)

static int count_kind(const plan_result *r, plan_kind k) {
  int n = 0;
  for (int i = 0; i < r->n_actions; i++) n += r->actions[i].kind == k;
  return n;
}

static int static_scope_of(const tidal_trace *t, int static_op) {
  for (int i = 0; i < t->n_ops; i++)
    if (t->ops[i].static_op == static_op) return t->ops[i].static_scope;
  return -99;
}

static void print_plan(const plan_result *r) {
  for (int i = 0; i < r->n_actions; i++) {
    const plan_action *a = &r->actions[i];
    fprintf(stderr, "  %-9s %s op %d (ref %d.%d%s) %s: %s\n", plan_kind_name(a->kind),
            a->where == PLAN_BEFORE ? "before" : "after", a->at_op, a->ref_op, a->ref_access,
            a->recomputed ? ", recomputed" : "", a->tensor, a->reason);
  }
  for (int i = 0; i < r->n_notes; i++) fprintf(stderr, "  note: %s\n", r->notes[i]);
}

static void test_cost_model(void) {
  cost_model m;
  cost_model_default(&m);
  /* a pure copy-bound op: 3.35 GB at 3.35 TB/s = 1 ms, plus the launch */
  double s = cost_op_seconds(&m, 0, 3350000000ull);
  CHECK(s > 1e-3 && s < 1e-3 + 1e-5);
  /* compute-bound: 67 GFLOP at 67 TFLOP/s = 1 ms */
  s = cost_op_seconds(&m, 67e9, 1000);
  CHECK(s > 0.99e-3 && s < 1.01e-3 + 1e-5);
  CHECK(cost_model_set_pair(&m, "h2d_bw=10G") == 0);
  CHECK(m.h2d_bytes_per_s == 10e9);
  CHECK(cost_model_set_pair(&m, "latency=0") == 0);
  CHECK(cost_h2d_seconds(&m, 10000000000ull) > 0.99 && cost_h2d_seconds(&m, 10000000000ull) < 1.01);
  CHECK(cost_model_set_pair(&m, "nosuchkey=1") != 0);
  CHECK(cost_model_set_pair(&m, "h2d_bw=0") != 0);
  CHECK(cost_model_set_pair(&m, "h2d_bw=fast") != 0);
}

static void test_none_mode(void) {
  tidal_trace *t = hand_trace(12, 1 * MIB, 256 * KIB, 0);
  plan_options o;
  plan_options_default(&o);
  o.mode = PLAN_MODE_NONE;
  o.budget_bytes = 1 * MIB;
  plan_result r;
  CHECK(plan_make(t, &o, &r) == 0);
  CHECK(r.n_actions == 0);
  CHECK(r.peak_after == r.peak_before);
  CHECK(!r.budget_met);
  plan_free(&r);
  hand_trace_free(t);
}

/* Under no budget only free actions are planned: h_l is dead after its
 * backward use (the next access is the next iteration's full write), and
 * the scratch gradient after its last read in backward. */
static void test_drops(void) {
  tidal_trace *t = hand_trace(12, 1 * MIB, 256 * KIB, 0);
  plan_options o;
  plan_options_default(&o);
  plan_result r;
  CHECK(plan_make(t, &o, &r) == 0);
  CHECK(count_kind(&r, PLAN_SWAP_OUT) == 0);
  CHECK(count_kind(&r, PLAN_RECOMPUTE) == 0);
  int h_dropped = 0;
  for (int i = 0; i < r.n_actions; i++) {
    const plan_action *a = &r.actions[i];
    CHECK(a->kind == PLAN_DROP);
    if (a->at_op == 4 && a->ref_access == 0 && strncmp(a->tensor, "acts.h", 6) == 0)
      h_dropped = 1;
    /* a drop must never hit data read later: params, moments, input stay */
    CHECK(strncmp(a->tensor, "params", 6) != 0 && strcmp(a->tensor, "moments") != 0);
    CHECK(strcmp(a->tensor, "input") != 0 && strncmp(a->tensor, "grads", 5) != 0);
    /* nor h_l after the forward (read again in backward) */
    CHECK(!(a->at_op == 2 && strncmp(a->tensor, "acts.h", 6) == 0));
  }
  CHECK(h_dropped);
  CHECK(r.peak_after <= r.peak_before);
  if (failures) print_plan(&r);
  plan_free(&r);
  hand_trace_free(t);
}

static void check_budget_plan(plan_mode mode, unsigned act_flags, double frac) {
  tidal_trace *t = hand_trace(12, 1 * MIB, 256 * KIB, act_flags);
  uint64_t natural = plan_modelled_peak(t, NULL, 0);
  plan_options o;
  plan_options_default(&o);
  o.mode = mode;
  o.budget_bytes = (uint64_t)((double)natural * frac);
  plan_result r;
  CHECK(plan_make(t, &o, &r) == 0);
  CHECK(r.peak_before == natural);
  /* what the plan reports is what the model gives for its actions */
  CHECK(r.peak_after == plan_modelled_peak(t, r.actions, r.n_actions));
  CHECK(r.budget_met == (r.peak_after <= o.budget_bytes));
  int n_rec = count_kind(&r, PLAN_RECOMPUTE);
  for (int i = 0; i < r.n_actions; i++) {
    const plan_action *a = &r.actions[i];
    CHECK(a->reason && a->reason[0]);
    CHECK(a->instances > 0);
    if (a->kind == PLAN_PREFETCH) {
      /* placed where the next use's pointer expression is valid */
      CHECK(static_scope_of(t, a->at_op) == static_scope_of(t, a->ref_op));
      CHECK(a->where == PLAN_BEFORE);
    }
    if (a->kind == PLAN_RECOMPUTE) {
      /* never an RNG producer */
      for (int k = 0; k < t->n_ops; k++)
        if (t->ops[k].static_op == a->ref_op) CHECK(!(t->ops[k].flags & KERNEL_RNG));
    }
    if (mode == PLAN_MODE_SWAP) CHECK(a->kind != PLAN_RECOMPUTE);
    if (mode == PLAN_MODE_RECOMPUTE) CHECK(a->kind != PLAN_PREFETCH);
  }
  if (mode == PLAN_MODE_SWAP || mode == PLAN_MODE_AUTO) {
    CHECK(r.budget_met);
    CHECK(r.peak_after <= o.budget_bytes);
    CHECK(count_kind(&r, PLAN_SWAP_OUT) > 0);
    CHECK(r.evicted_bytes > 0);
  }
  if (mode == PLAN_MODE_SWAP) CHECK(count_kind(&r, PLAN_PREFETCH) > 0);
  if (mode == PLAN_MODE_RECOMPUTE && !act_flags) CHECK(n_rec > 0);
  if (mode == PLAN_MODE_RECOMPUTE && act_flags) {
    /* the RNG producer's output must be kept, and the plan must say why */
    int said = 0;
    for (int i = 0; i < r.n_notes; i++) said |= strstr(r.notes[i], "RNG") != NULL;
    for (int i = 0; i < r.n_actions; i++)
      said |= r.actions[i].kind == PLAN_KEEP && strstr(r.actions[i].reason, "RNG") != NULL;
    CHECK(said);
  }
  if (failures) {
    fprintf(stderr, "mode %s flags %u budget %llu natural %llu after %llu\n",
            plan_mode_name(mode), act_flags, (unsigned long long)o.budget_bytes,
            (unsigned long long)natural, (unsigned long long)r.peak_after);
    print_plan(&r);
  }
  plan_free(&r);
  hand_trace_free(t);
}

/* Same input, same plan. */
static void test_deterministic(void) {
  tidal_trace *t = hand_trace(6, 512 * KIB, 64 * KIB, 0);
  plan_options o;
  plan_options_default(&o);
  o.budget_bytes = plan_modelled_peak(t, NULL, 0) / 2;
  plan_result a, b;
  CHECK(plan_make(t, &o, &a) == 0);
  CHECK(plan_make(t, &o, &b) == 0);
  CHECK(a.n_actions == b.n_actions);
  for (int i = 0; i < a.n_actions && i < b.n_actions; i++) {
    CHECK(a.actions[i].kind == b.actions[i].kind);
    CHECK(a.actions[i].at_op == b.actions[i].at_op);
    CHECK(strcmp(a.actions[i].reason, b.actions[i].reason) == 0);
  }
  plan_free(&a);
  plan_free(&b);
  hand_trace_free(t);
}

/* An impossible budget is reported, not silently missed. */
static void test_impossible_budget(void) {
  tidal_trace *t = hand_trace(4, 1 * MIB, 256 * KIB, 0);
  plan_options o;
  plan_options_default(&o);
  o.budget_bytes = 1 * MIB; /* less than one op's working set */
  plan_result r;
  CHECK(plan_make(t, &o, &r) == 0);
  CHECK(!r.budget_met);
  CHECK(r.n_notes > 0);
  plan_free(&r);
  hand_trace_free(t);
}

int main(void) {
  test_cost_model();
  test_none_mode();
  test_drops();
  check_budget_plan(PLAN_MODE_SWAP, 0, 0.5);
  check_budget_plan(PLAN_MODE_AUTO, 0, 0.5);
  check_budget_plan(PLAN_MODE_AUTO, 0, 0.35);
  check_budget_plan(PLAN_MODE_RECOMPUTE, 0, 0.5);
  check_budget_plan(PLAN_MODE_RECOMPUTE, KERNEL_RNG, 0.5);
  check_budget_plan(PLAN_MODE_AUTO, KERNEL_RNG, 0.5);
  test_deterministic();
  test_impossible_budget();
  if (failures) {
    fprintf(stderr, "plan_test: %d checks failed\n", failures);
    return 1;
  }
  printf("plan_test: all checks passed\n");
  return 0;
}
