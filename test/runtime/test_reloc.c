/* test_reloc.c - relocatable allocations (TIDAL_GROUP_RELOCATABLE; Note
 * [units] in runtime/memory/units.c), on the sim:
 *  - a stray use of a relocated tensor's stable address faults (a forked
 *    child killed by SIGSEGV), inside an op and after it, and so does the
 *    address tidal_at returns for an undeclared use (counted, an error);
 *  - units split at access ends and are gathered (device to device) when
 *    an access spans several, with the data intact and tidal_at's addresses
 *    contiguous over the access, one past its end included;
 *  - the budget counts exact bytes: a 7 MiB working set of three tensors
 *    fits a 7.5 MiB budget at 2 MiB chunks (home, with TIDAL_RELOCATE=0's
 *    config, the same op needs 10 MiB of chunks and fails);
 *  - swap-out, prefetch and drop of units are copies with no VMM call;
 *  - a fragmented pool at its limit compacts (device-to-device) rather
 *    than evict;
 *  - a gather whose span the op's own pinned units keep from opening
 *    slides the pool once, again only when that opens the hole (Note
 *    [slides after evictions]);
 *  - units' copies and chunks' slots share one host store; a full store
 *    is TIDAL_ERR_BUDGET, never a crash or a lost byte;
 *  - tidal_home brings an allocation back to its stable address;
 *  - device memory created stays within the budget plus one pool step
 *    (Note [physical bound]) across a fragmenting workload;
 *  - recompute closures over relocatable memory: dropped without a copy,
 *    re-run through tidal_at inside the op that needs them (inputs on the
 *    host included), split units, overwrites, tidal_home.
 * Built for the CUDA backend too (label gpu; never run on a card yet): the
 * death tests and the starved host store are the sim's only. */
#include "testhelp.h"
#include "memory/memory.h" /* rt_mem.nphys: the chunk pool's physical chunks */
#include <signal.h>
#include <sys/wait.h>


#ifdef TH_GPU
#define GPU 1
#else
#define GPU 0
#endif

static const tidal_site site = {"reloc", __FILE__, __LINE__, 1e-6};
static const tidal_site site2 = {"reloc2", __FILE__, __LINE__, 1e-6};

static void check_units(const char *when) {
  char msg[256];
  if (rt_units_check(msg, sizeof msg) != 0)
    TH_FAIL("units invariant broken %s: %s", when, msg);
  th_check_host(when);
}

static void *rmalloc(size_t bytes) {
  void *p = NULL;
  CHECK_OK(tidal_malloc_grouped(&p, bytes, TIDAL_GROUP_RELOCATABLE));
  return p;
}

/* the shared op helpers (testhelp.h) at this file's site */
static void op_write(unsigned char *p, size_t n, uint64_t salt) {
  th_op_write_at(&site, p, n, salt);
}

static void op_check(unsigned char *p, size_t off, size_t n, size_t pat, uint64_t salt) {
  th_op_check_at(&site, p, off, n, pat, salt);
}

static void test_faults(void) {
  tidal_config cfg;
  th_config(&cfg, 4096, 4096 * 16);
  th_init(&cfg);
  const size_t CH = th_chunk(); /* 2 MiB on a GPU and in runtime.chunk2m.reloc */
  unsigned char *home = NULL;
  CHECK_OK(tidal_malloc((void **)&home, 3 * CH));
  CHECK(rt_mem.nphys == 16); /* the chunk pool, created whole for the budget */
  unsigned char *p = rmalloc(3 * CH);
  CHECK(rt_mem.nphys == 0); /* given back: the device pool takes memory as it needs it */
  tidal_access h = {home, 3 * CH, TIDAL_WRITE};
  CHECK_OK(tidal_op_begin(&site, 1, &h));
  CHECK_OK(tidal_op_end(&site));
  CHECK(rt_mem.nphys == 3); /* home chunks are created again as they are needed */
  CHECK(TIDAL_AT(home + 5) == home + 5); /* home memory: the identity */
  int x;
  CHECK(TIDAL_AT(&x) == &x);             /* host memory too */
  op_write(p, 3 * CH, 1);
  tidal_access a = {p, 3 * CH, TIDAL_READWRITE};
  CHECK_OK(tidal_op_begin(&site, 1, &a));
  unsigned char *d = TIDAL_AT(p);
  CHECK(d != p);
  CHECK(TIDAL_AT(p + (CH + 1)) == d + (CH + 1));
  CHECK(TIDAL_AT(p + 3 * CH) == d + 3 * CH); /* one past the end */
  /* the stable address is never mapped, even while the op runs */
  CHECK(th_death_signal(th_touch_read, p) == SIGSEGV || GPU);
  CHECK(th_death_signal(th_touch_write, p + 3 * CH - 1) == SIGSEGV || GPU);
  CHECK(th_death_signal(th_touch_read, d) == 0 || GPU); /* the resolved one is the data */
  CHECK_OK(tidal_op_end(&site));
  CHECK(th_death_signal(th_touch_read, p + 100) == SIGSEGV || GPU); /* a stale use after the op */
  /* an undeclared use: an error, counted, and its address faults */
  uint64_t before = th_stats().total.undeclared_uses;
  tidal_access b = {p, CH, TIDAL_READ};
  CHECK_OK(tidal_op_begin(&site2, 1, &b));
  unsigned char *u = TIDAL_AT(p + 2 * CH);
  CHECK(u == p + 2 * CH);
  CHECK_MESSAGE("outside every access");
  CHECK(th_death_signal(th_touch_read, u) == SIGSEGV || GPU);
  CHECK_OK(tidal_op_end(&site2));
  CHECK(TIDAL_AT(p) == p); /* no op open: nothing is declared */
  CHECK(th_stats().total.undeclared_uses == before + 2);
  /* an empty access (0 bytes, a kernel over no elements): its pointer is no error */
  tidal_access e = {p + CH, 0, TIDAL_READ};
  CHECK_OK(tidal_op_begin(&site2, 1, &e));
  rt_clear_error();
  CHECK(TIDAL_AT(p + CH) == p + CH && tidal_last_error()[0] == '\0');
  CHECK_OK(tidal_op_end(&site2));
  CHECK(th_stats().total.undeclared_uses == before + 2);
  CHECK(TIDAL_AT(p + CH) == p + CH); /* its op ended: an error again */
  CHECK(th_stats().total.undeclared_uses == before + 3);
  check_units("after the fault tests");
  CHECK_OK(tidal_free(p));
  CHECK_OK(tidal_free(home));
  CHECK_OK(tidal_shutdown());
}

