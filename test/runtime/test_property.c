/* test_property.c - the round trip under everything at once: random ops,
 * nested ops, swap-outs, prefetches, drops, keeps, recompute registrations
 * of a deterministic producer, free + malloc reuse of address ranges,
 * iteration boundaries, TIDAL_EXTENT_UNKNOWN, accesses that straddle chunk
 * boundaries, packed small allocations - against a host shadow, under
 * several budget profiles (roomy, 1 chunk, 3 chunks, host store starved,
 * host store full),
 * with the threaded and the synchronous sim copy engine.
 *
 * The test plays the part of the pass: a registration stays valid only while
 * its producer's inputs are unchanged, so before the test mutates (writes,
 * drops, frees) a registration's source it first materialises the
 * registration's output with a read-write op.  Writes into a registration's
 * *output* are not protected that way: the runtime must cope with them.
 *
 * After every call: resident <= budget, peak >= resident, peak <= budget,
 * counters never decrease, prefetched <= swapped in, last iteration <=
 * total, and every host slot is free once or owned by one chunk (Note
 * [host slot ownership]).  In the host-starved profile an op may legitimately fail with
 * TIDAL_ERR_BUDGET (or TIDAL_ERR_RECOMPUTE when a closure's own op ran out
 * of room); the shadow is then unchanged and the data must still be there.
 * With TIDAL_TEST_RELOC=1 every other allocation is relocatable
 * (TIDAL_GROUP_RELOCATABLE: units in the device pool, Note [units] in
 * runtime/memory/units.c) and the units' invariants are checked too; the
 * test touches device memory through TIDAL_AT inside ops either way (the
 * identity for home memory).  Ops nested by hand may then fail with
 * TIDAL_ERR_UNSUPPORTED (an access spanning a unit the outer op holds,
 * docs/limitations.md), and so may a recompute closure run inside such a
 * nested op: counted, and the data must still be there.
 * The host-starved profiles run then too: units' copies and chunks' slots
 * share one host store byte for byte (Note [one host store]).  Four
 * profiles, both copy engines: 50,000 steps.
 *
 * The last profile draws its device and host budgets from the seed (2-10
 * and 1-8 chunks) and changes the device budget at random between ops, as
 * a shared budget or a measured percentage does (rt_budget_set), for
 * RANDOM_STEPS steps: the host store is full most of the time, and a pool
 * still shrinking meets fault-ins that need an exchange (issue 23: a
 * SIGSEGV, and the chunk's only copy lost).  Ops may fail with
 * TIDAL_ERR_BUDGET there; nothing may crash or lose a byte.
 * The seed is printed; replay with argv[1] or TIDAL_TEST_SEED. */
#include "testhelp.h"

/* Library internal (pool.c): changes the budget at run time, as a shared
 * budget's share moving does (Note [resizable pool]). */
tidal_status rt_budget_set(size_t bytes);

#define NALLOC 8
#define NREG 4
#define STEPS 5000
#define RANDOM_STEPS 10000 /* the random-budgets profile (issue 23: at least 10,000) */
#define RANDOM_MAX_CHUNKS 10 /* its device budgets: 2..this chunks */

typedef struct shadow {
  unsigned char *dev;
  size_t bytes;
  unsigned char *data;
  unsigned char *defined;
} shadow;

typedef struct profile {
  const char *name;
  size_t budget_chunks;
  size_t host_chunks;      /* 0: the default (plenty) */
  size_t max_alloc_chunks; /* chunked allocations: 1..this chunks plus a tail */
  int nsmall;              /* packed allocations among the NALLOC */
  int within_chunk;        /* every access stays inside one chunk */
  size_t max_access_chunks; /* bytes per access (else), in chunks */
  int nacc_max;
  int nested;              /* ops may nest (a second op inside the first) */
  int nreg;                /* live registrations at most */
  int may_fail;            /* host store starved: BUDGET / RECOMPUTE are legal */
  int random_budgets;      /* budgets drawn from the seed, the device one changing */
} profile;

/* A registration: dst = produce(src, salt), re-run by the closure. */
typedef struct reg {
  int live;
  int src_a, dst_a;
  size_t src_off, src_len, dst_off, dst_len;
} reg;

typedef struct produce_ctx {
  unsigned char *src, *dst;
  size_t src_len, dst_len;
  uint64_t salt;
} produce_ctx;

