/* plan_test.c - unit tests of the planner and cost model on hand-built
 * training-shaped traces (hand_trace.h): candidates found, drops where the
 * next access overwrites everything, recompute never chosen for RNG
 * producers, modelled peak within budget, placement rules, --plan none,
 * wrap-around candidates, late prefetches, auto never worse than a single
 * mode. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/costmodel.h"
#include "tidal_copy_costs.h" /* generated from runtime/device/sim_costs.txt */
#include "hand_trace.h"
#include "plan/plan.h"

#include "../check.h"

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
  /* copies: the runtime's table (runtime/device/sim_costs.txt), the one
   * the sim replays the plan with, not figures of the model's own */
  CHECK(m.h2d_bytes_per_s == TIDAL_COPY_H2D_BYTES_PER_S);
  CHECK(m.d2h_bytes_per_s == TIDAL_COPY_D2H_BYTES_PER_S);
  CHECK(m.copy_latency_s == TIDAL_COPY_LATENCY_S);
  /* a pure copy-bound op: 3.35 GB at 3.35 TB/s = 1 ms, plus the launch */
  double s = cost_op_seconds(&m, 0, 3350000000ull);
  CHECK(s > 1e-3 && s < 1e-3 + 1e-5);
  /* compute-bound: 67 GFLOP at 67 TFLOP/s = 1 ms */
  s = cost_op_seconds(&m, 67e9, 1000);
  CHECK(s > 0.99e-3 && s < 1.01e-3 + 1e-5);
  char why[256];
  CHECK(cost_model_set_pair(&m, "h2d_bw=10G", why, sizeof why) == 0);
  CHECK(m.h2d_bytes_per_s == 10e9);
  CHECK(m.set_keys == 1u << COST_H2D_BW);
  CHECK(cost_model_set_pair(&m, "latency=0", why, sizeof why) == 0);
  CHECK(cost_h2d_seconds(&m, 10000000000ull) > 0.99 && cost_h2d_seconds(&m, 10000000000ull) < 1.01);
  CHECK(cost_model_set_pair(&m, "latency=10u", why, sizeof why) == 0);
  CHECK(m.copy_latency_s > 9.99e-6 && m.copy_latency_s < 10.01e-6);
  CHECK(cost_model_set_pair(&m, "nosuchkey=1", why, sizeof why) != 0);
  CHECK(cost_model_set_pair(&m, "h2d_bw=0", why, sizeof why) != 0);
  CHECK(cost_model_set_pair(&m, "h2d_bw=fast", why, sizeof why) != 0);
  /* issue 23: only finite plain decimals, in range, with the key's units */
  static const char *const refused[] = {
      "h2d_bw=inf", "h2d_bw=nan", "h2d_bw=-5G", "h2d_bw=0x10", "h2d_bw=5G junk", "h2d_bw=5Gx",
      "h2d_bw=1e400", "h2d_bw=2e18", "latency=1G", "latency=5", "latency=10K", "launch=nan",
      "h2d_bw=10u", "peak_flops=", "h2d_bw=+5G", "h2d_bw=5\x01"};
  for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
    cost_model before = m;
    if (cost_model_set_pair(&m, refused[i], why, sizeof why) == 0) {
      fprintf(stderr, "accepted %s\n", refused[i]);
      CHECK(0);
    }
    CHECK(m.h2d_bytes_per_s == before.h2d_bytes_per_s && m.copy_latency_s == before.copy_latency_s);
  }
  /* a binary value is quoted with its bytes escaped, never raw */
  CHECK(cost_model_set_pair(&m, "h2d_bw=\x01\xff", why, sizeof why) != 0);
  CHECK(strstr(why, "\\x01\\xff") != NULL);
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

/* Note [auto picks the best plan]: auto is never worse than the best single
 * mode by the planner's own figures: it meets the budget whenever swap-only
 * or recompute-only does, then at no higher modelled overhead; when none
 * meets it, at no higher peak. */
