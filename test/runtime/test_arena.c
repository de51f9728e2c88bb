/* test_arena.c - TIDAL_GROUP_ARENA members are laid out one after another
 * and share chunks (Note [arenas], arena.c): an op over a tensor and its
 * small partner needs the tensor's chunks only, hints on one member never
 * evict a live neighbour's bytes, nothing is lost under a budget far below
 * the total, evicted arena chunks fault when touched outside an op (sim),
 * frees release only what no live member touches, and members too big for
 * an arena are plain allocations. */
#include "testhelp.h"
#include <sys/wait.h>
#include "policy/policy.h" /* rt_mem.footprint_bytes: the demand on a shared budget */

/* Sizes follow the chunk the runtime runs with (4 KiB asked for; 2 MiB on
 * a GPU and in runtime.chunk2m.arena). */
static size_t CH;
#define ARENA(k) (TIDAL_GROUP_ARENA | (k))

static const tidal_site site = {"arena_op", "arena.c", 1, 1e-6};
static uintptr_t chunk_of(const void *p) { return (uintptr_t)p / CH; }

/* Touching p outside an op faults (its chunk is evicted).  The sim's
 * oracle only: on a GPU a host access to device memory is no test of
 * residency, so the GPU build checks everything else and reports these as
 * "not checked" (1 = faults, 0 = does not, -1 = not checked). */
static int faults(const unsigned char *p) {
#ifdef TH_GPU
  (void)p;
  return -1;
#else
  pid_t pid = fork();
  if (pid == 0) {
    volatile unsigned char v = p[0];
    (void)v;
    _exit(0);
  }
  int wst;
  CHECK(waitpid(pid, &wst, 0) == pid);
  return WIFSIGNALED(wst) && WTERMSIG(wst) == SIGSEGV;
#endif
}

static void write_all(unsigned char *p, size_t n, unsigned char *shadow, uint64_t salt) {
  th_op_write(&site, p, n, shadow, salt);
}

static void check_all(unsigned char *p, size_t n, const unsigned char *shadow) {
  th_op_check(&site, p, n, shadow);
}