static void test_split_gather(void) {
  tidal_config cfg;
  th_config(&cfg, 4096, 4096 * 64);
  th_init(&cfg);
  size_t K = 1024;
  unsigned char *p = rmalloc(64 * K), *q = rmalloc(32 * K);
  op_write(p, 32 * K, 7);            /* units [0, 32K) */
  op_write(q, 32 * K, 9);            /* lies after it in the pool */
  op_write(p + 32 * K, 32 * K, 8);   /* [32K, 64K): after q */
  check_units("after the writes");
  CHECK(th_stats().total.gathers == 0);
  /* [16K, 48K) spans both: split into four units, the middle two gathered */
  tidal_access a = {p + 16 * K, 32 * K, TIDAL_READ};
  CHECK_OK(tidal_op_begin(&site, 1, &a));
  unsigned char *d = TIDAL_AT(p + 16 * K);
  CHECK(TIDAL_AT(p + 40 * K) == d + 24 * K);
  CHECK(TIDAL_AT(p + 48 * K) == d + 32 * K);
  unsigned char want[32 * 1024], got[32 * 1024], all[32 * 1024];
  th_fill_pattern(all, 32 * K, 7);
  memcpy(want, all + 16 * K, 16 * K);
  th_fill_pattern(all, 32 * K, 8);
  memcpy(want + 16 * K, all, 16 * K);
  th_get(got, d, 32 * K);
  CHECK(memcmp(got, want, 32 * K) == 0);
  CHECK_OK(tidal_op_end(&site));
  tidal_stats s = th_stats();
  CHECK(s.total.gathers == 1 && s.total.d2d_bytes > 0 && s.total.d2d_bytes <= 32 * K);
  check_units("after the gather");
  /* the same access again: contiguous already, no copy */
  CHECK_OK(tidal_op_begin(&site, 1, &a));
  CHECK_OK(tidal_op_end(&site));
  CHECK(th_stats().total.gathers == 1);
  /* swap everything out and back: copies only, no VMM call past the pool's growth */
  uint64_t vmm = th_stats().total.vmm_calls;
  CHECK_OK(tidal_swap_out(p, 64 * K));
  CHECK_OK(tidal_swap_out(q, 32 * K));
  CHECK_OK(tidal_synchronize());
  CHECK_OK(rt_release_parked());
  CHECK(th_stats().resident_bytes == 0);
  check_units("after the swap-outs");
  CHECK_OK(tidal_prefetch(p, 64 * K));
  op_check(p, 0, 32 * K, 0, 7);
  op_check(p, 32 * K, 32 * K, 0, 8);
  op_check(q, 0, 32 * K, 0, 9);
  CHECK(th_stats().total.vmm_calls == vmm);
  CHECK(th_stats().total.relocated_bytes >= 2 * 96 * K);
  /* a drop: the bytes are dead, the rest stays */
  CHECK_OK(tidal_drop(p, 16 * K));
  op_check(p, 16 * K, 16 * K, 16 * K, 7);
  check_units("after the drop");
  CHECK_OK(tidal_free(q));
  CHECK_OK(tidal_free(p));
  check_units("after the frees");
  CHECK_OK(tidal_shutdown());
}

/* Units all on the host, read by one access: placed together in advance
 * and restored straight into place (Note [placed in advance]), no gather. */
static void test_placed(void) {
  tidal_config cfg;
  th_config(&cfg, 4096, 4096 * 64);
  th_init(&cfg);
  size_t K = 1024;
  unsigned char *p = rmalloc(64 * K), *q = rmalloc(16 * K);
  for (int i = 0; i < 4; i++) {
    op_write(p + (size_t)i * 16 * K, 16 * K, 50 + (uint64_t)i); /* four units */
    op_write(q, 16 * K, 60 + (uint64_t)i);                       /* between them in the pool */
  }
  CHECK_OK(tidal_swap_out(p, 64 * K));
  CHECK_OK(tidal_synchronize());
  CHECK_OK(rt_release_parked());
  tidal_stats s0 = th_stats();
  tidal_access a = {p, 64 * K, TIDAL_READ};
  CHECK_OK(tidal_op_begin(&site, 1, &a));
  unsigned char *d = TIDAL_AT(p), got[16 * 1024], want[16 * 1024];
  for (int i = 0; i < 4; i++) {
    CHECK(TIDAL_AT(p + (size_t)i * 16 * K) == d + (size_t)i * 16 * K);
    th_get(got, d + (size_t)i * 16 * K, 16 * K);
    th_fill_pattern(want, 16 * K, 50 + (uint64_t)i);
    CHECK(memcmp(got, want, 16 * K) == 0);
  }
  CHECK_OK(tidal_op_end(&site));
  tidal_stats s1 = th_stats();
  CHECK(s1.total.gathers == s0.total.gathers && s1.total.d2d_bytes == s0.total.d2d_bytes);
  CHECK(s1.total.swapped_in_bytes - s0.total.swapped_in_bytes == 64 * K);
  check_units("after a placed restore");
  CHECK_OK(tidal_free(p));
  CHECK_OK(tidal_free(q));
  CHECK_OK(tidal_shutdown());
}

/* Note [gather order] (units.c): an op's relocatable ranges are placed and
 * gathered newest allocation first, not in the order of their stable
 * addresses, which the sim reserves with mmap and whose order changes with
 * the address layout.  Here the layout is arranged against the old order:
 * f's reservation, made before x's, is given back, and y, made after x,
 * takes its place above x (mmap looks downwards from the top for a hole).
 * x and y have two units each on the host, and one op reads both whole: y's
 * span is placed first, so it lies below x's in an empty pool.  Failed
 * before: sorted by stable address, x went first. */