static shadow sh[NALLOC];
static int reloc_mode;     /* TIDAL_TEST_RELOC */
static int nested_refused; /* nested ops refused with TIDAL_ERR_UNSUPPORTED (reloc_mode) */
int rt_units_check(char *msg, size_t len);
static reg regs[NREG];
static const profile *P;
static size_t CH;
static size_t budget_chunks; /* the device budget now (changes in the random profile) */
static unsigned char *scratch, *scratch2;
static tidal_counters prev_total;
static uint64_t iterations_ended;
static int closure_runs, closure_failures;
static const tidal_site op_site = {"prop_op", __FILE__, __LINE__, 1e-5};
static const tidal_site inner_site = {"prop_inner", __FILE__, __LINE__, 1e-5};
static const tidal_site produce_site = {"prop_produce", __FILE__, __LINE__, 2e-5};

/* ---- invariants ---- */

#define COUNTER_FIELDS(X)                                                                          \
  X(swapped_out_bytes) X(swapped_in_bytes) X(prefetched_bytes) X(dropped_bytes) X(drops)          \
      X(recomputes) X(faults) X(evictions)

static void check_invariants(const char *after) {
  tidal_stats st = th_stats();
  /* A shrunken budget takes effect as open ops and full stores allow, so
   * under changing budgets residency is bounded by the largest one. */
  uint64_t bound = P->random_budgets ? (uint64_t)RANDOM_MAX_CHUNKS * CH : st.budget_bytes;
  if (st.resident_bytes > bound ||
      (!P->random_budgets && st.total.peak_resident_bytes > st.budget_bytes) ||
      st.total.peak_resident_bytes < st.resident_bytes)
    TH_FAIL("after %s: resident %llu, peak %llu, budget %llu", after,
            (unsigned long long)st.resident_bytes,
            (unsigned long long)st.total.peak_resident_bytes, (unsigned long long)st.budget_bytes);
  CHECK(st.budget_bytes == budget_chunks * CH);
  CHECK(st.iterations == iterations_ended);
  CHECK(st.total.prefetched_bytes <= st.total.swapped_in_bytes);
  CHECK(st.total.stall_seconds >= 0 && st.total.modelled_seconds >= 0);
#define MONOTONE(f)                                                                                \
  if (st.total.f < prev_total.f)                                                                   \
    TH_FAIL("after %s: total." #f " went down from %llu to %llu", after,                          \
            (unsigned long long)prev_total.f, (unsigned long long)st.total.f);                    \
  if (st.last_iteration.f > st.total.f)                                                            \
    TH_FAIL("after %s: last_iteration." #f " %llu > total %llu", after,                           \
            (unsigned long long)st.last_iteration.f, (unsigned long long)st.total.f);
  COUNTER_FIELDS(MONOTONE)
#undef MONOTONE
  if (!P->random_budgets)
    CHECK(st.last_iteration.peak_resident_bytes <= st.budget_bytes);
  prev_total = st.total;
  th_check_host(after); /* each host slot free once or owned by one chunk */
  if (reloc_mode) {
    char msg[256];
    if (rt_units_check(msg, sizeof msg) != 0)
      TH_FAIL("[%s] after %s: %s", P->name, after, msg);
    /* Note [physical bound]: the device memory created, not only the bytes
     * in use, stays within the budget plus one growth step of the pool,
     * unless an op's own units left no other way (counted; budgets of a few
     * chunks, working sets near them) */
    uint64_t pbound = st.physical_limit_bytes;
    if (P->random_budgets) /* a lowered budget applies as the store lets data leave */
      pbound = (uint64_t)RANDOM_MAX_CHUNKS * CH * 5 / 4 + CH;
    if (pbound && !st.total.physical_overruns && st.physical_bytes > pbound)
      TH_FAIL("[%s] after %s: %llu bytes of device memory created, bound %llu", P->name, after,
              (unsigned long long)st.physical_bytes, (unsigned long long)pbound);
  }
}

/* ---- ranges ---- */

