/* test_home.c - tidal_home makes the allocation resident for code the pass
 * does not instrument (Note [home residency], runtime/memory/homehold.c).
 *
 * The "uninstrumented call" is a plain read or write of the home address
 * with no op around it: on the sim a forked child that reads every byte
 * (killed by SIGSEGV if a chunk is unmapped or PROT_NONE, as before this
 * change: tidal_home returned at once for a home allocation), on a card a
 * cudaMemcpy.  Checked:
 *  1. a home allocation swapped out (parked, then its memory given back)
 *     and partly never written: after tidal_home every byte reads, with the
 *     data it had;
 *  2. tidal_home(a); tidal_home(b): both resident together, since restoring
 *     b cannot evict a's pinned chunks; where a and b do not fit the budget
 *     together the second tidal_home is TIDAL_ERR_BUDGET (it would have
 *     evicted a) and a still reads; after the next op it succeeds;
 *  3. what the call writes survives a later eviction: the chunks count as
 *     written (dirty), so they are copied out, not dropped for the host copy
 *     they had;
 *  4. a relocatable allocation sent home with a unit on the host and bytes
 *     never written: every byte reads;
 *  5. an allocation bigger than the budget: TIDAL_ERR_BUDGET with a message,
 *     non-tidal memory and NULL: no-ops; tidal_free of a held allocation;
 *  6. inside an open op (where the pass sends a struct's fields home, after
 *     TIDAL_OP_BEGIN): the chunks stay with the op until its end, and one
 *     that does not fit beside the op's is TIDAL_ERR_BUDGET. */
#include "testhelp.h"
#include <signal.h>
#include <sys/wait.h>

static const tidal_site site = {"home_op", __FILE__, __LINE__, 1e-6};
static size_t CH;

/* Ops through tidal_at (testhelp.h), at this file's site. */
static void op_write(unsigned char *p, size_t n, uint64_t salt) {
  th_op_write_at(&site, p, n, salt);
}

static void op_check(const unsigned char *p, size_t n, uint64_t salt) {
  th_op_check_at(&site, p, 0, n, 0, salt);
}

/* The uninstrumented call: reads every byte of [p, p + n) outside any op
 * and compares the first `filled` with pattern `salt` (salt 0: no check).
 * On the sim in a child, so that a fault is reported, not a crash. */
static void uninstrumented_read(const unsigned char *p, size_t n, size_t filled, uint64_t salt,
                                const char *what) {
  unsigned char *want = malloc(filled ? filled : 1);
  CHECK(want);
  th_fill_pattern(want, filled, salt);
#ifdef TH_GPU
  unsigned char *got = malloc(n);
  CHECK(got);
  th_get(got, p, n);
  if (salt && memcmp(got, want, filled) != 0)
    TH_FAIL("%s: the home allocation's bytes differ", what);
  free(got);
#else
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  CHECK(pid >= 0);
  if (pid == 0) {
    volatile const unsigned char *v = p;
    unsigned sum = 0;
    for (size_t i = 0; i < n; i++)
      sum += v[i];
    (void)sum;
    _exit(salt && memcmp(p, want, filled) != 0 ? 3 : 0);
  }
  int status;
  CHECK(waitpid(pid, &status, 0) == pid);
  if (WIFSIGNALED(status))
    TH_FAIL("%s: reading the home allocation after tidal_home was killed by signal %d (%s): a "
            "chunk of it is not resident",
            what, WTERMSIG(status), strsignal(WTERMSIG(status)));
  if (WEXITSTATUS(status) == 3)
    TH_FAIL("%s: the home allocation's bytes differ", what);
  CHECK(WEXITSTATUS(status) == 0);
#endif
  free(want);
}

/* The uninstrumented call writes [p, p + n) with pattern salt. */
static void uninstrumented_write(unsigned char *p, size_t n, uint64_t salt) {
  unsigned char *h = malloc(n);
  CHECK(h);
  th_fill_pattern(h, n, salt);
  th_put(p, h, n);
  free(h);
}

static void evicted(unsigned char *p, size_t n) {
  CHECK_OK(tidal_swap_out(p, n));
  CHECK_OK(tidal_synchronize());
  CHECK_OK(rt_release_parked()); /* unmapped, not only parked */
}

/* 1. swapped out and partly never written */
static void test_swapped(void) {
  unsigned char *a;
  CHECK_OK(tidal_malloc((void **)&a, 3 * CH + 100));
  op_write(a, 2 * CH, 1); /* the last chunk is never written */
  evicted(a, 2 * CH);
  CHECK(th_stats().resident_bytes == 0);
  CHECK_OK(tidal_home(a + 5)); /* an interior pointer: its whole allocation */
  uninstrumented_read(a, 3 * CH + 100, 2 * CH, 1, "swapped out");
  CHECK_OK(tidal_home(a)); /* idempotent */
  op_check(a, 2 * CH, 1);
  CHECK_OK(tidal_free(a));
}