static void test_gather_order(void) {
  tidal_config cfg;
  th_config(&cfg, 4096, 4096 * 64);
  th_init(&cfg);
  size_t K = 1024;
  unsigned char *f = rmalloc(32 * K), *x = rmalloc(32 * K);
  CHECK_OK(tidal_free(f));
  unsigned char *y = rmalloc(32 * K);
  printf("gather order: y's stable address is %s x's%s\n", y > x ? "above" : "below",
         y > x ? "" : " (not the layout arranged: this run cannot tell the orders apart)");
  for (int i = 0; i < 2; i++) {
    op_write(x + (size_t)i * 16 * K, 16 * K, 70 + (uint64_t)i); /* two units each */
    op_write(y + (size_t)i * 16 * K, 16 * K, 80 + (uint64_t)i);
  }
  CHECK_OK(tidal_swap_out(x, 32 * K));
  CHECK_OK(tidal_swap_out(y, 32 * K));
  CHECK_OK(tidal_synchronize());
  CHECK_OK(rt_release_parked());
  CHECK(rt_mem.unit_resident == 0);
  tidal_access a[2] = {{x, 32 * K, TIDAL_READ}, {y, 32 * K, TIDAL_READ}};
  CHECK_OK(tidal_op_begin(&site, 2, a));
  unsigned char *dx = TIDAL_AT(x), *dy = TIDAL_AT(y);
  CHECK(TIDAL_AT(x + 16 * K) == dx + 16 * K && TIDAL_AT(y + 16 * K) == dy + 16 * K);
  if (!(dy < dx))
    TH_FAIL("y (made last) was placed at %p, above x at %p: the order followed the stable "
            "addresses",
            (void *)dy, (void *)dx);
  CHECK_OK(tidal_op_end(&site));
  for (int i = 0; i < 2; i++) {
    op_check(x, (size_t)i * 16 * K, 16 * K, 0, 70 + (uint64_t)i);
    op_check(y, (size_t)i * 16 * K, 16 * K, 0, 80 + (uint64_t)i);
  }
  CHECK_OK(tidal_free(x));
  CHECK_OK(tidal_free(y));
  CHECK_OK(tidal_shutdown());
}

/* Note [placed beside its neighbours]: a unit restored while the unit next
 * to it holds a block goes right after that block when the bytes are free,
 * although best fit would choose an exact hole elsewhere; an op over both
 * then needs no gather. */
static void test_beside(void) {
  tidal_config cfg;
  th_config(&cfg, 4096, 4096 * 64);
  th_init(&cfg);
  size_t K = 1024;
  unsigned char *p = rmalloc(32 * K), *r = rmalloc(16 * K), *t = rmalloc(16 * K),
                *w = rmalloc(16 * K), *x = rmalloc(16 * K);
  op_write(p, 16 * K, 1);           /* pool [0, 16K) */
  op_write(p + 16 * K, 16 * K, 2);  /* [16K, 32K): p's second unit */
  op_write(r, 16 * K, 3);           /* [32K, 48K) */
  op_write(t, 16 * K, 4);           /* [48K, 64K) */
  op_write(w, 16 * K, 5);           /* [64K, 80K) */
  op_write(x, 16 * K, 6);           /* [80K, 96K) */
  CHECK_OK(tidal_swap_out(p + 16 * K, 16 * K));
  CHECK_OK(tidal_swap_out(r, 16 * K)); /* a 32 KiB hole after p's first unit */
  CHECK_OK(tidal_swap_out(w, 16 * K)); /* an exact 16 KiB hole: best fit's choice */
  CHECK_OK(tidal_synchronize());
  CHECK_OK(rt_release_parked());
  check_units("before the restore");
  uint64_t gathers = th_stats().total.gathers;
  op_check(p, 16 * K, 16 * K, 0, 2); /* restored */
  op_check(p, 0, 16 * K, 0, 1);
  tidal_access a = {p, 32 * K, TIDAL_READ};
  CHECK_OK(tidal_op_begin(&site, 1, &a));
  CHECK(TIDAL_AT(p + 16 * K) == TIDAL_AT(p) + 16 * K);
  CHECK_OK(tidal_op_end(&site));
  CHECK(th_stats().total.gathers == gathers);
  check_units("after the restore beside");
  unsigned char *all[] = {p, r, t, w, x};
  for (int i = 0; i < 5; i++)
    CHECK_OK(tidal_free(all[i]));
  CHECK_OK(tidal_shutdown());
}

/* Note [gathered runs]: a gather copies units that already lie next to
 * each other, in order, in one device-to-device copy. */
static void test_gather_runs(void) {
  tidal_config cfg;
  th_config(&cfg, 4096, 4096 * 64);
  th_init(&cfg);
  size_t K = 1024;
  unsigned char *p = rmalloc(64 * K), *q = rmalloc(16 * K);
  op_write(p, 16 * K, 1);          /* A: pool [0, 16K) */
  op_write(q, 16 * K, 2);          /* [16K, 32K): between A and the rest */
  for (int i = 1; i < 4; i++)      /* B, C, D: one after the other (Note [placed */
    op_write(p + (size_t)i * 16 * K, 16 * K, 10 + (uint64_t)i); /* beside its neighbours]) */
  tidal_stats s0 = th_stats();
  tidal_access a = {p, 64 * K, TIDAL_READ};
  CHECK_OK(tidal_op_begin(&site, 1, &a));
  unsigned char *d = TIDAL_AT(p), got[16 * 1024], want[16 * 1024];
  for (int i = 0; i < 4; i++) {
    th_get(got, d + (size_t)i * 16 * K, 16 * K);
    th_fill_pattern(want, 16 * K, i ? 10 + (uint64_t)i : 1);
    CHECK(memcmp(got, want, 16 * K) == 0);
  }
  CHECK_OK(tidal_op_end(&site));
  tidal_stats s1 = th_stats();
  CHECK(s1.total.gathers == s0.total.gathers + 1);
  CHECK(s1.total.d2d_bytes - s0.total.d2d_bytes == 64 * K);
  CHECK(s1.total.d2d_copies - s0.total.d2d_copies == 2); /* A, then B-C-D */
  check_units("after a gather of runs");
  CHECK_OK(tidal_free(p));
  CHECK_OK(tidal_free(q));
  CHECK_OK(tidal_shutdown());
}

/* three tensors of 3, 2.5 and 1.5 MiB at 2 MiB chunks: 7 MiB exactly, or
 * 2 + 2 + 1 chunks = 10 MiB at home */
static tidal_status seven_mib(int relocate) {
  tidal_config cfg;
  size_t M = (size_t)1 << 20;
  th_config(&cfg, 2 * M, 15 * M / 2);
  cfg.budget_bytes = 15 * M / 2; /* not rounded to chunks (th_config does on a GPU) */
  cfg.relocate_off = !relocate;
  th_init(&cfg);
  unsigned char *t[3];
  size_t sz[3] = {3 * M, 5 * M / 2, 3 * M / 2};
  for (int i = 0; i < 3; i++)
    t[i] = rmalloc(sz[i]);
  tidal_access acc[3];
  for (int i = 0; i < 3; i++)
    acc[i] = (tidal_access){t[i], sz[i], TIDAL_READWRITE};
  tidal_status st = tidal_op_begin(&site, 3, acc);
  if (st == TIDAL_OK) {
    unsigned char *buf = malloc(3 * M);
    CHECK(buf);
    for (int i = 0; i < 3; i++) {
      memset(buf, i + 1, sz[i]);
      th_put(TIDAL_AT(t[i]), buf, sz[i]);
    }
    free(buf);
    CHECK_OK(tidal_op_end(&site));
    tidal_stats s = th_stats();
    CHECK(s.budget_bytes == 15 * M / 2);
    CHECK(s.resident_bytes == 7 * M && s.total.peak_resident_bytes == 7 * M);
  } else {
    CHECK_MESSAGE("working set of 10485760 bytes");
  }
  for (int i = 0; i < 3; i++)
    CHECK_OK(tidal_free(t[i]));
  CHECK_OK(tidal_shutdown());
  return st;
}

