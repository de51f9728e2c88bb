/* pack_arena.c - which small allocations go in a medium tensor's arena,
 * and how many chunks each op then needs (pack_arena.h; pack.c decides).
 *
 * Note [arenas for medium tensors]: an allocation of a chunk or more gets
 * whole chunks of its own, so the tail of its last chunk (nchunks * chunk
 * - bytes) holds nothing, while the small buffers the same ops use sit in
 * slabs: a chunk more each.  cuDNN LeNet's pooling backward reads conv1
 * and dpool1 (2.8 MiB, two chunks each) and pool1 and dconv2 (720 KiB,
 * in slabs): six chunks resident for one op, over a four-chunk budget;
 * with pool1 in conv1's tail and dconv2 in dpool1's, four.  An arena
 * (TIDAL_GROUP_ARENA, include/tidal.h) lays its members out one after
 * another, 256-byte aligned, so they share chunks at their boundaries.
 *  - Mediums: persistent allocations (the arena lays members out in
 *    allocation order and is for buffers that live through the loop),
 *    touched by an op, of one to PACK_ARENA_MAX_CHUNKS chunks (the
 *    runtime gives a member bigger than half an arena a plain
 *    allocation) whose tail holds at least one aligned member.
 *  - Partners of a medium M: small persistent allocations some op uses
 *    together with M.  Over all (M, partner) pairs, most ops shared first,
 *    then larger partners, a partner joins M's arena when the aligned
 *    sizes of M and its partners still fit in M's own chunks: then the
 *    arena costs no chunk more than M alone in any allocation order (a
 *    partner allocated before M shifts M by no more than the room left).
 *    A partner joins one arena at most, and leaves the slab search.
 * Taking a partner out of the slab search is not always a gain: an op
 * that uses it without M now needs the arena's chunk besides the slabs of
 * its other small operands, which it may have shared one slab with.  And
 * members share chunks, so a hint on one evicts a shared chunk only once
 * its neighbours are hinted too (runtime, Note [partial-chunk hints]): on
 * the gpt sample, arenas that only lowered the sum of the working sets cost
 * 5% of modelled step time at the same budget (2.14 against 2.03 at
 * 18 MiB).  So an arena is worth it where it lowers the least budget its
 * ops can run in: pack.c keeps arena k only when, among the ops touching
 * its members, the largest working set falls and their sum does not grow,
 * and keeps the arenas only when
 * no op's working set then exceeds the largest without them (working sets
 * as computed here: each op's medium and large operands' chunks, one chunk
 * per arena it reaches only through partners, one per distinct slab). */
#include "plan/pack_arena.h"

#include <stdlib.h>
#include <string.h>

#include "plan/pack.h" /* PACK_ALIGN, pack_aligned */
#include "tidal.h"     /* TIDAL_ARENA_CHUNKS */

/* the runtime gives a member bigger than half an arena a plain allocation */
#define PACK_ARENA_MAX_CHUNKS (TIDAL_ARENA_CHUNKS / 2u)

static uint64_t chunks_of(uint64_t b, uint64_t chunk) { return (b + chunk - 1) / chunk; }

typedef struct pair {
  int medium, partner;
  int shared;        /* ops using both */
  uint64_t heaviest; /* the largest working set (chunks) among those ops */
  uint64_t size;     /* the partner's aligned bytes */
} pair;

static int cmp_pair(const void *x, const void *y) {
  const pair *a = x, *b = y;
  if (a->medium != b->medium) return a->medium < b->medium ? -1 : 1;
  return (a->partner > b->partner) - (a->partner < b->partner);
}

/* Pairs of the heaviest op first, then most shared ops, then the larger
 * partner, then allocation order. */
static int cmp_pair_rank(const void *x, const void *y) {
  const pair *a = x, *b = y;
  if (a->heaviest != b->heaviest) return a->heaviest > b->heaviest ? -1 : 1;
  if (a->shared != b->shared) return a->shared > b->shared ? -1 : 1;
  if (a->size != b->size) return a->size > b->size ? -1 : 1;
  return cmp_pair(x, y);
}