/* A random non-empty range of allocation a, favouring chunk edges. */
static void random_range(int a, size_t *off, size_t *len) {
  size_t bytes = sh[a].bytes;
  if (P->within_chunk) {
    size_t c = th_below((bytes + CH - 1) / CH);
    size_t cs = c * CH, ce = cs + CH < bytes ? cs + CH : bytes;
    size_t o = cs + th_below(ce - cs);
    if (th_below(3) == 0)
      o = cs; /* the whole chunk, sometimes */
    *off = o;
    *len = th_below(2) ? ce - o : 1 + th_below(ce - o);
    return;
  }
  size_t max = P->max_access_chunks * CH;
  switch (th_below(5)) {
  case 0: /* straddle a chunk boundary */
    if (bytes > CH) {
      size_t b = CH * (1 + th_below((bytes - 1) / CH));
      size_t before = 1 + th_below(b < CH ? b : CH - 1);
      *off = b - before;
      size_t room = bytes - *off < max ? bytes - *off : max;
      *len = before + th_below(room - before + 1);
      if (*len == 0)
        *len = 1;
      if (*len > room)
        *len = room;
      return;
    }
    /* fall through */
  case 1: /* one whole chunk */
    *off = th_below(bytes) / CH * CH;
    *len = bytes - *off < CH ? bytes - *off : CH;
    if (*len > max)
      *len = max;
    return;
  case 2: /* to the end (or the cap) */
    *off = th_below(bytes);
    *len = bytes - *off < max ? bytes - *off : max;
    return;
  default:
    *off = th_below(bytes);
    *len = 1 + th_below(bytes - *off < max ? bytes - *off : max);
    return;
  }
}

static int overlaps(int a, size_t off, size_t len, int b, size_t boff, size_t blen) {
  return a == b && off < boff + blen && boff < off + len;
}

static void verify(int a, size_t off, size_t len, const char *what) {
  th_get(scratch, TIDAL_AT(sh[a].dev + off), len);
  for (size_t i = 0; i < len; i++)
    if (sh[a].defined[off + i] && scratch[i] != sh[a].data[off + i])
      TH_FAIL("[%s] %s: byte %zu of allocation %d (%zu bytes, chunk %zu) is %u, expected %u",
              P->name, what, off + i, a, sh[a].bytes, (off + i) / CH, scratch[i],
              sh[a].data[off + i]);
}

static int op_ok(tidal_status st, const char *what) {
  if (st == TIDAL_OK)
    return 1;
  if (P->may_fail && (st == TIDAL_ERR_BUDGET || st == TIDAL_ERR_RECOMPUTE))
    return 0;
  TH_FAIL("[%s] %s: %s", P->name, what, tidal_status_string(st));
  return 0;
}

/* ---- the producer and its closure ---- */

static void produce_bytes(const unsigned char *src, size_t src_len, unsigned char *dst,
                          size_t dst_len, uint64_t salt) {
  for (size_t i = 0; i < dst_len; i++)
    dst[i] = (unsigned char)(src[(i * 7) % src_len] ^ (unsigned char)(salt + i * 13));
}

static void produce_closure(void *ctxp, tidal_stream stream) {
  produce_ctx *c = ctxp;
  closure_runs++;
  tidal_access acc[2] = {{c->src, c->src_len, TIDAL_READ}, {c->dst, c->dst_len, TIDAL_WRITE}};
  tidal_status st = tidal_op_begin(&produce_site, 2, acc);
  if (st != TIDAL_OK) {
    if (reloc_mode && st == TIDAL_ERR_UNSUPPORTED)
      nested_refused++; /* run inside an op nested by hand: see the header */
    else
      closure_failures++;
    return; /* the runtime turns this into TIDAL_ERR_RECOMPUTE (or UNSUPPORTED) */
  }
  unsigned char *in = malloc(c->src_len), *out = malloc(c->dst_len);
  CHECK(in && out);
  th_get(in, TIDAL_AT(c->src), c->src_len);
  produce_bytes(in, c->src_len, out, c->dst_len, c->salt);
  th_put(TIDAL_AT(c->dst), out, c->dst_len);
  free(in);
  free(out);
  CHECK_OK(tidal_op_end(&produce_site));
}

/* ---- playing the pass: keep registrations' inputs intact ---- */

/* Before [off, off+len) of a changes: materialise every registration whose
 * source overlaps it (a read-write op over its output, writing back what it
 * read), after which the runtime no longer needs the source.  0 if one could
 * not be materialised (host-starved profile): the caller skips the change. */