static void test_budget(void) {
  CHECK(seven_mib(1) == TIDAL_OK);
  CHECK(seven_mib(0) == TIDAL_ERR_BUDGET);
}

/* Note [one host store]: chunks' slots and units' copies share one pinned
 * store within the host budget.  A host budget of 4 chunks, pinned whole at
 * tidal_init: a unit's copy and a chunk's slot fit side by side (before,
 * the slots' store held all of it and units got none).  Full: a unit that
 * cannot be copied out stays resident, an op that needs its room fails with
 * TIDAL_ERR_BUDGET and every byte is kept; a chunk's slot given back is
 * room for a unit's copy, and so are a freed unit's bytes. */
static void test_host_shared(void) {
  tidal_config cfg;
  th_config(&cfg, 4096, 4096 * 4);
  const size_t CH = cfg.chunk_bytes; /* 2 MiB on a GPU and in runtime.chunk2m.reloc */
  cfg.host_budget_bytes = 4 * CH;
  th_init(&cfg);
  unsigned char *a = rmalloc(3 * CH), *b = rmalloc(3 * CH), *c = rmalloc(CH), *h = NULL;
  CHECK_OK(tidal_malloc((void **)&h, CH));
  op_write(a, 3 * CH, 3);
  op_write(h, CH, 5);
  uint64_t out0 = th_stats().total.swapped_out_bytes;
  CHECK_OK(tidal_swap_out(a, 3 * CH));
  CHECK_OK(tidal_swap_out(h, CH));
  CHECK_OK(tidal_synchronize());
  CHECK(th_stats().total.swapped_out_bytes - out0 == 4 * CH); /* both copied */
  check_units("after the unit and the chunk were copied out");
  CHECK_OK(rt_release_parked());
  op_check(a, 0, 3 * CH, 0, 3); /* back, keeping its copy: clean */
  /* b takes a's place (a is clean: no copy); the store is full: b cannot be
   * copied out, and a cannot come back beside it */
  op_write(b, 3 * CH, 4);
  out0 = th_stats().total.swapped_out_bytes;
  CHECK_OK(tidal_swap_out(b, 3 * CH));
  CHECK_OK(tidal_synchronize());
  CHECK(th_stats().total.swapped_out_bytes == out0);
  tidal_access x = {a, 3 * CH, TIDAL_READ};
  CHECK_STATUS(tidal_op_begin(&site, 1, &x), TIDAL_ERR_BUDGET);
  CHECK_MESSAGE("host store full");
  check_units("after the failed op");
  op_check(b, 0, 3 * CH, 0, 4);
  /* h's slot given back: room for c's copy */
  CHECK_OK(tidal_free(h));
  op_write(c, CH, 6);
  out0 = th_stats().total.swapped_out_bytes;
  CHECK_OK(tidal_swap_out(c, CH));
  CHECK_OK(tidal_synchronize());
  CHECK(th_stats().total.swapped_out_bytes - out0 == CH);
  CHECK_OK(rt_release_parked());
  check_units("after a unit's copy took a chunk's slot");
  /* a's bytes go: room for b's copy */
  CHECK_OK(tidal_free(a));
  out0 = th_stats().total.swapped_out_bytes;
  CHECK_OK(tidal_swap_out(b, 3 * CH));
  CHECK_OK(tidal_synchronize());
  CHECK(th_stats().total.swapped_out_bytes - out0 == 3 * CH);
  CHECK_OK(rt_release_parked());
  op_check(c, 0, CH, 0, 6);
  op_check(b, 0, 3 * CH, 0, 4);
  check_units("at the end");
  CHECK_OK(tidal_free(b));
  CHECK_OK(tidal_free(c));
  CHECK_OK(tidal_shutdown());
}

/* Note [targeted compaction]: a pool at its limit with the bytes free but
 * in holes clears the cheapest window rather than sliding every block down.
 * Budget 16 KiB (pool steps of 4 KiB, at most 32 KiB mapped); 2 KiB
 * tensors; four stay resident, spread out, so that no hole holds 8 KiB. */
static void test_compaction(void) {
  tidal_config cfg;
  th_config(&cfg, 4096, 4096 * 4);
  th_init(&cfg);
  /* "K" is a quarter of the chunk the run has (1 KiB at 4 KiB; 512 KiB at
   * the 2 MiB of a GPU and runtime.chunk2m.reloc): the budget is 4 chunks,
   * so the pool's step (a quarter of the budget, in whole granules) is one
   * chunk on either backend and the layout below is the same. */
  size_t K = th_chunk() / 4;
  unsigned char *x[8], *y[6];
  for (int i = 0; i < 8; i++) {
    x[i] = rmalloc(2 * K);
    op_write(x[i], 2 * K, 100 + (uint64_t)i); /* pool [0, 16K) */
  }
  for (int i = 0; i < 8; i++)
    if (i != 0 && i != 4)
      CHECK_OK(tidal_swap_out(x[i], 2 * K));
  CHECK_OK(tidal_synchronize()); /* parked: their blocks stay held */
  for (int i = 0; i < 6; i++) {
    y[i] = rmalloc(2 * K);
    op_write(y[i], 2 * K, 200 + (uint64_t)i); /* [16K, 28K) */
  }
  for (int i = 1; i < 6; i++)
    if (i != 4)
      CHECK_OK(tidal_swap_out(y[i], 2 * K));
  CHECK_OK(tidal_synchronize());
  CHECK_OK(rt_release_parked()); /* resident: x0, x4, y0, y4, 2 KiB each, 6 KiB apart */
  check_units("before the compaction");
  tidal_stats s0 = th_stats();
  CHECK(s0.resident_bytes == 8 * K && s0.total.compactions == 0);
  unsigned char *z = rmalloc(8 * K);
  op_write(z, 8 * K, 300); /* no 8 KiB hole, no room to grow: compaction */
  tidal_stats s1 = th_stats();
  CHECK(s1.total.compactions == 1);
  /* one 2 KiB block leaves an 8 KiB window (sliding down moved x4, y0 and
   * y4: 6 KiB) */
  CHECK(s1.total.d2d_bytes - s0.total.d2d_bytes == 2 * K);
  CHECK(s1.total.evictions == s0.total.evictions);          /* nothing had to go */
  check_units("after the compaction");
  op_check(x[0], 0, 2 * K, 0, 100);
  op_check(x[4], 0, 2 * K, 0, 104);
  op_check(y[0], 0, 2 * K, 0, 200);
  op_check(y[4], 0, 2 * K, 0, 204);
  op_check(z, 0, 8 * K, 0, 300);
  for (int i = 1; i < 8; i++) /* and the ones on the host */
    op_check(x[i], 0, 2 * K, 0, 100 + (uint64_t)i);
  CHECK_OK(tidal_free(z));
  for (int i = 0; i < 8; i++)
    CHECK_OK(tidal_free(x[i]));
  for (int i = 0; i < 6; i++)
    CHECK_OK(tidal_free(y[i]));
  CHECK_OK(tidal_shutdown());
}