static void check_auto_never_worse(unsigned act_flags, double frac) {
  tidal_trace *t = hand_trace(12, 1 * MIB, 256 * KIB, act_flags);
  plan_options o;
  plan_options_default(&o);
  o.budget_bytes = (uint64_t)((double)plan_modelled_peak(t, NULL, 0) * frac);
  plan_result a, s, r;
  o.mode = PLAN_MODE_AUTO;
  CHECK(plan_make(t, &o, &a) == 0);
  o.mode = PLAN_MODE_SWAP;
  CHECK(plan_make(t, &o, &s) == 0);
  o.mode = PLAN_MODE_RECOMPUTE;
  CHECK(plan_make(t, &o, &r) == 0);
  const plan_result *single[2] = {&s, &r};
  for (int k = 0; k < 2; k++) {
    const plan_result *x = single[k];
    if (x->budget_met) {
      CHECK(a.budget_met);
      CHECK(a.modelled_overhead_s <= x->modelled_overhead_s + 1e-12);
    } else if (!a.budget_met) {
      CHECK(a.peak_after <= x->peak_after);
    }
  }
  /* the figures auto compares are the plan's own */
  CHECK(a.peak_after == plan_modelled_peak(t, a.actions, a.n_actions));
  int said = 0;
  for (int i = 0; i < a.n_notes; i++) said |= strncmp(a.notes[i], "auto kept the ", 14) == 0;
  CHECK(said);
  if (failures) {
    fprintf(stderr, "auto vs single modes, flags %u budget %.2f: auto %d %.1f us %llu, "
            "swap %d %.1f us %llu, recompute %d %.1f us %llu\n", act_flags, frac,
            a.budget_met, a.modelled_overhead_s * 1e6, (unsigned long long)a.peak_after,
            s.budget_met, s.modelled_overhead_s * 1e6, (unsigned long long)s.peak_after,
            r.budget_met, r.modelled_overhead_s * 1e6, (unsigned long long)r.peak_after);
    print_plan(&a);
  }
  plan_free(&a);
  plan_free(&s);
  plan_free(&r);
  hand_trace_free(t);
}

/* Wrap-around: the optimizer moments are used only by adamw, the last op;
 * their idle span runs across the iteration boundary to the next adamw.
 * Swapped out after adamw and prefetched before it, they are absent from
 * the steady-state peak (the second iteration starts with the state the
 * first left), even though the first iteration starts with them resident. */
static void test_wraparound_moments(void) {
  const int L = 12;
  tidal_trace *t = hand_trace(L, 1 * MIB, 256 * KIB, 0);
  uint64_t natural = plan_modelled_peak(t, NULL, 0);
  uint64_t moments = 2 * (uint64_t)L * 256 * KIB;
  /* start from the free plan (drops only), then add the moments' calls */
  plan_options o;
  plan_options_default(&o);
  plan_result d;
  CHECK(plan_make(t, &o, &d) == 0);
  plan_action *acts = calloc((size_t)d.n_actions + 2, sizeof *acts);
  memcpy(acts, d.actions, (size_t)d.n_actions * sizeof *acts);
  plan_action *so = &acts[d.n_actions], *pf = &acts[d.n_actions + 1];
  so->kind = PLAN_SWAP_OUT;
  so->at_op = 6; /* adamw */
  so->where = PLAN_AFTER;
  so->ref_op = 6;
  so->ref_access = 2; /* its moments access */
  *pf = *so;
  pf->kind = PLAN_PREFETCH;
  pf->where = PLAN_BEFORE;
  /* the peak is in the forward/backward turn, where the moments are idle */
  CHECK(plan_modelled_peak(t, acts, d.n_actions + 2) == d.peak_after - moments);
  /* without the prefetch the model restores them at the use: same peak */
  CHECK(plan_modelled_peak(t, acts, d.n_actions + 1) == d.peak_after - moments);
  free(acts);
  plan_free(&d);

  /* and the planner finds it: under a tight budget the moments are swapped
   * after adamw and prefetched where adamw's pointer is valid */
  o.mode = PLAN_MODE_SWAP;
  o.budget_bytes = natural / 2;
  plan_result r;
  CHECK(plan_make(t, &o, &r) == 0);
  int out = 0, in = 0;
  for (int i = 0; i < r.n_actions; i++) {
    const plan_action *a = &r.actions[i];
    if (a->ref_op != 6 || a->ref_access != 2) continue;
    if (a->kind == PLAN_SWAP_OUT && a->at_op == 6 && a->where == PLAN_AFTER) out = 1;
    if (a->kind == PLAN_PREFETCH && static_scope_of(t, a->at_op) == static_scope_of(t, 6))
      in = 1;
    CHECK(a->kind != PLAN_DROP); /* the moments are live state */
  }
  CHECK(out && in);
  CHECK(r.budget_met);
  if (failures) print_plan(&r);
  plan_free(&r);
  hand_trace_free(t);
}

