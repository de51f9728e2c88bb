/* test_roundtrip.c - property test: thousands of random op / swap-out /
 * prefetch / drop / keep sequences, data bit-identical throughout.
 *
 * A host shadow holds what every byte must contain, with a "defined" flag
 * per byte (tidal_drop makes its range undefined).  After every
 * tidal_op_begin every declared, defined byte is compared with the shadow;
 * writes update both.  Resident bytes are checked against the budget after
 * every call.  Each round uses a fresh runtime, alternating the threaded and
 * the synchronous sim copy engine. */
#include "testhelp.h"

#define NALLOC 7
#define STEPS 5000
#define ROUNDS 4

typedef struct shadow {
  unsigned char *dev;
  size_t bytes;
  unsigned char *data;
  unsigned char *defined;
} shadow;

static shadow sh[NALLOC];
static size_t CH;
static unsigned char *scratch;

static void random_range(const shadow *s, size_t max_bytes, size_t *off, size_t *len) {
  *off = th_below(s->bytes);
  size_t room = s->bytes - *off;
  if (room > max_bytes)
    room = max_bytes;
  switch (th_below(4)) {
  case 0: *len = room; break;                              /* to the end (or the cap) */
  case 1: *off -= *off % CH; *len = room < CH ? room : CH; break; /* one whole chunk */
  default: *len = 1 + th_below(room); break;
  }
}

static void verify(const shadow *s, size_t off, size_t len, const char *what) {
  th_get(scratch, s->dev + off, len);
  for (size_t i = 0; i < len; i++)
    if (s->defined[off + i] && scratch[i] != s->data[off + i])
      TH_FAIL("%s: byte %zu of the %zu-byte allocation is %u, expected %u", what, off + i,
              s->bytes, scratch[i], s->data[off + i]);
}

static void check_budget(void) {
  tidal_stats st = th_stats();
  CHECK(st.resident_bytes <= st.budget_bytes);
  CHECK(st.total.peak_resident_bytes <= st.budget_bytes);
}