/* Note [slides after evictions] (devpool.c): a gather whose span cannot
 * open between the op's own units - pinned, and closer together than the
 * span - slides the pool once, not again after every eviction that
 * follows, and still slides when that opens the hole rather than evict
 * more.  Budget 16 chunks, "K" a quarter chunk (1 KiB at 4 KiB chunks):
 * the pool maps at most 80K (the budget and one 16K step).  g, of 16K, is
 * eight 2K units written one by one between eight 2K tensors e[i] ([0,
 * 32K): g0 e0 g1 e1 ... g7 e7); e1, e3 and e5 go to the host, leaving 2K
 * holes; then t[0..n) ([32K, 68K)): nine 4K tensors, or (big) t0 of 4K
 * and t1 of 32K.  18K are free, 12K of them at the top, and no hole holds
 * g's span: the op reading g whole gathers it above g7, evicting in LRU
 * order e0, e2, e4, e6 (no use: between pinned units), e7, then t0.  That
 * frees 6K below t1, and the hole opens: with the 4K tensors, the targeted
 * window moves t8 down into it; with the 32K one (which fits no hole) only
 * a slide opens it: evicting t1 too, as the Note's first version did (it
 * slid again only once another 16K had gone), is what slide_opens stops.
 * Before the Note each eviction slid the pool: 13 compactions, not 2.
 * The bytes of all of them are intact. */
static void slides(int big) {
  tidal_config cfg;
  th_config(&cfg, 4096, 4096 * 16);
  th_init(&cfg);
  size_t K = th_chunk() / 4, nt = big ? 2 : 9;
  unsigned char *g = rmalloc(16 * K), *e[8], *t[9];
  size_t tn[9];
  for (int i = 0; i < 8; i++) {
    e[i] = rmalloc(2 * K);
    op_write(g + (size_t)i * 2 * K, 2 * K, 500 + (uint64_t)i);
    op_write(e[i], 2 * K, 600 + (uint64_t)i);
  }
  for (int i = 1; i < 6; i += 2)
    CHECK_OK(tidal_swap_out(e[i], 2 * K));
  CHECK_OK(tidal_synchronize());
  CHECK_OK(rt_release_parked());
  for (size_t j = 0; j < nt; j++) { /* 4K or more: none fits a 2K hole */
    tn[j] = big && j == 1 ? 32 * K : 4 * K;
    t[j] = rmalloc(tn[j]);
    op_write(t[j], tn[j], 700 + (uint64_t)j);
  }
  check_units("before the gather");
  tidal_stats s0 = th_stats();
  CHECK(s0.resident_bytes == 62 * K && rt_mem.dpool_mapped == 80 * K);
  tidal_access a = {g, 16 * K, TIDAL_READ};
  CHECK_OK(tidal_op_begin(&site, 1, &a));
  unsigned char *d = TIDAL_AT(g), got[2048], want[2048];
  size_t piece = 2 * K < sizeof got ? 2 * K : sizeof got; /* the first 2 KiB of each unit */
  for (int i = 0; i < 8; i++) {
    CHECK(TIDAL_AT(g + (size_t)i * 2 * K) == d + (size_t)i * 2 * K);
    th_get(got, d + (size_t)i * 2 * K, piece);
    th_fill_pattern(want, piece, 500 + (uint64_t)i);
    CHECK(memcmp(got, want, piece) == 0);
  }
  CHECK_OK(tidal_op_end(&site));
  tidal_stats s1 = th_stats();
  uint64_t compactions = s1.total.compactions - s0.total.compactions,
           evictions = s1.total.evictions - s0.total.evictions;
  printf("slides (%s): the gather after %llu evictions and %llu compactions\n",
         big ? "a 32K tensor" : "4K tensors", (unsigned long long)evictions,
         (unsigned long long)compactions);
  CHECK(s1.total.gathers == s0.total.gathers + 1);
  CHECK(evictions == 6);   /* e0, e2, e4, e6, e7, t0: not t1 */
  CHECK(compactions == 2); /* the slide that did not open it, then the window or a slide */
  CHECK(s1.resident_bytes == 48 * K);
  check_units("after the gather");
  for (int i = 0; i < 8; i++) {
    op_check(g, (size_t)i * 2 * K, 2 * K, 0, 500 + (uint64_t)i);
    op_check(e[i], 0, 2 * K, 0, 600 + (uint64_t)i);
  }
  for (size_t j = 0; j < nt; j++)
    op_check(t[j], 0, tn[j], 0, 700 + (uint64_t)j);
  CHECK_OK(tidal_free(g));
  for (int i = 0; i < 8; i++)
    CHECK_OK(tidal_free(e[i]));
  for (size_t j = 0; j < nt; j++)
    CHECK_OK(tidal_free(t[j]));
  CHECK_OK(tidal_shutdown());
}

static void test_slides(void) {
  slides(0);
  slides(1);
}

/* A budget of 50% of the first iteration's peak: the units holding it
 * give back the excess when it applies (rt_phys_shrink), nothing lost. */