/* Note [late prefetch]: the moments' use (adamw) follows the backward layer
 * loop, whose ops cannot carry adamw's pointer; a prefetch that hides the
 * whole copy would go before "loss" (static op 3), holding the moments
 * across the backward pass, where the peak is.  Under a budget that forbids
 * that, the planner issues it later. */
static void test_late_prefetch(void) {
  tidal_trace *t = hand_trace(12, 1 * MIB, 256 * KIB, 0);
  plan_options o;
  plan_options_default(&o);
  o.mode = PLAN_MODE_SWAP;
  o.budget_bytes = (uint64_t)((double)plan_modelled_peak(t, NULL, 0) * 0.35);
  plan_result r;
  CHECK(plan_make(t, &o, &r) == 0);
  CHECK(r.budget_met);
  int found = 0;
  for (int i = 0; i < r.n_actions; i++) {
    plan_action *a = &r.actions[i];
    if (a->kind != PLAN_PREFETCH || a->ref_op != 6 || a->ref_access != 2) continue;
    found = 1;
    CHECK(a->at_op != 3);
    /* the early placement would have broken the budget */
    int at = a->at_op;
    a->at_op = 3;
    CHECK(plan_modelled_peak(t, r.actions, r.n_actions) > o.budget_bytes);
    a->at_op = at;
  }
  CHECK(found);
  if (failures) print_plan(&r);
  plan_free(&r);
  hand_trace_free(t);
}

static int has_note(const plan_result *r, const char *part) {
  for (int k = 0; k < r->n_notes; k++)
    if (strstr(r->notes[k], part)) return 1;
  return 0;
}

/* An AdamW over 16 MiB of a 16.7 MiB program at half the peak: whole, the
 * model stops at it; split (Note [split ops in the model]), it holds two
 * pieces, the plan meets the budget, and nothing is swapped, prefetched or
 * recomputed for it (the runtime moves its pieces). */
static void test_split(void) {
  tidal_trace *t = hand_trace(4, 64 * KIB, 1 * MIB, 0);
  uint64_t budget = plan_modelled_peak(t, NULL, 0) / 2;
  plan_options o;
  plan_options_default(&o);
  o.budget_bytes = budget;
  plan_result r;
  CHECK(plan_make(t, &o, &r) == 0);
  CHECK(!r.budget_met);
  CHECK(has_note(&r, "at adamw (op 18) exceeds the budget"));
  plan_free(&r);
  hand_trace_split_adamw(t);
  int adamw = t->ops[t->n_ops - 1].static_op;
  plan_mode modes[3] = {PLAN_MODE_AUTO, PLAN_MODE_SWAP, PLAN_MODE_RECOMPUTE};
  for (int k = 0; k < 3; k++) {
    o.mode = modes[k];
    CHECK(plan_make(t, &o, &r) == 0);
    if (modes[k] != PLAN_MODE_RECOMPUTE) { /* recompute-only cannot evict the params */
      CHECK(r.budget_met);
      CHECK(r.peak_after <= budget);
    }
    CHECK(has_note(&r, "adamw runs split: 1048576 elements (16.0 MiB) in pieces of 131072"));
    CHECK(!has_note(&r, "at adamw (op 18) exceeds"));
    /* the model holds two pieces of 131072 elements x 16 bytes at adamw */
    CHECK(r.peak_after >= 2 * 131072 * 16);
    for (int i = 0; i < r.n_actions; i++) {
      const plan_action *a = &r.actions[i];
      if (a->ref_op != adamw) continue;
      CHECK(a->kind == PLAN_DROP);
    }
    print_plan(&r);
    plan_free(&r);
  }
  hand_trace_free(t);
}

int main(void) {
  test_split();
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
  test_wraparound_moments();
  test_late_prefetch();
  for (int f = 0; f < 4; f++) {
    static const double fracs[4] = {0.75, 0.5, 0.35, 0.25};
    check_auto_never_worse(0, fracs[f]);
    check_auto_never_worse(KERNEL_RNG, fracs[f]);
  }
  if (failures) {
    fprintf(stderr, "plan_test: %d checks failed\n", failures);
    return 1;
  }
  printf("plan_test: all checks passed\n");
  return 0;
}