static int protect(int a, size_t off, size_t len) {
  for (int r = 0; r < NREG; r++) {
    reg *g = &regs[r];
    if (!g->live || !overlaps(a, off, len, g->src_a, g->src_off, g->src_len))
      continue;
    tidal_access acc = {sh[g->dst_a].dev + g->dst_off, g->dst_len, TIDAL_READWRITE};
    if (!op_ok(tidal_op_begin(&op_site, 1, &acc), "materialise"))
      return 0;
    verify(g->dst_a, g->dst_off, g->dst_len, "materialised output");
    th_get(scratch, TIDAL_AT(acc.ptr), g->dst_len);
    th_put(TIDAL_AT(sh[g->dst_a].dev + g->dst_off), scratch, g->dst_len);
    CHECK_OK(tidal_op_end(&op_site));
    g->live = 0;
  }
  return 1;
}

/* ---- steps ---- */

typedef struct planned {
  int a;
  size_t off, len;
  tidal_access acc;
} planned;

static void plan_access(planned *p, int a) {
  p->a = a;
  random_range(a, &p->off, &p->len);
  p->acc.ptr = sh[a].dev + p->off;
  p->acc.bytes =
      (p->off + p->len == sh[a].bytes && th_below(2)) ? TIDAL_EXTENT_UNKNOWN : p->len;
  p->acc.mode = (tidal_mode)(1 + th_below(3));
}

static void after_begin(const planned *p, int n, const char *what) {
  for (int k = 0; k < n; k++)
    if (p[k].acc.mode & TIDAL_READ)
      verify(p[k].a, p[k].off, p[k].len, what);
  /* A write-only range is dead until the op writes it (whole chunks may be
   * mapped fresh): a nested op must not expect the old bytes there. */
  for (int k = 0; k < n; k++)
    if (p[k].acc.mode == TIDAL_WRITE)
      memset(sh[p[k].a].defined + p[k].off, 0, p[k].len);
}

static void do_writes(const planned *p, int n) {
  for (int k = 0; k < n; k++) {
    if (!(p[k].acc.mode & TIDAL_WRITE))
      continue;
    for (size_t i = 0; i < p[k].len; i++)
      scratch[i] = (unsigned char)th_rand();
    th_put(TIDAL_AT(sh[p[k].a].dev + p[k].off), scratch, p[k].len);
    memcpy(sh[p[k].a].data + p[k].off, scratch, p[k].len);
    memset(sh[p[k].a].defined + p[k].off, 1, p[k].len);
  }
}

static int protect_writes(const planned *p, int n) {
  for (int k = 0; k < n; k++)
    if ((p[k].acc.mode & TIDAL_WRITE) && !protect(p[k].a, p[k].off, p[k].len))
      return 0;
  return 1;
}

static void step_op(void) {
  planned outer[3], inner[3];
  int n = 1 + (int)th_below((size_t)P->nacc_max);
  int nested = P->nested && th_below(4) == 0;
  if (nested)
    n = 1; /* the pair stays inside the budget (see the profiles) */
  for (int k = 0; k < n; k++)
    plan_access(&outer[k], (int)th_below(NALLOC));
  int m = nested ? 1 + (int)th_below((size_t)P->nacc_max) : 0;
  for (int k = 0; k < m; k++)
    plan_access(&inner[k], (int)th_below(NALLOC));
  if (!protect_writes(outer, n) || !protect_writes(inner, m))
    return;
  tidal_access acc[3];
  for (int k = 0; k < n; k++)
    acc[k] = outer[k].acc;
  if (!op_ok(tidal_op_begin(&op_site, n, acc), "op_begin"))
    return;
  after_begin(outer, n, "after op_begin");
  if (m) {
    for (int k = 0; k < m; k++)
      acc[k] = inner[k].acc;
    tidal_status st = tidal_op_begin(&inner_site, m, acc);
    if (reloc_mode && st == TIDAL_ERR_UNSUPPORTED) /* see the header */
      nested_refused++;
    /* the outer op's chunks stay pinned: the pair may not fit a starved store */
    else if (op_ok(st, "nested op_begin")) {
      after_begin(inner, m, "after nested op_begin");
      after_begin(outer, n, "outer op during the nested one");
      do_writes(inner, m);
      CHECK_OK(tidal_op_end(&inner_site));
    }
  }
  do_writes(outer, n);
  CHECK_OK(tidal_op_end(&op_site));
}