static void test_budget_shrink(void) {
  tidal_config cfg;
  th_config(&cfg, 4096, 0);
  cfg.budget_bytes = 0;
  cfg.budget_percent = 50;
  th_init(&cfg);
  /* A quarter chunk (1 KiB at 4 KiB): half the peak must hold a chunk, the
   * least budget there is, at 2 MiB chunks too (a GPU, runtime.chunk2m.reloc). */
  size_t K = th_chunk() / 4;
  unsigned char *t[8];
  CHECK_OK(tidal_iteration_begin());
  for (int i = 0; i < 8; i++) {
    t[i] = rmalloc(8 * K + 100);
    op_write(t[i], 8 * K + 100, 400 + (uint64_t)i);
  }
  CHECK_OK(tidal_iteration_end());
  CHECK_OK(tidal_synchronize());
  tidal_stats s = th_stats();
  CHECK(s.budget_bytes == 4 * (8 * K + 100)); /* half the peak, exact */
  CHECK(s.resident_bytes <= s.budget_bytes);
  check_units("after the budget shrank");
  for (int i = 0; i < 8; i++)
    op_check(t[i], 0, 8 * K + 100, 0, 400 + (uint64_t)i);
  CHECK(th_stats().total.peak_resident_bytes == 8 * (8 * K + 100));
  for (int i = 0; i < 8; i++)
    CHECK_OK(tidal_free(t[i]));
  CHECK_OK(tidal_shutdown());
}

/* The trace's resident-by-group counter counts a relocatable tensor's
 * resident units, not its whole range. */
static void test_annotated(void) {
  char path[] = "/tmp/tidal-reloc-trace-XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  close(fd);
  tidal_config cfg;
  th_config(&cfg, 4096, 4096 * 16);
  cfg.trace_path = path;
  th_init(&cfg);
  unsigned char *r = rmalloc(10000);
  CHECK_OK(tidal_annotate(r, 5000, "act", TIDAL_GROUP_ACTIVATIONS));
  CHECK_OK(tidal_annotate(r + 5000, 5000, "w", TIDAL_GROUP_PARAMETERS));
  op_write(r, 5000, 1);
  op_write(r + 5000, 5000, 2);
  CHECK_OK(tidal_swap_out(r, 5000));
  CHECK_OK(tidal_synchronize());
  CHECK_OK(rt_release_parked());
  op_check(r, 5000, 5000, 0, 2); /* counters written: the parameters' 5000 bytes resident */
  CHECK_OK(tidal_free(r));
  CHECK_OK(tidal_shutdown());
  FILE *f = fopen(path, "r");
  CHECK(f != NULL);
  char line[4096];
  unsigned long long res = 0, g[5];
  int half = 0;
  while (fgets(line, sizeof line, f)) {
    char *p = strstr(line, "\"resident bytes\"");
    if (p)
      CHECK(sscanf(strstr(p, "\"bytes\":"), "\"bytes\":%llu", &res) == 1);
    p = strstr(line, "\"resident by group\"");
    if (!p)
      continue;
    CHECK(sscanf(strstr(p, "\"other\":"), "\"other\":%llu,\"parameters\":%llu,\"optimizer state\":"
                 "%llu,\"gradients\":%llu,\"activations\":%llu", &g[0], &g[1], &g[2], &g[3],
                 &g[4]) == 5);
    CHECK(g[0] + g[1] + g[2] + g[3] + g[4] == res);
    half += res == 5000 && g[1] == 5000 && g[4] == 0;
  }
  fclose(f);
  unlink(path);
  CHECK(half > 0);
}

static void test_home(void) {
  tidal_config cfg;
  th_config(&cfg, 4096, 4096 * 16);
  th_init(&cfg);
  unsigned char *p = rmalloc(5 * 4096 + 100);
  op_write(p, 2 * 4096, 11);
  op_write(p + 2 * 4096, 3 * 4096 + 100, 12);
  CHECK_OK(tidal_swap_out(p + 2 * 4096, 3 * 4096 + 100)); /* one unit on the host */
  CHECK_OK(tidal_synchronize());
  CHECK_OK(rt_release_parked());
  tidal_access a = {p, 4096, TIDAL_READ};
  CHECK_OK(tidal_op_begin(&site, 1, &a));
  CHECK_STATUS(tidal_home(p), TIDAL_ERR_INVALID); /* in use */
  CHECK_OK(tidal_op_end(&site));
  CHECK_OK(tidal_home(p + 7));
  CHECK_OK(tidal_home(p)); /* idempotent */
  CHECK(TIDAL_AT(p + 3) == p + 3);
  check_units("after tidal_home");
  /* at home: the stable address holds the data inside an op */
  op_check(p, 0, 2 * 4096, 0, 11);
  op_check(p, 2 * 4096, 3 * 4096 + 100, 0, 12);
  tidal_access all = {p, 5 * 4096 + 100, TIDAL_READ};
  CHECK_OK(tidal_op_begin(&site, 1, &all));
  CHECK(th_death_signal(th_touch_read, p + 4096 * 5) == 0 || GPU);
  CHECK_OK(tidal_op_end(&site));
  CHECK_OK(tidal_free(p));
  CHECK_OK(tidal_shutdown());
}

/* Note [physical bound]: device memory created (the chunk pool's chunks,
 * free and parked ones included, plus the device pool's mapped bytes)
 * stays within the budget plus one growth step of the pool, across a
 * fragmenting workload of home and relocatable allocations (random sizes,
 * random sub-range accesses, frees and new allocations), with every byte
 * checked against a shadow.  Before the bound the pool mapped up to twice
 * the budget beside the chunk pool's free chunks (about 2.7x here). */
#define PHYS_R 10
static void op_write_shadow(unsigned char *p, size_t n, unsigned char *shadow, uint64_t salt) {
  th_fill_pattern(shadow, n, salt);
  tidal_access a = {p, n, TIDAL_WRITE};
  CHECK_OK(tidal_op_begin(&site, 1, &a));
  th_put(TIDAL_AT(p), shadow, n);
  CHECK_OK(tidal_op_end(&site));
}

static void op_check_shadow(unsigned char *p, size_t n, const unsigned char *shadow) {
  unsigned char *got = malloc(n);
  CHECK(got);
  tidal_access a = {p, n, TIDAL_READ};
  CHECK_OK(tidal_op_begin(&site, 1, &a));
  th_get(got, TIDAL_AT(p), n);
  CHECK(memcmp(got, shadow, n) == 0);
  CHECK_OK(tidal_op_end(&site));
  free(got);
}

