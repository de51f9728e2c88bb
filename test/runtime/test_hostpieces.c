/* test_hostpieces.c - the host store grows by a second piece while every
 * slot of the first is in use, then all of them come back: the free list
 * must hold every slot ever carved out (it once held only the slots free at
 * the time of the growth plus one piece, and freeing everything overflowed
 * it - found replaying a GPT with 4 KiB chunks).  Checks Note [host slot
 * ownership] after each phase and the data after the round trip.
 *
 * Then the store must not grow while what it holds does not: chunks swapped
 * out, faulted back in and overwritten, over and over, give their slots up
 * while the restore's copy may still read them (pending, Note [deferred
 * slot free]); those must be reaped before a new slot is placed at the
 * store's end (Note [reap before the end]).  Before, they never were while
 * room at the end lasted, and the store doubled again and again: 3.35 GB
 * pinned for a 1.5 GB program in the replay of the gpt variant. */
#include "testhelp.h"

/* Library internals (hoststore.c). */
size_t rt_host_pinned_bytes(void);

static const tidal_site site = {"pieces_op", __FILE__, __LINE__, 0};
#define PIECE_BYTES ((size_t)64 << 20) /* RT_HOST_PIECE_MIN_BYTES */
#define OP_CHUNKS 4

/* Writes (salt) or checks t, OP_CHUNKS chunks per op. */
static void sweep(unsigned char *t, size_t bytes, size_t ch, uint64_t salt, int write) {
  unsigned char *h = malloc(OP_CHUNKS * ch), *want = malloc(OP_CHUNKS * ch);
  for (size_t off = 0; off < bytes; off += OP_CHUNKS * ch) {
    size_t n = bytes - off < OP_CHUNKS * ch ? bytes - off : OP_CHUNKS * ch;
    th_fill_pattern(want, n, salt + off / ch);
    tidal_access a = {t + off, n, write ? TIDAL_WRITE : TIDAL_READ};
    CHECK_OK(tidal_op_begin(&site, 1, &a));
    if (write) {
      th_put(t + off, want, n);
    } else {
      th_get(h, t + off, n);
      if (memcmp(h, want, n) != 0)
        TH_FAIL("chunk %zu lost its data", off / ch);
    }
    CHECK_OK(tidal_op_end(&site));
  }
  free(h);
  free(want);
}

int main(int argc, char **argv) {
  th_seed_init(argc, argv);
  tidal_config cfg;
  th_config(&cfg, 4096, 4096 * 8);
  size_t ch = cfg.chunk_bytes;
  cfg.host_budget_bytes = 2 * PIECE_BYTES; /* two pieces of PIECE_BYTES / ch slots */
  th_init(&cfg);
  size_t per_piece = PIECE_BYTES / ch;
  size_t bytes = (per_piece + 16) * ch; /* spills into the second piece */
  unsigned char *t;
  CHECK_OK(tidal_malloc((void **)&t, bytes));
  sweep(t, bytes, ch, 1, 1); /* all but the last 8 chunks go to the host */
  CHECK_OK(tidal_synchronize());
  th_check_host("after the store grew with the first piece full");
  tidal_stats s = th_stats();
  CHECK(s.total.swapped_out_bytes >= (per_piece + 1) * ch); /* the second piece is in use */
  sweep(t, bytes, ch, 1, 0);
  th_check_host("after reading everything back");
  CHECK_OK(tidal_free(t)); /* every slot goes back to the free list */
  th_check_host("after the free");
  /* The store is whole again: a second round uses both pieces. */
  CHECK_OK(tidal_malloc((void **)&t, bytes));
  sweep(t, bytes, ch, 7, 1);
  CHECK_OK(tidal_synchronize());
  sweep(t, bytes, ch, 7, 0);
  th_check_host("after the second round");
  CHECK_OK(tidal_free(t));
  th_check_host("after the second free");

  CHECK_OK(tidal_shutdown());

  /* Churn, with room to grow (8 pieces): the allocation is read back (its
   * chunks faulted in; the host keeps no wait on those copies) and then
   * overwritten (their host copies given up, pending), 8 times.  It never
   * holds more than `bytes`, so the store, doubling, needs at most twice
   * that (Note [host store sizing]). */
  th_config(&cfg, 4096, 4096 * 8);
  ch = cfg.chunk_bytes;
  cfg.host_budget_bytes = 8 * PIECE_BYTES;
  th_init(&cfg);
  per_piece = PIECE_BYTES / ch;
  bytes = (per_piece / 2) * ch; /* half the first piece */
  CHECK_OK(tidal_malloc((void **)&t, bytes));
  sweep(t, bytes, ch, 11, 1);
  for (int round = 0; round < 8; round++) {
    sweep(t, bytes, ch, 11 + (uint64_t)round, 0);
    sweep(t, bytes, ch, 12 + (uint64_t)round, 1);
  }
  CHECK_OK(tidal_synchronize());
  th_check_host("after the churn");
  if (rt_host_pinned_bytes() > 2 * bytes + PIECE_BYTES)
    TH_FAIL("the host store grew to %zu bytes while the program held at most %zu",
            rt_host_pinned_bytes(), bytes);
  CHECK_OK(tidal_free(t));
  CHECK_OK(tidal_shutdown());
  printf("ok\n");
  return 0;
}