static int defined_all(int a, size_t off, size_t len) {
  for (size_t i = 0; i < len; i++)
    if (!sh[a].defined[off + i])
      return 0;
  return 1;
}

/* A producer op dst = produce(src) followed by its registration. */
static void step_produce(void) {
  int slot = -1, live = 0;
  for (int r = 0; r < NREG; r++) {
    if (regs[r].live)
      live++;
    else if (slot < 0)
      slot = r;
  }
  if (slot < 0 || live >= P->nreg)
    return;
  int sa = (int)th_below(NALLOC), da = (int)th_below(NALLOC);
  size_t so, sl, dof, dl;
  random_range(sa, &so, &sl);
  random_range(da, &dof, &dl);
  if (th_below(2)) { /* a whole chunk: only whole chunks are attached to a closure */
    dof = dof / CH * CH;
    dl = sh[da].bytes - dof < CH ? sh[da].bytes - dof : CH;
  }
  if (P->within_chunk == 0 && sl > CH)
    sl = CH; /* closures stay small: their ops nest inside the op that needs them */
  if (P->within_chunk == 0 && dl > CH)
    dl = CH;
  if (overlaps(sa, so, sl, da, dof, dl) || !defined_all(sa, so, sl))
    return;
  if (!protect(da, dof, dl))
    return;
  tidal_access acc[2] = {{sh[sa].dev + so, sl, TIDAL_READ}, {sh[da].dev + dof, dl, TIDAL_WRITE}};
  if (!op_ok(tidal_op_begin(&produce_site, 2, acc), "producer op_begin"))
    return;
  verify(sa, so, sl, "producer input");
  produce_ctx ctx = {sh[sa].dev + so, sh[da].dev + dof, sl, dl, th_rand()};
  th_get(scratch2, TIDAL_AT(ctx.src), sl);
  produce_bytes(scratch2, sl, scratch, dl, ctx.salt);
  th_put(TIDAL_AT(ctx.dst), scratch, dl);
  memcpy(sh[da].data + dof, scratch, dl);
  memset(sh[da].defined + dof, 1, dl);
  CHECK_OK(tidal_op_end(&produce_site));
  CHECK_OK(tidal_recompute_register(ctx.dst, dl, produce_closure, &ctx, sizeof ctx));
  regs[slot] = (reg){1, sa, da, so, sl, dof, dl};
  if (th_below(4) == 0) { /* evicted at once and its memory taken (Note [lazy unmap]): the
                             next reader runs the closure, so every round covers recompute */
    CHECK_OK(tidal_swap_out(ctx.dst, dl));
    CHECK_OK(tidal_synchronize());
    CHECK_OK(rt_release_parked());
  }
}

static size_t alloc_size(int i) {
  if (i < P->nsmall)
    return 1 + th_below(CH - 1);
  return CH * (1 + th_below(P->max_alloc_chunks)) + (th_below(2) ? th_below(CH) : 0);
}

static void new_alloc(int i) {
  size_t bytes = alloc_size(i);
  sh[i].bytes = bytes;
  unsigned group = reloc_mode && i % 2 ? TIDAL_GROUP_RELOCATABLE : 0;
  CHECK_OK(tidal_malloc_grouped((void **)&sh[i].dev, bytes, group));
  sh[i].data = malloc(bytes);
  sh[i].defined = calloc(bytes, 1);
  CHECK(sh[i].data && sh[i].defined);
}

static void free_alloc(int i) {
  CHECK_OK(tidal_free(sh[i].dev));
  free(sh[i].data);
  free(sh[i].defined);
  for (int r = 0; r < NREG; r++)
    if (regs[r].live && regs[r].dst_a == i)
      regs[r].live = 0; /* the runtime forgets closures over freed memory */
}

/* Free one allocation and allocate another: address ranges get reused. */
static void step_realloc(void) {
  int i = (int)th_below(NALLOC);
  if (!protect(i, 0, sh[i].bytes))
    return;
  free_alloc(i);
  new_alloc(i);
}

/* Reads every allocation back in pieces (those with defined bytes); in the
 * starved profiles an unreadable piece is retried after verified
 * allocations are freed. */