static void test_physical(void) {
  tidal_config cfg;
  size_t C = 4096;
  th_config(&cfg, C, 16 * C);
  th_init(&cfg);
  C = th_chunk(); /* 2 MiB on a GPU and in runtime.chunk2m.reloc */
  size_t budget = th_stats().budget_bytes, K = C / 2;
  unsigned char *r[PHYS_R], *rs[PHYS_R], *h[2], *hs[2];
  size_t rn[PHYS_R], hn = 2 * C;
  for (int i = 0; i < PHYS_R; i++)
    r[i] = NULL;
  r[0] = rmalloc(5 * K); /* the first relocatable allocation: the chunk pool trims */
  rn[0] = 5 * K;
  /* home data written, then freed: its chunks stay created, free */
  unsigned char *big[3];
  for (int i = 0; i < 3; i++) {
    CHECK_OK(tidal_malloc((void **)&big[i], 4 * C));
    op_write(big[i], 4 * C, 70 + (uint64_t)i);
  }
  for (int i = 0; i < 2; i++) {
    CHECK_OK(tidal_malloc((void **)&h[i], hn));
    hs[i] = malloc(hn);
    CHECK(hs[i]);
    op_write_shadow(h[i], hn, hs[i], 80 + (uint64_t)i);
  }
  for (int i = 0; i < 3; i++)
    CHECK_OK(tidal_free(big[i]));
  size_t limit = th_stats().physical_limit_bytes;
  CHECK(limit > budget && limit - budget <= budget / 4 + C);
  for (int i = 0; i < PHYS_R; i++) {
    if (!r[i]) {
      rn[i] = K / 2 + th_below(5 * K) + 1 + th_below(300);
      r[i] = rmalloc(rn[i]);
    }
    rs[i] = malloc(rn[i]);
    CHECK(rs[i]);
    op_write_shadow(r[i], rn[i], rs[i], 90 + (uint64_t)i);
  }
  unsigned char *buf = malloc(8 * C);
  CHECK(buf);
  int steps = C > 65536 ? 150 : 600; /* 2 MiB chunks: megabytes per step */
  for (int step = 0; step < steps; step++) {
    int i = (int)th_below(PHYS_R), j = (int)th_below(PHYS_R), k = (int)th_below(2);
    int what = (int)th_below(8);
    if (what == 0) { /* a new allocation of another size in i's place */
      CHECK_OK(tidal_free(r[i]));
      free(rs[i]);
      rn[i] = K / 2 + th_below(6 * K) + th_below(300) + 1;
      r[i] = rmalloc(rn[i]);
      rs[i] = malloc(rn[i]);
      CHECK(rs[i]);
      op_write_shadow(r[i], rn[i], rs[i], 1000 + (uint64_t)step);
    } else if (what == 1) {
      size_t lo = th_below(rn[i]), n = 1 + th_below(rn[i] - lo);
      CHECK_OK(tidal_swap_out(r[i] + lo, n));
    } else { /* read a random piece of r[i] and h[k], write one of r[j] */
      size_t lo = th_below(rn[i]), n = 1 + th_below(rn[i] - lo);
      size_t wlo = th_below(rn[j]), wn = 1 + th_below(rn[j] - wlo);
      size_t hlo = th_below(hn), hn2 = 1 + th_below(hn - hlo);
      tidal_access a[3] = {{r[i] + lo, n, TIDAL_READ},
                           {h[k] + hlo, hn2, TIDAL_READ | TIDAL_WRITE},
                           {r[j] + wlo, wn, i == j ? TIDAL_READ | TIDAL_WRITE : TIDAL_WRITE}};
      CHECK_OK(tidal_op_begin(&site, 3, a));
      th_get(buf, TIDAL_AT(r[i] + lo), n);
      if (memcmp(buf, rs[i] + lo, n) != 0)
        TH_FAIL("step %d: bytes [%zu, %zu) of tensor %d differ", step, lo, lo + n, i);
      th_get(buf, TIDAL_AT(h[k] + hlo), hn2);
      if (memcmp(buf, hs[k] + hlo, hn2) != 0)
        TH_FAIL("step %d: bytes [%zu, %zu) of home %d differ", step, hlo, hlo + hn2, k);
      for (size_t b = 0; b < hn2; b++)
        buf[b] = (unsigned char)(buf[b] + 1);
      th_put(TIDAL_AT(h[k] + hlo), buf, hn2);
      memcpy(hs[k] + hlo, buf, hn2);
      for (size_t b = 0; b < wn; b++)
        buf[b] = (unsigned char)th_rand();
      th_put(TIDAL_AT(r[j] + wlo), buf, wn);
      memcpy(rs[j] + wlo, buf, wn);
      CHECK_OK(tidal_op_end(&site));
    }
    tidal_stats s = th_stats();
    if (s.physical_bytes > limit)
      TH_FAIL("step %d: %llu bytes of device memory created, over the bound of %zu (budget %zu)",
              step, (unsigned long long)s.physical_bytes, limit, budget);
    if (step % 50 == 0)
      check_units("in the fragmenting workload");
  }
  tidal_stats s = th_stats();
  CHECK(s.total.peak_physical_bytes <= limit && s.total.physical_overruns == 0);
  if (getenv("PHYS_DEBUG"))
    printf("peak %llu limit %zu budget %zu grows %llu shrinks %llu compactions %llu gathers %llu evictions %llu\n", (unsigned long long)s.total.peak_physical_bytes, limit, budget, (unsigned long long)s.total.pool_grows, (unsigned long long)s.total.pool_shrinks, (unsigned long long)s.total.compactions, (unsigned long long)s.total.gathers, (unsigned long long)s.total.evictions);
  CHECK(s.total.pool_shrinks > 0 || s.total.compactions > 0 || GPU); /* it was exercised */
  for (int i = 0; i < PHYS_R; i++) {
    op_check_shadow(r[i], rn[i], rs[i]);
    CHECK_OK(tidal_free(r[i]));
    free(rs[i]);
  }
  for (int k = 0; k < 2; k++) {
    op_check_shadow(h[k], hn, hs[k]);
    CHECK_OK(tidal_free(h[k]));
    free(hs[k]);
  }
  free(buf);
  check_units("after the fragmenting workload");
  CHECK_OK(tidal_shutdown());
}

/* Recompute over relocatable memory: a "kernel" y = 3x + 1 byte by byte,
 * its closure re-running it through tidal_at inside the op that needs y. */
typedef struct scale_ctx {
  unsigned char *x, *y;
  size_t n;
} scale_ctx;
static const tidal_site scale_site = {"scale", __FILE__, __LINE__, 1e-6};
static int scale_runs;

static void scale_kernel(unsigned char *y, const unsigned char *x, size_t n) {
  unsigned char *buf = malloc(n);
  CHECK(buf);
  th_get(buf, x, n);
  for (size_t i = 0; i < n; i++)
    buf[i] = (unsigned char)(3 * buf[i] + 1);
  th_put(y, buf, n);
  free(buf);
}

