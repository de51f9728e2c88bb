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
 *  - a full host store is TIDAL_ERR_BUDGET, never a crash or a lost byte;
 *  - tidal_home brings an allocation back to its stable address.
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

/* Runs fn(p) in a child: the signal that killed it, 0 if none.  On a GPU a
 * stray device address is no host fault: -1 (the callers skip). */
static int death_signal(void (*fn)(volatile unsigned char *), volatile unsigned char *p) {
#ifdef TH_GPU
  (void)fn, (void)p;
  return -1;
#endif
  fflush(stdout);
  pid_t pid = fork();
  CHECK(pid >= 0);
  if (pid == 0) {
    fn(p);
    _exit(0);
  }
  int status;
  CHECK(waitpid(pid, &status, 0) == pid);
  return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

static void touch_read(volatile unsigned char *p) { (void)p[0]; }
static void touch_write(volatile unsigned char *p) { p[0] = 1; }

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

/* op writing [p, p+n) with pattern salt through tidal_at */
static void op_write(unsigned char *p, size_t n, uint64_t salt) {
  unsigned char *buf = malloc(n);
  CHECK(buf);
  th_fill_pattern(buf, n, salt);
  tidal_access a = {p, n, TIDAL_WRITE};
  CHECK_OK(tidal_op_begin(&site, 1, &a));
  th_put(TIDAL_AT(p), buf, n);
  CHECK_OK(tidal_op_end(&site));
  free(buf);
}

/* op reading [p + off, p + off + n): byte j must be byte pat + j of pattern salt */
static void op_check(unsigned char *p, size_t off, size_t n, size_t pat, uint64_t salt) {
  unsigned char *want = malloc(pat + n), *got = malloc(n);
  CHECK(want && got);
  th_fill_pattern(want, pat + n, salt);
  tidal_access a = {p + off, n, TIDAL_READ};
  CHECK_OK(tidal_op_begin(&site, 1, &a));
  th_get(got, TIDAL_AT(p + off), n);
  if (memcmp(got, want + pat, n) != 0)
    TH_FAIL("bytes [%zu, %zu) differ", off, off + n);
  CHECK_OK(tidal_op_end(&site));
  free(want);
  free(got);
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
  CHECK(death_signal(touch_read, p) == SIGSEGV || GPU);
  CHECK(death_signal(touch_write, p + 3 * CH - 1) == SIGSEGV || GPU);
  CHECK(death_signal(touch_read, d) == 0 || GPU); /* the resolved one is the data */
  CHECK_OK(tidal_op_end(&site));
  CHECK(death_signal(touch_read, p + 100) == SIGSEGV || GPU); /* a stale use after the op */
  /* an undeclared use: an error, counted, and its address faults */
  uint64_t before = th_stats().total.undeclared_uses;
  tidal_access b = {p, CH, TIDAL_READ};
  CHECK_OK(tidal_op_begin(&site2, 1, &b));
  unsigned char *u = TIDAL_AT(p + 2 * CH);
  CHECK(u == p + 2 * CH);
  CHECK_MESSAGE("outside every access");
  CHECK(death_signal(touch_read, u) == SIGSEGV || GPU);
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

/* host store full: a unit that cannot be copied out stays resident; an op
 * that needs its room fails with TIDAL_ERR_BUDGET, and every byte is kept */
static void test_host_full(void) {
  tidal_config cfg;
  th_config(&cfg, 4096, 4096 * 4);
  const size_t CH = cfg.chunk_bytes; /* 2 MiB on a GPU and in runtime.chunk2m.reloc */
  cfg.host_budget_bytes = 4 * CH; /* all of it is the slot store's: no room for units */
  th_init(&cfg);
  CHECK(th_chunk() == CH);
  unsigned char *a = rmalloc(3 * CH), *b = rmalloc(3 * CH);
  op_write(a, 3 * CH, 3);
  tidal_access x = {b, 3 * CH, TIDAL_WRITE};
  CHECK_STATUS(tidal_op_begin(&site, 1, &x), TIDAL_ERR_BUDGET);
  check_units("after the failed op");
  op_check(a, 0, 3 * CH, 0, 3);
  CHECK_OK(tidal_free(a));
  op_write(b, 3 * CH, 4); /* a's room */
  op_check(b, 0, 3 * CH, 0, 4);
  CHECK_OK(tidal_free(b));
  CHECK_OK(tidal_shutdown());
}

/* Note [compaction]: a pool at its limit with the bytes free but in holes
 * slides its blocks down.  Budget 16 KiB (pool steps of 4 KiB, at most
 * 32 KiB mapped); 2 KiB tensors; four stay resident, spread out, so that
 * no hole holds 8 KiB. */
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
  CHECK(s1.total.d2d_bytes - s0.total.d2d_bytes == 6 * K); /* x4, y0, y4 slid down */
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
  CHECK(death_signal(touch_read, p + 4096 * 5) == 0 || GPU);
  CHECK_OK(tidal_op_end(&site));
  CHECK_OK(tidal_free(p));
  CHECK_OK(tidal_shutdown());
}

int main(int argc, char **argv) {
  th_seed_init(argc, argv);
  test_faults();
  test_split_gather();
  test_placed();
  test_budget();
  test_host_full();
  test_compaction();
  test_budget_shrink();
  test_annotated();
  test_home();
  printf("ok\n");
  return 0;
}