static void one_round(int synchronous) {
  tidal_config cfg;
  th_config(&cfg, 4096, 4096 * 26);
  cfg.sim_synchronous = synchronous;
  CH = cfg.chunk_bytes;
  th_init(&cfg);
  size_t max_access = 7 * CH; /* 3 accesses * 8 chunks + 2 slabs = the 26-chunk budget */
  for (int i = 0; i < NALLOC; i++) {
    /* two small (packed) allocations, the rest 1..12 chunks with a tail */
    size_t bytes = i < 2 ? 1 + th_below(CH - 1) : CH * (1 + th_below(16)) + th_below(CH);
    sh[i].bytes = bytes;
    CHECK_OK(tidal_malloc((void **)&sh[i].dev, bytes));
    sh[i].data = malloc(bytes);
    sh[i].defined = calloc(bytes, 1);
    CHECK(sh[i].data && sh[i].defined);
  }
  static const tidal_site site = {"roundtrip_op", __FILE__, __LINE__, 1e-5};
  for (int step = 0; step < STEPS; step++) {
    shadow *s = &sh[th_below(NALLOC)];
    size_t off, len;
    random_range(s, max_access, &off, &len);
    int action = (int)th_below(10);
    if (action < 5) { /* an op with 1..3 accesses */
      tidal_access acc[3];
      shadow *who[3];
      int n = 1 + (int)th_below(3);
      for (int k = 0; k < n; k++) {
        who[k] = k == 0 ? s : &sh[th_below(NALLOC)];
        size_t o, l;
        if (k == 0) {
          o = off;
          l = len;
        } else {
          random_range(who[k], max_access, &o, &l);
        }
        acc[k].ptr = who[k]->dev + o;
        acc[k].bytes = (o + l == who[k]->bytes && th_below(2)) ? TIDAL_EXTENT_UNKNOWN : l;
        acc[k].mode = (tidal_mode)(1 + th_below(3));
      }
      CHECK_OK(tidal_op_begin(&site, n, acc));
      for (int k = 0; k < n; k++) { /* every declared byte readable and current */
        size_t o = (size_t)((const unsigned char *)acc[k].ptr - who[k]->dev);
        size_t l = acc[k].bytes == TIDAL_EXTENT_UNKNOWN ? who[k]->bytes - o : acc[k].bytes;
        if (acc[k].mode & TIDAL_READ)
          verify(who[k], o, l, "after op_begin");
      }
      for (int k = 0; k < n; k++) { /* then write what the op declares writing */
        if (!(acc[k].mode & TIDAL_WRITE))
          continue;
        size_t o = (size_t)((const unsigned char *)acc[k].ptr - who[k]->dev);
        size_t l = acc[k].bytes == TIDAL_EXTENT_UNKNOWN ? who[k]->bytes - o : acc[k].bytes;
        for (size_t i = 0; i < l; i++)
          scratch[i] = (unsigned char)th_rand();
        th_put(who[k]->dev + o, scratch, l);
        memcpy(who[k]->data + o, scratch, l);
        memset(who[k]->defined + o, 1, l);
      }
      CHECK_OK(tidal_op_end(&site));
    } else if (action < 7) {
      CHECK_OK(tidal_swap_out(s->dev + off, len));
    } else if (action < 9) {
      CHECK_OK(tidal_prefetch(s->dev + off, len));
    } else if (th_below(3) == 0) {
      CHECK_OK(tidal_drop(s->dev + off, len));
      memset(s->defined + off, 0, len); /* contents dead; bytes outside must survive */
    } else if (th_below(2)) {
      CHECK_OK(tidal_keep(s->dev + off, len));
    } else if (th_below(2)) {
      CHECK_OK(tidal_synchronize());
      CHECK_OK(rt_release_parked()); /* as pressure would: copies back get exercised */
    } else {
      CHECK_OK(tidal_iteration_end());
      CHECK_OK(tidal_iteration_begin());
    }
    check_budget();
  }
  /* Everything defined is still there at the end. */
  for (int i = 0; i < NALLOC; i++) {
    tidal_access a = {sh[i].dev, TIDAL_EXTENT_UNKNOWN, TIDAL_READ};
    size_t done = 0;
    /* read in budget-sized pieces */
    while (done < sh[i].bytes) {
      size_t l = sh[i].bytes - done < max_access ? sh[i].bytes - done : max_access;
      a.ptr = sh[i].dev + done;
      a.bytes = l;
      CHECK_OK(tidal_op_begin(&site, 1, &a));
      verify(&sh[i], done, l, "final read");
      CHECK_OK(tidal_op_end(&site));
      done += l;
    }
  }
  tidal_stats st = th_stats();
  printf("round (%s copies): swapped out %llu B, in %llu B (prefetched %llu), dropped %llu B, "
         "faults %llu, evictions %llu, peak %llu of %llu B\n",
         synchronous ? "synchronous" : "threaded", (unsigned long long)st.total.swapped_out_bytes,
         (unsigned long long)st.total.swapped_in_bytes,
         (unsigned long long)st.total.prefetched_bytes, (unsigned long long)st.total.dropped_bytes,
         (unsigned long long)st.total.faults, (unsigned long long)st.total.evictions,
         (unsigned long long)st.total.peak_resident_bytes, (unsigned long long)st.budget_bytes);
  CHECK(st.total.swapped_out_bytes > 0 && st.total.faults > 0 && st.total.prefetched_bytes > 0);
  for (int i = 0; i < NALLOC; i++) {
    CHECK_OK(tidal_free(sh[i].dev));
    free(sh[i].data);
    free(sh[i].defined);
  }
  CHECK_OK(tidal_shutdown());
}

int main(int argc, char **argv) {
  th_seed_init(argc, argv);
  scratch = malloc((size_t)64 << 20);
  CHECK(scratch);
  for (int r = 0; r < ROUNDS; r++)
    one_round(r & 1);
  free(scratch);
  printf("ok\n");
  return 0;
}
