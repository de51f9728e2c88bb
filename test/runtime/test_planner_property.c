/* test_planner_property.c - random traces x random budgets through the
 * run-time planner (TIDAL_PLANNER=runtime) on the sim backend.
 *
 * Each case draws allocations (some smaller than a chunk, some with a
 * partial last chunk), an iteration of ops with random accesses (read,
 * write, read-write; whole or part of an allocation), random build-time
 * hints between ops (swap-out, prefetch, keep), a budget between the
 * largest op's working set and the whole footprint, and runs 3-7
 * iterations, some with an extra "evaluation" op that leaves the plan.
 * Every byte an op reads is compared with a host shadow of the program
 * (no byte lost), every byte it writes gets new values, and after every
 * call resident bytes must be within the budget.
 *
 * With TIDAL_TEST_RELOC=1 every other allocation is relocatable (units the
 * plan acts on: Note [units] in runtime/memory/units.c), with =2 every one;
 * device bytes are touched through TIDAL_AT either way.
 *
 * Usage: rt_test_planner_property [SEED [CASES]]; ctest runs a few hundred
 * cases, bench/planner_property.sh 10,000 (docs/runtime-design.md). */
#include "testhelp.h"

#define CH ((size_t)4096)
#define MAXA 8
#define MAXOPS 24
#define MAXACC 3

typedef struct acc {
  int alloc;
  size_t off, len;
  tidal_mode mode;
} acc;

typedef struct op {
  tidal_site site;
  int nacc;
  acc a[MAXACC];
  int hint;          /* 0 none, 1 swap_out, 2 prefetch, 3 keep: after the op */
  acc h;             /* its range */
} op;

static size_t asz[MAXA];
static unsigned char *dev[MAXA], *shadow[MAXA];
static int na, nops;
static op ops[MAXOPS + 1]; /* + the evaluation op */
static uint64_t stamp;
static int acted, offplan; /* cases where the planner acted / left its plan */
static int reloc_mode;      /* TIDAL_TEST_RELOC */

static void check_budget(const char *when) {
  tidal_stats s = th_stats();
  if (s.resident_bytes > s.budget_bytes)
    TH_FAIL("%s: resident %llu > budget %llu", when, (unsigned long long)s.resident_bytes,
            (unsigned long long)s.budget_bytes);
}

static acc random_acc(void) {
  acc x;
  x.alloc = (int)th_below((size_t)na);
  size_t n = asz[x.alloc];
  if (th_below(3) == 0) {
    x.off = 0, x.len = n;
  } else {
    x.off = th_below(n);
    x.len = 1 + th_below(n - x.off);
  }
  x.mode = (tidal_mode)(1 + th_below(3));
  return x;
}

static void run_op(const op *o) {
  tidal_access ta[MAXACC];
  for (int k = 0; k < o->nacc; k++)
    ta[k] = (tidal_access){dev[o->a[k].alloc] + o->a[k].off, o->a[k].len, o->a[k].mode};
  tidal_status st = tidal_op_begin(&o->site, o->nacc, ta);
  if (st != TIDAL_OK)
    TH_FAIL("op %s: %s", o->site.label, tidal_status_string(st));
  check_budget("op_begin");
  /* reads first (the op's inputs), then writes in order */
  for (int k = 0; k < o->nacc; k++) {
    const acc *x = &o->a[k];
    if (!(x->mode & TIDAL_READ))
      continue;
    if (memcmp(TIDAL_AT(dev[x->alloc] + x->off), shadow[x->alloc] + x->off, x->len) != 0)
      TH_FAIL("op %s read stale data from alloc %d [%zu, +%zu)", o->site.label, x->alloc, x->off,
              x->len);
  }
  stamp++;
  for (int k = 0; k < o->nacc; k++) {
    const acc *x = &o->a[k];
    if (!(x->mode & TIDAL_WRITE))
      continue;
    for (size_t i = 0; i < x->len; i++) {
      unsigned char v = (unsigned char)(stamp * 131 + i * 7 + (size_t)k);
      TIDAL_AT(dev[x->alloc] + x->off)[i] = v;
      shadow[x->alloc][x->off + i] = v;
    }
  }
  CHECK_OK(tidal_op_end(&o->site));
  check_budget("op_end");
}

static void run_hint(const op *o) {
  const acc *x = &o->h;
  void *p = dev[x->alloc] + x->off;
  if (o->hint == 1)
    CHECK_OK(tidal_swap_out(p, x->len));
  else if (o->hint == 2)
    CHECK_OK(tidal_prefetch(p, x->len));
  else if (o->hint == 3)
    CHECK_OK(tidal_keep(p, x->len));
  check_budget("hint");
}

static size_t chunks_of(size_t bytes) { return bytes < CH ? 0 : (bytes + CH - 1) / CH; }