static void final_check(void) {
  int done[NALLOC] = {0};
  for (int pass = 0; pass < 4; pass++) {
    int left = 0;
    /* A recompute closure registered under a larger budget cannot re-run
     * once the budget is lowered below its working set: the read is
     * refused (TIDAL_ERR_BUDGET, docs/limitations.md) until the budget
     * holds it again, as a shared budget's share grows back.  So the last
     * passes give the round its largest budget back; every byte must then
     * read. */
    if (pass == 2 && P->random_budgets && budget_chunks < RANDOM_MAX_CHUNKS) {
      budget_chunks = RANDOM_MAX_CHUNKS;
      CHECK_OK(rt_budget_set(budget_chunks * CH));
    }
    for (int i = 0; i < NALLOC; i++) {
      if (done[i])
        continue;
      size_t piece = P->within_chunk ? CH : P->max_access_chunks * CH, off = 0;
      int ok = 1;
      while (off < sh[i].bytes && ok) {
        size_t l = sh[i].bytes - off < piece ? sh[i].bytes - off : piece;
        if (!memchr(sh[i].defined + off, 1, l)) { /* nothing to check: reading it would only
                                                     need room for garbage (a full store) */
          off += l;
          continue;
        }
        tidal_access a = {sh[i].dev + off, l, TIDAL_READ};
        tidal_status st = tidal_op_begin(&op_site, 1, &a);
        if (!op_ok(st, "final read")) {
          ok = 0;
          break;
        }
        verify(i, off, l, "final read");
        CHECK_OK(tidal_op_end(&op_site));
        off += l;
      }
      if (ok && protect(i, 0, sh[i].bytes)) {
        free_alloc(i);
        done[i] = 1;
      } else {
        left++;
      }
    }
    if (!left)
      return;
  }
  TH_FAIL("[%s] data stayed unreadable after every other allocation was freed", P->name);
}

static void one_round(const profile *given, int synchronous) {
  profile drawn = *given;
  if (drawn.random_budgets) {
    drawn.budget_chunks = 2 + th_below(RANDOM_MAX_CHUNKS - 1);
    drawn.host_chunks = 1 + th_below(8);
    printf("[%s] device budget %zu chunks, host budget %zu chunks\n", drawn.name,
           drawn.budget_chunks, drawn.host_chunks);
  }
  const profile *prof = &drawn;
  P = prof;
  budget_chunks = prof->budget_chunks;
  tidal_config cfg;
  th_config(&cfg, 4096, 4096 * prof->budget_chunks);
  cfg.sim_synchronous = synchronous;
  CH = cfg.chunk_bytes;
  if (prof->host_chunks)
    cfg.host_budget_bytes = prof->host_chunks * CH;

  th_init(&cfg);
  memset(&prev_total, 0, sizeof prev_total);
  memset(regs, 0, sizeof regs);
  iterations_ended = 0;
  closure_runs = closure_failures = 0;
  for (int i = 0; i < NALLOC; i++)
    new_alloc(i);
  CHECK_OK(tidal_iteration_begin());
  int fails_before = 0;
  int steps = prof->random_budgets ? RANDOM_STEPS : STEPS;
  for (int step = 0; step < steps; step++) {
    int a = (int)th_below(NALLOC);
    size_t off, len;
    random_range(a, &off, &len);
    size_t action = th_below(100);
    const char *what;
    if (action < 40) {
      what = "op";
      step_op();
    } else if (action < 52) {
      what = "swap_out";
      CHECK_OK(tidal_swap_out(sh[a].dev + off, len));
    } else if (action < 64) {
      what = "prefetch";
      CHECK_OK(tidal_prefetch(sh[a].dev + off, len));
    } else if (action < 68) {
      what = "drop";
      if (protect(a, off, len)) {
        CHECK_OK(tidal_drop(sh[a].dev + off, len));
        memset(sh[a].defined + off, 0, len); /* dead; bytes outside must survive */
      }
    } else if (action < 72) {
      what = "keep";
      CHECK_OK(tidal_keep(sh[a].dev + off, th_below(2) ? len : TIDAL_EXTENT_UNKNOWN));
    } else if (action < 86) {
      what = "produce + recompute_register";
      if (P->nreg)
        step_produce();
    } else if (action < 90) {
      what = "free + malloc";
      step_realloc();
    } else if (action < 97 && P->random_budgets && th_below(4) == 0) {
      what = "budget change"; /* as a shared budget's share moves (Note [resizable pool]) */
      budget_chunks = 2 + th_below(RANDOM_MAX_CHUNKS - 1);
      CHECK_OK(rt_budget_set(budget_chunks * CH));
    } else if (action < 97) {
      what = "synchronize";
      CHECK_OK(tidal_synchronize());
      if (th_below(4)) { /* pressure from elsewhere takes parked memory (Note [lazy unmap]) */
        what = "synchronize + release parked memory";
        CHECK_OK(rt_release_parked());
      }
    } else {
      what = "iteration end";
      CHECK_OK(tidal_iteration_end());
      iterations_ended++;
      CHECK_OK(tidal_iteration_begin());
    }
    if (closure_failures > fails_before && !P->may_fail)
      TH_FAIL("[%s] a recompute closure's op failed: %s", P->name, tidal_last_error());
    fails_before = closure_failures;
    check_invariants(what);
  }
  final_check();
  th_check_host("the final frees");
  tidal_stats st = th_stats();
  if (reloc_mode)
    printf("[%s] relocated %llu B, device to device %llu B, gathers %llu, compactions %llu, "
           "nested ops refused %d\n",
           prof->name, (unsigned long long)st.total.relocated_bytes,
           (unsigned long long)st.total.d2d_bytes, (unsigned long long)st.total.gathers,
           (unsigned long long)st.total.compactions, nested_refused);
  printf("[%s, %s copies] out %llu B, in %llu B (prefetched %llu), dropped %llu B, recomputes "
         "%llu (closure runs %d, failed %d), faults %llu, evictions %llu, peak %llu of %llu B\n",
         prof->name, synchronous ? "synchronous" : "threaded",
         (unsigned long long)st.total.swapped_out_bytes,
         (unsigned long long)st.total.swapped_in_bytes,
         (unsigned long long)st.total.prefetched_bytes, (unsigned long long)st.total.dropped_bytes,
         (unsigned long long)st.total.recomputes, closure_runs, closure_failures,
         (unsigned long long)st.total.faults, (unsigned long long)st.total.evictions,
         (unsigned long long)st.total.peak_resident_bytes, (unsigned long long)st.budget_bytes);
  CHECK(st.total.faults > 0);
  if (prof->nreg)
    CHECK(st.total.recomputes > 0 && (uint64_t)closure_runs == st.total.recomputes);
  CHECK_OK(tidal_shutdown());
}