int main(int argc, char **argv) {
  th_seed_init(argc, argv);
  tidal_config cfg;
  th_config(&cfg, 4096, 2 * 4096);
  th_init(&cfg);
  CH = th_chunk();
  /* Layout: a partner allocated first is the head, the tensor follows it;
   * a partner allocated after a tensor sits in its last chunk's tail. */
  const size_t XB = 2 * CH - 2100, SB = 1000, YB = 1500;
  unsigned char *s, *x, *px, *y, *plain1, *plain2;
  CHECK_OK(tidal_malloc_grouped((void **)&s, SB, ARENA(1)));
  CHECK_OK(tidal_malloc_grouped((void **)&x, XB, ARENA(1)));
  CHECK_OK(tidal_malloc_grouped((void **)&px, XB, ARENA(2)));
  CHECK_OK(tidal_malloc_grouped((void **)&y, YB, ARENA(2)));
  CHECK(x == s + 1024 && chunk_of(s) == chunk_of(x) && chunk_of(x + XB - 1) == chunk_of(s) + 1);
  CHECK(y == px + (XB + 255) / 256 * 256 && chunk_of(y + YB - 1) == chunk_of(px) + 1);
  /* Their demand on a shared budget is their aligned bytes, not 2 chunks
   * for each tensor besides its partner's bytes. */
  CHECK(rt_mem.footprint_bytes == 1024 + 2 * (2 * CH - 2048) + 1536);
  /* The same sizes as plain allocations: the tensor's 2 chunks and a slab. */
  CHECK_OK(tidal_malloc((void **)&plain1, XB));
  CHECK_OK(tidal_malloc((void **)&plain2, YB));

  /* An op over a tensor and its partner needs 2 chunks in an arena, 3 apart. */
  unsigned char *xs = malloc(XB), *ys = malloc(YB), *ss = malloc(SB), *tmp = malloc(XB);
  CHECK(xs && ys && ss && tmp);
  tidal_access both[2] = {{px, XB, TIDAL_WRITE}, {y, YB, TIDAL_WRITE}};
  CHECK_OK(tidal_op_begin(&site, 2, both));
  th_fill_pattern(xs, XB, 1);
  th_fill_pattern(ys, YB, 2);
  th_put(px, xs, XB);
  th_put(y, ys, YB);
  CHECK_OK(tidal_op_end(&site));
  tidal_access apart[2] = {{plain1, XB, TIDAL_READ}, {plain2, YB, TIDAL_READ}};
  CHECK_STATUS(tidal_op_begin(&site, 2, apart), TIDAL_ERR_BUDGET);
  write_all(s, SB, ss, 3);
  write_all(x, XB, tmp, 4);
  check_all(px, XB, xs); /* brought back from the host under the 2-chunk budget */
  check_all(y, YB, ys);
  check_all(x, XB, tmp);

  /* Hints: one on the partner alone leaves the shared chunk mapped (the
   * tensor may still use it); once both are hinted, it goes.  (Evicted
   * chunks are PROT_NONE in the sim: touching one outside an op faults.) */
  CHECK_OK(tidal_synchronize());
  check_all(px, XB, xs);
  check_all(y, YB, ys);
  tidal_stats h0 = th_stats();
  CHECK_OK(tidal_swap_out(y, YB));
  CHECK_OK(tidal_synchronize());
  CHECK(faults(y) <= 0 && faults(px + XB - 1) <= 0);
  CHECK_OK(tidal_drop(px, XB)); /* its first chunk is its own: dropped; the shared one swapped */
  CHECK_OK(tidal_synchronize());
  tidal_stats h1 = th_stats();
  CHECK(h1.total.dropped_bytes == h0.total.dropped_bytes + CH);
  CHECK(faults(y) != 0 && faults(px) != 0);
  check_all(y, YB, ys); /* the partner's bytes are intact */

  /* Frees: a member whose chunks a live neighbour shares releases nothing
   * of theirs; one whose own chunk an open op pins cannot be freed. */
  tidal_access pa = {px, XB, TIDAL_READ};
  CHECK_OK(tidal_op_begin(&site, 1, &pa));
  CHECK_STATUS(tidal_free(px), TIDAL_ERR_INVALID); /* its first chunk is its own */
  CHECK_OK(tidal_op_end(&site));
  write_all(px, XB, xs, 9);
  CHECK_OK(tidal_free(y));
  check_all(px, XB, xs);
  CHECK_OK(tidal_free(px));
  CHECK_OK(tidal_free(x));
  CHECK_OK(tidal_free(s));
  th_check_host("after freeing the pairs");
  CHECK_OK(tidal_shutdown()); /* plain1 and plain2 with it */

  /* Random ops and hints over many arena members under a budget far below
   * their total: every byte written comes back.  A member of up to two
   * chunks can span three at its offset. */
  th_config(&cfg, CH, 3 * CH);
  th_init(&cfg);
  CHECK(th_chunk() == CH);
  enum { N = 24 };
  unsigned char *m[N];
  size_t mb[N];
  unsigned char *shadow[N];
  for (int i = 0; i < N; i++) {
    mb[i] = i % 3 == 0 ? CH + 1 + th_below(CH - 1) : 64 + th_below(CH);
    CHECK_OK(tidal_malloc_grouped((void **)&m[i], mb[i], ARENA(3 + (unsigned)(i % 4))));
    shadow[i] = malloc(mb[i]);
    CHECK(shadow[i]);
    write_all(m[i], mb[i], shadow[i], 100 + (uint64_t)i);
  }
  /* Fewer rounds with bigger chunks (each moves up to two chunks). */
  const int rounds = CH > 65536 ? 300 : 2000;
  for (int step = 0; step < rounds; step++) {
    int i = (int)th_below(N);
    switch (th_below(5)) {
    case 0: write_all(m[i], mb[i], shadow[i], (uint64_t)step * N + (uint64_t)i); break;
    case 1: CHECK_OK(tidal_swap_out(m[i], mb[i])); break;
    case 2: CHECK_OK(tidal_prefetch(m[i], mb[i])); break;
    case 3: /* dead until rewritten: a drop, then the rewrite */
      CHECK_OK(tidal_drop(m[i], mb[i]));
      write_all(m[i], mb[i], shadow[i], (uint64_t)step * N + (uint64_t)i + 7);
      break;
    default: check_all(m[i], mb[i], shadow[i]);
    }
    CHECK(th_stats().resident_bytes <= 3 * CH);
  }
  for (int i = 0; i < N; i++)
    check_all(m[i], mb[i], shadow[i]);
  th_check_host("after the arena rounds");

  for (int i = 0; i < N; i += 2) {
    CHECK_OK(tidal_free(m[i]));
    free(shadow[i]);
  }
  for (int i = 1; i < N; i += 2)
    check_all(m[i], mb[i], shadow[i]);
  th_check_host("after freeing");

  /* Too big for an arena (more than half of TIDAL_ARENA_CHUNKS): a plain
   * allocation, on a chunk boundary; a full arena opens another. */
  unsigned char *big, *after;
  CHECK_OK(tidal_malloc_grouped((void **)&big, (TIDAL_ARENA_CHUNKS / 2 + 1) * CH, ARENA(9)));
  CHECK((uintptr_t)big % CH == 0);
  unsigned char *fill[3];
  for (int k = 0; k < 3; k++)
    CHECK_OK(tidal_malloc_grouped((void **)&fill[k], (TIDAL_ARENA_CHUNKS / 2 - 2) * CH, ARENA(10)));
  CHECK(fill[1] == fill[0] + (TIDAL_ARENA_CHUNKS / 2 - 2) * CH);
  CHECK(fill[2] != fill[1] + (TIDAL_ARENA_CHUNKS / 2 - 2) * CH); /* did not fit: another arena */
  CHECK_OK(tidal_malloc_grouped((void **)&after, 100, ARENA(10)));
  CHECK(after == fill[2] + (TIDAL_ARENA_CHUNKS / 2 - 2) * CH);
  write_all(after, 100, ss, 11);
  check_all(after, 100, ss);
  CHECK_OK(tidal_free(big));
  for (int k = 0; k < 3; k++)
    CHECK_OK(tidal_free(fill[k]));
  th_check_host("at the end");
  CHECK_OK(tidal_shutdown()); /* frees what is left (members of live arenas included) */
  for (int i = 1; i < N; i += 2)
    free(shadow[i]);
  free(xs), free(ys), free(ss), free(tmp);
  printf("ok\n");
  return 0;
}