static void one_case(int c) {
  na = 1 + (int)th_below(MAXA);
  size_t total = 0, nsmall = 0;
  for (int a = 0; a < na; a++) {
    size_t k = th_below(6);
    asz[a] = k == 0 ? 16 + th_below(CH / 2) : k * CH - th_below(CH / 2);
    total += chunks_of(asz[a]);
    nsmall += asz[a] < CH;
  }
  nops = 3 + (int)th_below(MAXOPS - 2);
  size_t ws_max = 0;
  for (int i = 0; i <= nops; i++) {
    op *o = &ops[i];
    memset(o, 0, sizeof *o);
    o->site.label = i == nops ? "eval" : "op";
    o->site.file = "prop.c";
    o->site.line = i;
    o->site.est_seconds = (1 + (double)th_below(20)) * 1e-6;
    o->nacc = 1 + (int)th_below(MAXACC);
    size_t ws = 0;
    for (int k = 0; k < o->nacc; k++) {
      o->a[k] = random_acc();
      ws += chunks_of(asz[o->a[k].alloc]) ? o->a[k].len / CH + 2 : 0;
    }
    if (ws > ws_max)
      ws_max = ws;
    o->hint = th_below(4) == 0 ? 1 + (int)th_below(3) : 0;
    o->h = random_acc();
  }
  if (ws_max > total)
    ws_max = total;
  for (int a = 0; a < na; a++) /* the initial write covers a whole allocation */
    if (chunks_of(asz[a]) > ws_max)
      ws_max = chunks_of(asz[a]);
  /* mostly tight budgets (the planner must act), sometimes roomy ones */
  size_t budget_chunks = ws_max + nsmall + 1 + th_below(th_below(4) ? total / 2 + 1 : total + 2);
  int feedback = (int)th_below(2), sync = (int)th_below(2);
  int iters = 3 + (int)th_below(5);
  int eval_every = th_below(3) == 0 ? 2 + (int)th_below(3) : 0;

  tidal_config cfg;
  th_config(&cfg, CH, budget_chunks * CH);
  cfg.planner = TIDAL_PLANNER_RUNTIME;
  cfg.planner_feedback_off = !feedback;
  cfg.sim_synchronous = sync;
  cfg.sim_copy_latency_s = 1e-8;
  th_init(&cfg);
  for (int a = 0; a < na; a++) {
    CHECK_OK(tidal_malloc_grouped((void **)&dev[a], asz[a],
                                  reloc_mode > 1 || (reloc_mode && a % 2)
                                      ? TIDAL_GROUP_RELOCATABLE
                                      : 0));
    shadow[a] = malloc(asz[a]);
    CHECK(shadow[a]);
    /* initial contents, written by an op */
    tidal_access w = {dev[a], asz[a], TIDAL_WRITE};
    static const tidal_site init = {"init", "prop.c", 0, 0};
    CHECK_OK(tidal_op_begin(&init, 1, &w));
    for (size_t i = 0; i < asz[a]; i++)
      TIDAL_AT(dev[a])[i] = shadow[a][i] = (unsigned char)(i * 13 + (size_t)a * 71 + (size_t)c);
    CHECK_OK(tidal_op_end(&init));
  }
  for (int it = 0; it < iters; it++) {
    CHECK_OK(tidal_iteration_begin());
    for (int i = 0; i < nops; i++) {
      if (eval_every && it % eval_every == eval_every - 1 && i == nops / 2)
        run_op(&ops[nops]);
      run_op(&ops[i]);
      if (ops[i].hint)
        run_hint(&ops[i]);
    }
    CHECK_OK(tidal_iteration_end());
  }
  /* every byte of every allocation, read back */
  for (int a = 0; a < na; a++) {
    tidal_access r = {dev[a], asz[a], TIDAL_READ};
    static const tidal_site fin = {"final", "prop.c", 0, 0};
    CHECK_OK(tidal_op_begin(&fin, 1, &r));
    if (memcmp(TIDAL_AT(dev[a]), shadow[a], asz[a]) != 0)
      TH_FAIL("case %d: allocation %d lost data", c, a);
    CHECK_OK(tidal_op_end(&fin));
    CHECK_OK(tidal_free(dev[a]));
    free(shadow[a]);
  }
  th_check_host("at the end of a case");
  tidal_stats s = th_stats();
  acted += s.total.planner_swap_outs + s.total.planner_prefetches > 0;
  offplan += s.total.off_plan_iterations > 0;
  CHECK_OK(tidal_shutdown());
}

int main(int argc, char **argv) {
  th_seed_init(argc, argv);
  reloc_mode = getenv("TIDAL_TEST_RELOC") ? atoi(getenv("TIDAL_TEST_RELOC")) : 0;
  int cases = argc > 2 ? atoi(argv[2]) : 300;
  for (int c = 0; c < cases; c++)
    one_case(c);
  printf("ok: %d cases, the planner acted in %d, left its plan in %d\n", cases, acted, offplan);
  /* the property must have been exercised, not only passed.  Over seeds
   * 1-20 the planner acted in 21-40 of 300 cases (mean ~31); a floor of
   * cases/20 (15) sat three deviations under the mean and failed ~0.35% of
   * time-based seeds (e.g. 1795818773: 15).  cases/40 is still far above
   * a planner that never acts (0) and far below the spread. */
  CHECK(cases < 100 || (acted > cases / 40 && offplan > 0));
  return 0;
}