static tidal_status scale_op(const scale_ctx *k) {
  tidal_access a[2] = {{k->x, k->n, TIDAL_READ}, {k->y, k->n, TIDAL_WRITE}};
  tidal_status st = tidal_op_begin(&scale_site, 2, a);
  if (st != TIDAL_OK)
    return st;
  scale_kernel(TIDAL_AT(k->y), TIDAL_AT(k->x), k->n);
  return tidal_op_end(&scale_site);
}

static void scale_closure(void *ctx, tidal_stream s) {
  (void)s;
  scale_runs++;
  (void)scale_op(ctx); /* a failure is the runtime's to report (TIDAL_ERR_RECOMPUTE) */
}

static void test_recompute(void) {
  tidal_config cfg;
  size_t C = 4096;
  th_config(&cfg, C, 16 * C);
  th_init(&cfg);
  C = th_chunk();
  size_t n = 3 * C + 300;
  unsigned char *x = rmalloc(n), *y = rmalloc(n), *want = malloc(n), *got = malloc(n);
  CHECK(want && got);
  op_write(x, n, 5);
  scale_ctx k = {x, y, n};
  CHECK_OK(scale_op(&k));
  CHECK_OK(tidal_recompute_register(y, n, scale_closure, &k, sizeof k));
  th_fill_pattern(want, n, 5);
  for (size_t i = 0; i < n; i++)
    want[i] = (unsigned char)(3 * want[i] + 1);

  /* 1. dropped (no copy), its memory given away, read back: the closure runs */
  tidal_stats s0 = th_stats();
  CHECK_OK(tidal_swap_out(y, n));
  CHECK_OK(tidal_synchronize());
  CHECK_OK(rt_release_parked());
  tidal_stats s1 = th_stats();
  CHECK(s1.total.drops > s0.total.drops && s1.total.swapped_out_bytes == s0.total.swapped_out_bytes);
  CHECK(s1.resident_bytes == n); /* x alone */
  scale_runs = 0;
  tidal_access r = {y, n, TIDAL_READ};
  CHECK_OK(tidal_op_begin(&site, 1, &r));
  th_get(got, TIDAL_AT(y), n);
  CHECK(memcmp(got, want, n) == 0);
  CHECK_OK(tidal_op_end(&site));
  CHECK(scale_runs == 1 && th_stats().total.recomputes == s1.total.recomputes + 1);
  check_units("after a recompute");

  /* 2. its input swapped out too: the closure's op brings x back first */
  CHECK_OK(tidal_swap_out(y, n));
  CHECK_OK(tidal_swap_out(x, n));
  CHECK_OK(tidal_synchronize());
  CHECK_OK(rt_release_parked());
  CHECK(th_stats().resident_bytes == 0);
  /* read the last 1000 bytes only: the unit splits, both halves keep the closure */
  CHECK_OK(tidal_op_begin(&site, 1, &(tidal_access){y + n - 1000, 1000, TIDAL_READ}));
  th_get(got, TIDAL_AT(y + n - 1000), 1000);
  CHECK(memcmp(got, want + n - 1000, 1000) == 0);
  CHECK_OK(tidal_op_end(&site));
  CHECK(scale_runs == 2);
  op_check(x, 0, n, 0, 5); /* the input is intact */
  check_units("after a recompute whose input was on the host");

  /* 3. pressure: a filler of most of the budget evicts y, which is dropped */
  CHECK_OK(tidal_swap_out(y, n - 1000)); /* the first half: dropped */
  CHECK_OK(tidal_synchronize());
  CHECK_OK(rt_release_parked());
  unsigned char *f = rmalloc(12 * C);
  uint64_t out0 = th_stats().total.swapped_out_bytes;
  op_write(f, 12 * C, 6); /* x or y's rest must go: y's without a copy */
  CHECK(th_stats().total.swapped_out_bytes - out0 <= n); /* at most x was copied */
  op_check(f, 0, 12 * C, 0, 6);
  CHECK_OK(rt_release_parked());
  CHECK_OK(tidal_op_begin(&site, 1, &r));
  th_get(got, TIDAL_AT(y), n);
  CHECK(memcmp(got, want, n) == 0);
  CHECK_OK(tidal_op_end(&site));
  CHECK(scale_runs >= 3);

  /* 4. an op overwriting y's first half while y is dropped: the closure
   * runs first, so the second half keeps its bytes; the registration ends */
  CHECK_OK(tidal_swap_out(y, n));
  CHECK_OK(tidal_synchronize());
  CHECK_OK(rt_release_parked());
  int runs = scale_runs;
  op_write(y, n / 2, 7);
  CHECK(scale_runs == runs + 1);
  op_check(y, 0, n / 2, 0, 7);
  CHECK_OK(tidal_op_begin(&site, 1, &(tidal_access){y + n / 2, n - n / 2, TIDAL_READ}));
  th_get(got, TIDAL_AT(y + n / 2), n - n / 2);
  CHECK(memcmp(got, want + n / 2, n - n / 2) == 0);
  CHECK_OK(tidal_op_end(&site));
  uint64_t drops = th_stats().total.drops;
  CHECK_OK(tidal_swap_out(y, n)); /* no closure now: copied, not dropped */
  CHECK_OK(tidal_synchronize());
  CHECK(th_stats().total.drops == drops);
  op_check(y, 0, n / 2, 0, 7);

  /* 5. tidal_home on a dropped tensor: regenerated, then at home */
  op_write(y, n, 8);
  CHECK_OK(scale_op(&k));
  CHECK_OK(tidal_recompute_register(y, n, scale_closure, &k, sizeof k));
  CHECK_OK(tidal_swap_out(y, n));
  CHECK_OK(tidal_synchronize());
  CHECK_OK(rt_release_parked());
  runs = scale_runs;
  CHECK_OK(tidal_home(y));
  CHECK(scale_runs == runs + 1);
  CHECK_OK(tidal_op_begin(&site, 1, &r));
  CHECK(TIDAL_AT(y) == y);
  th_get(got, y, n);
  CHECK(memcmp(got, want, n) == 0);
  CHECK_OK(tidal_op_end(&site));
  check_units("after tidal_home of a recomputable tensor");
  CHECK_OK(tidal_free(f));
  CHECK_OK(tidal_free(x));
  CHECK_OK(tidal_free(y));
  free(want);
  free(got);
  CHECK_OK(tidal_shutdown());
}

int main(int argc, char **argv) {
  th_seed_init(argc, argv);
  test_faults();
  test_split_gather();
  test_placed();
  test_gather_order();
  test_beside();
  test_gather_runs();
  test_budget();
  test_host_shared();
  test_compaction();
  test_slides();
  test_budget_shrink();
  test_annotated();
  test_home();
  test_physical();
  test_recompute();
  printf("ok\n");
  return 0;
}