/* The distinct allocations op o touches, into v (n_allocs room); their count. */
static int op_allocs(const tidal_trace *t, int o, int *v, int *stamp) {
  int n = 0;
  for (int k = 0; k < t->ops[o].n_acc; k++) {
    int a = t->tensors[t->ops[o].acc[k].tensor].alloc;
    if (a < 0 || stamp[a] == o) continue;
    stamp[a] = o;
    v[n++] = a;
  }
  return n;
}

int pack_arenas_propose(const tidal_trace *t, uint64_t chunk, const uint64_t *ws,
                        pack_arenas *out) {
  memset(out, 0, sizeof *out);
  int na = t->n_allocs, rc = -1, np = 0, cap = 0;
  int *stamp = malloc(((size_t)na + 1) * sizeof *stamp);
  int *v = malloc(((size_t)na + 1) * sizeof *v);
  unsigned char *touched = calloc((size_t)na + 1, 1);
  uint64_t *room = calloc((size_t)na + 1, sizeof *room);
  pair *pairs = NULL;
  out->arena_of = malloc(((size_t)na + 1) * sizeof *out->arena_of);
  out->medium = malloc(((size_t)na + 1) * sizeof *out->medium);
  if (!stamp || !v || !touched || !room || !out->arena_of || !out->medium) goto out;
  out->n_allocs = na;
  for (int a = 0; a < na; a++) {
    stamp[a] = -1;
    out->arena_of[a] = -1;
  }
  for (int o = 0; o < t->n_ops; o++)
    for (int k = 0; k < t->ops[o].n_acc; k++) {
      int a = t->tensors[t->ops[o].acc[k].tensor].alloc;
      if (a >= 0) touched[a] = 1;
    }
  /* room[a] > 0 marks a medium: the bytes its chunk rounding leaves. */
  for (int a = 0; a < na; a++) {
    uint64_t b = t->allocs[a].bytes, n = chunks_of(b, chunk);
    if (!t->allocs[a].persistent || !touched[a] || b < chunk || n > PACK_ARENA_MAX_CHUNKS)
      continue;
    if (n * chunk >= pack_aligned(b) + PACK_ALIGN) room[a] = n * chunk - pack_aligned(b);
  }
  /* Every (medium, small persistent) pair an op uses, once per op. */
  for (int o = 0; o < t->n_ops; o++) {
    int n = op_allocs(t, o, v, stamp);
    for (int i = 0; i < n; i++) {
      if (!room[v[i]]) continue;
      for (int j = 0; j < n; j++) {
        const trace_alloc *p = &t->allocs[v[j]];
        if (!p->persistent || p->bytes == 0 || p->bytes >= chunk || pack_aligned(p->bytes) > room[v[i]])
          continue;
        if (np == cap) {
          int nc = cap ? 2 * cap : 64;
          pair *q = realloc(pairs, (size_t)nc * sizeof *q);
          if (!q) goto out;
          pairs = q;
          cap = nc;
        }
        pairs[np++] = (pair){v[i], v[j], 1, ws ? ws[o] : 0, pack_aligned(p->bytes)};
      }
    }
  }
  if (np) qsort(pairs, (size_t)np, sizeof *pairs, cmp_pair);
  int w = 0; /* merge repeats into counts of shared ops */
  for (int r = 0; r < np; r++) {
    if (w > 0 && cmp_pair(&pairs[w - 1], &pairs[r]) == 0) {
      pairs[w - 1].shared++;
      if (pairs[r].heaviest > pairs[w - 1].heaviest) pairs[w - 1].heaviest = pairs[r].heaviest;
    } else {
      pairs[w++] = pairs[r];
    }
  }
  np = w;
  if (np) qsort(pairs, (size_t)np, sizeof *pairs, cmp_pair_rank);
  /* Greedy; a medium's arena number is settled below. */
  for (int r = 0; r < np; r++) {
    pair *p = &pairs[r];
    if (out->arena_of[p->partner] >= 0 || p->size > room[p->medium]) continue;
    room[p->medium] -= p->size;
    out->arena_of[p->partner] = p->medium;
    out->arena_of[p->medium] = p->medium; /* provisional: the medium's index */
  }
  for (int a = 0; a < na; a++)
    if (out->arena_of[a] == a) {
      out->medium[out->n] = a;
      stamp[a] = out->n++;
    }
  for (int a = 0; a < na; a++)
    if (out->arena_of[a] >= 0) out->arena_of[a] = stamp[out->arena_of[a]];
  rc = 0;
out:
  if (rc != 0) pack_arenas_free(out);
  free(stamp);
  free(v);
  free(touched);
  free(room);
  free(pairs);
  return rc;
}