/* 2. two pointers */
static void test_two(void) {
  unsigned char *a, *b, *c;
  CHECK_OK(tidal_malloc((void **)&a, 2 * CH));
  CHECK_OK(tidal_malloc((void **)&b, 2 * CH));
  CHECK_OK(tidal_malloc((void **)&c, 4 * CH)); /* the budget: 4 chunks */
  op_write(a, 2 * CH, 2);
  op_write(b, 2 * CH, 3);
  op_write(c, 4 * CH, 4); /* evicts a and b */
  CHECK_OK(tidal_home(a));
  CHECK_OK(tidal_home(b));
  uninstrumented_read(a, 2 * CH, 2 * CH, 2, "two pointers, a");
  uninstrumented_read(b, 2 * CH, 2 * CH, 3, "two pointers, b");
  op_check(c, 4 * CH, 4); /* the holds end with this op */

  /* a and b too big together: a stays, b is refused */
  unsigned char *d;
  CHECK_OK(tidal_malloc((void **)&d, 3 * CH));
  op_write(d, 3 * CH, 5);
  op_write(b, 2 * CH, 6);
  op_write(c, 4 * CH, 7);
  CHECK_OK(tidal_home(d));
  CHECK_STATUS(tidal_home(b), TIDAL_ERR_BUDGET);
  CHECK_MESSAGE("pinned by earlier tidal_home calls since the last op");
  uninstrumented_read(d, 3 * CH, 3 * CH, 5, "d after b was refused");
  op_check(c, 4 * CH, 7); /* takes d's pins over; they end with it */
  CHECK_OK(tidal_home(b));
  uninstrumented_read(b, 2 * CH, 2 * CH, 6, "b after the op");
  CHECK_OK(tidal_free(a));
  CHECK_OK(tidal_free(b));
  CHECK_OK(tidal_free(c));
  CHECK_OK(tidal_free(d));
}

/* 3. the call's writes survive eviction */
static void test_written(void) {
  unsigned char *a, *c;
  CHECK_OK(tidal_malloc((void **)&a, 2 * CH));
  CHECK_OK(tidal_malloc((void **)&c, 4 * CH));
  op_write(a, 2 * CH, 8);
  evicted(a, 2 * CH);
  op_check(a, 2 * CH, 8); /* resident again, clean: its host copy is kept */
  CHECK_OK(tidal_home(a));
  uninstrumented_write(a, 2 * CH, 9);
  op_write(c, 4 * CH, 10); /* evicts a: copied out, not dropped */
  CHECK_OK(rt_release_parked()); /* its memory reused: only the host copy is left */
  op_check(a, 2 * CH, 9);
  op_check(c, 4 * CH, 10);
  CHECK_OK(tidal_free(a));
  CHECK_OK(tidal_free(c));
}

/* 4. relocatable, sent home */
static void test_reloc(void) {
  unsigned char *p;
  CHECK_OK(tidal_malloc_grouped((void **)&p, 3 * CH + 100, TIDAL_GROUP_RELOCATABLE));
  op_write(p, CH, 11); /* the rest is never written */
  CHECK_OK(tidal_swap_out(p, CH)); /* its unit on the host */
  CHECK_OK(tidal_synchronize());
  CHECK_OK(tidal_home(p));
  uninstrumented_read(p, 3 * CH + 100, CH, 11, "relocatable");
  op_check(p, CH, 11);
  CHECK_OK(tidal_free(p));
}

/* 6. inside an op (the pass's tidal_home after TIDAL_OP_BEGIN for a
 * struct's fields): pinned with the op until its end */
static void test_in_op(void) {
  unsigned char *a, *c, *d;
  CHECK_OK(tidal_malloc((void **)&a, 2 * CH));
  CHECK_OK(tidal_malloc((void **)&c, 2 * CH));
  CHECK_OK(tidal_malloc((void **)&d, 4 * CH));
  op_write(a, 2 * CH, 14);
  op_write(c, 2 * CH, 15);
  op_write(d, 4 * CH, 16); /* a and c evicted */
  CHECK_OK(tidal_home(a)); /* before the op: let go of by its begin */
  tidal_access r = {c, 2 * CH, TIDAL_READ};
  CHECK_OK(tidal_op_begin(&site, 1, &r));
  CHECK_OK(tidal_home(a)); /* after it: a's chunks join the op */
  uninstrumented_read(a, 2 * CH, 2 * CH, 14, "inside an op");
  unsigned char *e; /* beside the op's 4 chunks, nothing more fits */
  CHECK_OK(tidal_malloc((void **)&e, CH));
  CHECK_STATUS(tidal_home(e), TIDAL_ERR_BUDGET);
  CHECK_MESSAGE("pinned by the open ops");
  CHECK_STATUS(tidal_free(a), TIDAL_ERR_INVALID); /* the op uses it now */
  CHECK_OK(tidal_op_end(&site));
  op_check(d, 4 * CH, 16); /* a's pins went with the op: room for d */
  CHECK_OK(tidal_free(a));
  CHECK_OK(tidal_free(c));
  CHECK_OK(tidal_free(d));
  CHECK_OK(tidal_free(e));
}

/* 5. too big, not tidal's, freed while held */
static void test_edges(void) {
  unsigned char *big, *a;
  CHECK_OK(tidal_malloc((void **)&big, 5 * CH));
  op_write(big, 4 * CH, 12); /* an op may use part of it */
  CHECK_STATUS(tidal_home(big), TIDAL_ERR_BUDGET);
  CHECK_MESSAGE("must be resident");
  static unsigned char host[64];
  CHECK_OK(tidal_home(host));
  CHECK_OK(tidal_home(NULL));
  CHECK_OK(tidal_malloc((void **)&a, CH));
  op_write(a, CH, 13);
  CHECK_OK(tidal_home(a));
  CHECK_OK(tidal_free(a)); /* held: let go first */
  op_check(big, 4 * CH, 12);
  CHECK_OK(tidal_free(big));
}

int main(int argc, char **argv) {
  th_seed_init(argc, argv);
  tidal_config cfg;
  th_config(&cfg, 4096, 4 * 4096);
  th_init(&cfg);
  CH = th_chunk();
  test_swapped();
  test_two();
  test_written();
  test_reloc();
  test_in_op();
  test_edges();
  th_check_host("at the end");
  CHECK_OK(tidal_shutdown());
  printf("ok\n");
  return 0;
}