/* Budgets: an op pins at most nacc_max accesses of max_access bytes (each
 * spans at most max_access/CH + 1 chunks); a nested pair pins one access
 * plus nacc_max; each closure level pins src + dst (<= 2 chunks each), at
 * most nreg levels deep; small allocations take one slab chunk each.  The
 * roomy profile's budget covers 3 + 9 + 4*4 + 2 = 30 chunks. */
static const profile profiles[] = {
    {"roomy", 32, 0, 12, 2, 0, 2, 3, 1, 4, 0, 0},
    {"one chunk", 1, 0, 6, 0, 1, 1, 1, 0, 0, 0, 0},
    {"three chunks", 3, 0, 6, 0, 1, 1, 1, 0, 1, 0, 0},
    {"host starved", 10, 6, 3, 1, 0, 1, 2, 1, 2, 1, 0},
    /* The store is full whenever more than 10 chunks hold data: exchanges,
     * write-only restores of swapped-out chunks and frees of chunks holding
     * slots interleave.  8 allocations of at most 2 chunks fit in budget +
     * store together, so the final reads can always finish. */
    {"host full", 10, 6, 1, 0, 0, 1, 2, 1, 1, 1, 0},
    /* Budgets from the seed (one_round), changing; data beyond budget +
     * store is refused (TIDAL_ERR_BUDGET), never lost. */
    {"random budgets", 0, 0, 2, 1, 0, 1, 2, 1, 1, 1, 1},
};

int main(int argc, char **argv) {
  th_seed_init(argc, argv);
  reloc_mode = getenv("TIDAL_TEST_RELOC") && atoi(getenv("TIDAL_TEST_RELOC")) > 0;
  scratch = malloc((size_t)16 << 20);
  scratch2 = malloc((size_t)16 << 20);
  CHECK(scratch && scratch2);
  for (size_t p = 0; p < sizeof profiles / sizeof profiles[0]; p++)
    for (int sync = 0; sync < 2; sync++)
      one_round(&profiles[p], sync);
  free(scratch);
  free(scratch2);
  printf("ok\n");
  return 0;
}