void pack_arenas_keep(pack_arenas *a, const unsigned char *keep) {
  int n = 0;
  for (int k = 0; k < a->n; k++)
    if (keep[k]) a->medium[n++] = a->medium[k];
  for (int x = 0; x < a->n_allocs; x++) {
    int k = a->arena_of[x], r = 0;
    if (k < 0) continue;
    for (int j = 0; j < k; j++) r += keep[j] != 0; /* kept arenas before k */
    a->arena_of[x] = keep[k] ? r : -1;
  }
  a->n = n;
}

int pack_working_sets(const tidal_trace *t, uint64_t chunk, const pack_arenas *ar,
                      const unsigned *g, uint64_t *ws) {
  int na = t->n_allocs, narena = ar ? ar->n : 0, rc = -1;
  unsigned maxg = 0;
  for (int a = 0; a < na; a++)
    if (g[a] > maxg) maxg = g[a];
  /* Slab ids: group g is slab g; the group-0 small allocations get the
   * slabs the runtime's allocation-order packing would give them,
   * estimated first-fit (newest slab first) from maxg + 1 on. */
  size_t nslab = (size_t)maxg + (size_t)na + 2;
  int *slab = malloc(((size_t)na + 1) * sizeof *slab);
  uint64_t *load = calloc((size_t)na + 1, sizeof *load);
  int *stamp = malloc(((size_t)na + 1) * sizeof *stamp);
  int *v = malloc(((size_t)na + 1) * sizeof *v);
  int *sstamp = malloc(nslab * sizeof *sstamp);
  int *direct = malloc(((size_t)narena + 1) * sizeof *direct);
  int *counted = malloc(((size_t)narena + 1) * sizeof *counted);
  if (!slab || !load || !stamp || !v || !sstamp || !direct || !counted) goto out;
  int n0 = 0;
  for (int a = 0; a < na; a++) {
    uint64_t b = t->allocs[a].bytes;
    stamp[a] = -1;
    slab[a] = -1;
    if (b == 0 || b >= chunk || (ar && ar->arena_of[a] >= 0)) continue;
    if (g[a]) {
      slab[a] = (int)g[a];
      continue;
    }
    uint64_t s = pack_aligned(b);
    int k = n0 - 1;
    while (k >= 0 && load[k] + s > chunk) k--;
    if (k < 0) k = n0++;
    load[k] += s;
    slab[a] = (int)maxg + 1 + k;
  }
  for (size_t s = 0; s < nslab; s++) sstamp[s] = -1;
  for (int k = 0; k < narena; k++) direct[k] = counted[k] = -1;
  for (int o = 0; o < t->n_ops; o++) {
    int n = op_allocs(t, o, v, stamp);
    uint64_t c = 0;
    for (int i = 0; i < n; i++) {
      int a = v[i], k = ar ? ar->arena_of[a] : -1;
      uint64_t b = t->allocs[a].bytes;
      if (b >= chunk) {
        c += chunks_of(b, chunk);
        if (k >= 0) direct[k] = o;
      } else if (slab[a] >= 0 && sstamp[slab[a]] != o) {
        sstamp[slab[a]] = o;
        c++;
      }
    }
    for (int i = 0; i < n; i++) { /* arenas reached only through a partner */
      int k = ar ? ar->arena_of[v[i]] : -1;
      if (k < 0 || direct[k] == o || counted[k] == o) continue;
      counted[k] = o;
      c++;
    }
    ws[o] = c;
  }
  rc = 0;
out:
  free(slab);
  free(load);
  free(stamp);
  free(v);
  free(sstamp);
  free(direct);
  free(counted);
  return rc;
}

void pack_arenas_free(pack_arenas *a) {
  free(a->arena_of);
  free(a->medium);
  memset(a, 0, sizeof *a);
}
