/* test_smallpool.c - allocations smaller than a chunk are packed into slabs
 * that move as units (Note [lifetime-aware pool], suballoc.c): many small
 * tensors run under a budget far below their total without losing a byte,
 * evicted slabs fault when touched outside an op (sim), members pack in
 * allocation order or by group, freed space is reused, and a slab an open
 * op pins cannot be freed away. */
#include "testhelp.h"
#include <sys/wait.h>

/* Sizes follow the chunk the runtime runs with (4 KiB asked for; 2 MiB on
 * a GPU and in runtime.chunk2m.smallpool): four members of SMALL bytes
 * fill a slab (1000 of 1024 at 4 KiB). */
enum { N = 48 };
static size_t CH, SMALL;
static const tidal_site site = {"small_op", "smallpool.c", 1, 1e-6};

static void write_member(unsigned char *p, unsigned char *shadow, uint64_t salt) {
  th_op_write(&site, p, SMALL, shadow, salt);
}

static void check_member(unsigned char *p, const unsigned char *shadow) {
  th_op_check(&site, p, SMALL, shadow);
}

static uintptr_t chunk_of(const void *p) { return (uintptr_t)p / CH; }

int main(int argc, char **argv) {
  th_seed_init(argc, argv);
  tidal_config cfg;
  th_config(&cfg, 4096, 3 * 4096);
  th_init(&cfg);
  CH = th_chunk();
  SMALL = CH / 4 - 24;
  /* 12 slabs of small tensors (48 KB at 4 KiB chunks) under a 3-slab budget. */
  unsigned char *t[N], *shadow[N];
  for (int i = 0; i < N; i++) {
    CHECK_OK(tidal_malloc((void **)&t[i], SMALL));
    CHECK((shadow[i] = malloc(SMALL)) != NULL);
  }
  /* Allocation order: four members (aligned to a quarter chunk) per slab. */
  CHECK(chunk_of(t[0]) == chunk_of(t[1]) && chunk_of(t[0]) == chunk_of(t[3]));
  CHECK(chunk_of(t[3]) != chunk_of(t[4]));
  CHECK((uintptr_t)t[1] - (uintptr_t)t[0] == CH / 4);
  for (int i = 0; i < N; i++)
    write_member(t[i], shadow[i], (uint64_t)i);
  tidal_stats s = th_stats();
  CHECK(s.total.peak_resident_bytes <= 3 * CH);
  CHECK(s.total.swapped_out_bytes > 0);
  /* Fewer rounds with bigger chunks: each one moves a quarter chunk and
   * evicts whole ones (a 2 MiB slab costs what 512 of 4 KiB do). */
  const int rounds = CH > 65536 ? 600 : 3000;
  for (int step = 0; step < rounds; step++) {
    int i = (int)th_below(N);
    if (th_below(3) == 0)
      write_member(t[i], shadow[i], (uint64_t)step * N + (uint64_t)i);
    else
      check_member(t[i], shadow[i]);
    if (th_below(4) == 0) { /* an op over three members, maybe of three slabs */
      tidal_access a[3];
      for (int k = 0; k < 3; k++)
        a[k] = (tidal_access){t[th_below(N)], SMALL, TIDAL_READ};
      CHECK_OK(tidal_op_begin(&site, 3, a));
      CHECK_OK(tidal_op_end(&site));
    }
    CHECK(th_stats().resident_bytes <= 3 * CH);
  }
  for (int i = 0; i < N; i++)
    check_member(t[i], shadow[i]);
  th_check_host("after the small-allocation rounds");

  /* Four members of four slabs in one op: 4 chunks > the 3-chunk budget. */
  tidal_access four[4] = {{t[0], SMALL, TIDAL_READ}, {t[4], SMALL, TIDAL_READ},
                          {t[8], SMALL, TIDAL_READ}, {t[12], SMALL, TIDAL_READ}};
  CHECK_STATUS(tidal_op_begin(&site, 4, four), TIDAL_ERR_BUDGET);
  CHECK_OK(tidal_op_begin(&site, 3, four)); /* three fit */
  CHECK_OK(tidal_op_end(&site));

#ifndef TH_GPU
  /* An evicted slab is PROT_NONE: touching a member outside an op faults. */
  CHECK_OK(tidal_op_begin(&site, 3, four + 1)); /* evicts t[0]'s slab (LRU) */
  CHECK_OK(tidal_op_end(&site));
  pid_t pid = fork();
  if (pid == 0) {
    volatile unsigned char x = t[0][0];
    (void)x;
    _exit(0);
  }
  int st;
  CHECK(waitpid(pid, &st, 0) == pid && WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV);
#endif

  /* Groups: members of different groups never share a slab. */
  unsigned char *g1[3], *g2[3];
  for (int k = 0; k < 3; k++) {
    CHECK_OK(tidal_malloc_grouped((void **)&g1[k], 512, 1));
    CHECK_OK(tidal_malloc_grouped((void **)&g2[k], 512, 2));
  }
  for (int k = 0; k < 3; k++)
    for (int j = 0; j < 3; j++)
      CHECK(chunk_of(g1[k]) != chunk_of(g2[j]));
  CHECK(chunk_of(g1[0]) == chunk_of(g1[2]) && chunk_of(g2[0]) == chunk_of(g2[2]));

  /* A freed member's space is reused first-fit within its group. */
  unsigned char *old = g1[1], *again;
  CHECK_OK(tidal_free(g1[1]));
  CHECK_OK(tidal_malloc_grouped((void **)&again, 300, 1));
  CHECK(again == old);

  /* The last member of a slab an open op pins cannot be freed; another
   * member of a pinned slab can. */
  unsigned char *lone;
  CHECK_OK(tidal_malloc_grouped((void **)&lone, 100, 7));
  tidal_access la = {lone, 100, TIDAL_WRITE};
  CHECK_OK(tidal_op_begin(&site, 1, &la));
  CHECK_STATUS(tidal_free(lone), TIDAL_ERR_INVALID);
  CHECK_OK(tidal_op_end(&site));
  CHECK_OK(tidal_free(lone));
  tidal_access ga = {g2[0], 512, TIDAL_WRITE};
  CHECK_OK(tidal_op_begin(&site, 1, &ga));
  CHECK_OK(tidal_free(g2[1]));
  CHECK_OK(tidal_op_end(&site));

  for (int i = 0; i < N; i++)
    CHECK_OK(tidal_free(t[i]));
  th_check_host("after freeing");
  CHECK_OK(tidal_shutdown());

  /* Hints on members (Note [hints on packed allocations]): the slab goes
   * only once every member is idle; dropped when all are dead. */
  th_config(&cfg, CH, 16 * CH);
  th_init(&cfg);
  CHECK(th_chunk() == CH);
  unsigned char *m[4], *mv[4];
  for (int i = 0; i < 4; i++) {
    CHECK((mv[i] = malloc(SMALL)) != NULL);
    CHECK_OK(tidal_malloc((void **)&m[i], SMALL));
    write_member(m[i], mv[i], 100 + (uint64_t)i);
  }
  CHECK(chunk_of(m[0]) == chunk_of(m[3])); /* one slab */
  tidal_stats h0 = th_stats();
  for (int i = 0; i < 3; i++)
    CHECK_OK(tidal_swap_out(m[i], SMALL));
  CHECK(th_stats().total.swapped_out_bytes == h0.total.swapped_out_bytes); /* m[3] may be used */
  check_member(m[0], mv[0]); /* in use again: m[0] is no longer idle */
  CHECK_OK(tidal_swap_out(m[3], SMALL));
  CHECK(th_stats().total.swapped_out_bytes == h0.total.swapped_out_bytes);
  CHECK_OK(tidal_swap_out(m[0], SMALL)); /* now all four are cold */
  CHECK_OK(tidal_synchronize());
  CHECK_OK(rt_release_parked()); /* its memory taken, as pressure would (Note [lazy unmap]) */
  tidal_stats h1 = th_stats();
  CHECK(h1.total.swapped_out_bytes == h0.total.swapped_out_bytes + CH);
  CHECK(h1.resident_bytes == 0);
  CHECK_OK(tidal_prefetch(m[2], SMALL)); /* prefetch applies to the slab at once */
  CHECK(th_stats().total.prefetched_bytes == h1.total.prefetched_bytes + CH);
  for (int i = 0; i < 4; i++)
    check_member(m[i], mv[i]);
  /* Three dead and one cold: swapped, not dropped (the cold one's data). */
  for (int i = 0; i < 3; i++)
    CHECK_OK(tidal_drop(m[i], SMALL));
  CHECK_OK(tidal_swap_out(m[3], SMALL));
  CHECK_OK(tidal_synchronize());
  tidal_stats h2 = th_stats();
  CHECK(h2.total.dropped_bytes == h1.total.dropped_bytes);
  check_member(m[3], mv[3]);
  for (int i = 0; i < 3; i++) /* declared again: in use, no longer dead */
    write_member(m[i], mv[i], 200 + (uint64_t)i);
  /* All dead: dropped without a copy; a partial drop marks nothing. */
  CHECK_OK(tidal_drop(m[0], SMALL / 2));
  for (int i = 1; i < 4; i++)
    CHECK_OK(tidal_drop(m[i], SMALL));
  CHECK(th_stats().total.dropped_bytes == h2.total.dropped_bytes);
  CHECK_OK(tidal_drop(m[0], SMALL));
  tidal_stats h3 = th_stats();
  CHECK(h3.total.dropped_bytes == h2.total.dropped_bytes + CH);
  CHECK(h3.total.swapped_out_bytes == h2.total.swapped_out_bytes);
  for (int i = 0; i < 4; i++) {
    CHECK_OK(tidal_free(m[i]));
    free(mv[i]);
  }
  for (int i = 0; i < N; i++)
    free(shadow[i]);
  CHECK_OK(tidal_shutdown());
  printf("ok\n");
  return 0;
}
