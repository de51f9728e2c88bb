/* pack.c - packing groups for allocations smaller than a chunk (pack.h).
 *
 * Note [packing small allocations]: items are the small allocations some
 * op touches, sized as the runtime aligns them (256 bytes); bins are
 * chunks.  Each distinct set of items one op touches must fit in at most m
 * bins (then the op needs m slabs resident, not one per operand).  For
 * m = 1, 2, ... a depth-first search assigns items, largest first, to an
 * existing bin with room (one holding a partner of the item, from one of
 * its sets, first) or else one new bin (the first empty bin only: bins
 * are interchangeable), pruning as soon as a set spans more than m bins;
 * trying existing bins first keeps the bin count low.  After each
 * placement a forward check (completable) rejects it when a set already
 * spanning m bins leaves one of its unplaced items no bin with room:
 * without it, a bad early choice among the big items is only found wrong
 * after every arrangement of the small items placed since (cuda-puzzles'
 * LeNet at 2 MiB chunks ran out of steps for m = 2 that way, and got 3
 * slabs per op where 2 do).  Each m gets a
 * bounded number of search steps, so the cost stays small on any trace;
 * when no m up to PACK_MAX_SPAN succeeds, every group is 0 and the runtime
 * packs in allocation order.  The runtime packs a group's members
 * first-fit in allocation order into its own slabs, so a bin whose items
 * fit in one chunk becomes exactly one slab. */
#include "plan/pack.h"
#include "plan/pack_arena.h"
#include "tidal.h" /* TIDAL_GROUP_ARENA */
#include "graph/graph.h"

#include <stdlib.h>
#include <string.h>

#define PACK_MAX_SPAN 4          /* slabs per op tried, at most */
#define PACK_STEPS 200000L       /* search steps per span */

typedef struct pack_set {
  int n, *items;          /* sorted item numbers */
  int nb;                 /* bins it spans now */
  int bin[PACK_MAX_SPAN]; /* those bins */
  int cnt[PACK_MAX_SPAN]; /* its items in each */
} pack_set;

typedef struct packer {
  int n_items;
  int *alloc;            /* item -> allocation */
  uint64_t *size;        /* item -> aligned bytes */
  int n_sets;
  pack_set *sets;
  int **sets_of;         /* item -> sets containing it, -1 terminated */
  uint64_t cap;
  int span;              /* m */
  int *bin_of;           /* item -> bin, -1 */
  uint64_t *load;        /* bin -> bytes */
  int n_bins;
  long steps;
} packer;

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

static int cmp_set(const void *a, const void *b) {
  const pack_set *x = a, *y = b;
  if (x->n != y->n) return x->n < y->n ? -1 : 1;
  return memcmp(x->items, y->items, (size_t)x->n * sizeof(int));
}

/* One member of set s leaves bin b (counted there): a bin left empty is
 * no longer one the set spans. */
static void set_leave(pack_set *s, int b) {
  int j = 0;
  while (s->bin[j] != b) j++;
  if (--s->cnt[j] == 0) {
    s->bin[j] = s->bin[s->nb - 1];
    s->cnt[j] = s->cnt[s->nb - 1];
    s->nb--;
  }
}

/* Puts item i in bin b if no set then spans more than `span` bins. */
static int place(packer *P, int i, int b) {
  int *ss = P->sets_of[i], k;
  for (k = 0; ss[k] >= 0; k++) {
    pack_set *s = &P->sets[ss[k]];
    int j = 0;
    while (j < s->nb && s->bin[j] != b) j++;
    if (j < s->nb) {
      s->cnt[j]++;
    } else if (s->nb < P->span) {
      s->bin[s->nb] = b;
      s->cnt[s->nb++] = 1;
    } else {
      break;
    }
  }
  if (ss[k] < 0) {
    P->bin_of[i] = b;
    P->load[b] += P->size[i];
    return 1;
  }
  while (k-- > 0) set_leave(&P->sets[ss[k]], b); /* undo the sets already counted */
  return 0;
}

static void unplace(packer *P, int i) {
  int b = P->bin_of[i];
  for (int *ss = P->sets_of[i]; *ss >= 0; ss++) set_leave(&P->sets[*ss], b);
  P->load[b] -= P->size[i];
  P->bin_of[i] = -1;
}

/* Forward check after placing item i (items are placed in order, so
 * i + 1.. are the unplaced ones): a set that already spans `span` bins
 * can take its unplaced items only in those bins, so each unplaced item
 * in such a set needs a bin with room that every such set of its spans.
 * 0 when one has none: no completion exists, and searching the items in
 * between (often many small ones) would discover that only after
 * exponentially many steps.  (Room is checked per item, not jointly.) */
static int completable(const packer *P, int i) {
  for (int j = i + 1; j < P->n_items; j++) {
    int bound = 0, ok = 0;
    for (const int *ss = P->sets_of[j]; *ss >= 0 && !bound; ss++)
      bound = P->sets[*ss].nb >= P->span;
    if (!bound) continue; /* a fresh bin always takes it */
    for (int bin = 0; bin < P->n_bins + 1 && !ok; bin++) {
      if (P->load[bin] + P->size[j] > P->cap) continue;
      ok = 1;
      for (const int *ss = P->sets_of[j]; ok && *ss >= 0; ss++) {
        const pack_set *u = &P->sets[*ss];
        if (u->nb < P->span) continue;
        int in = 0;
        for (int d = 0; d < u->nb && !in; d++) in = u->bin[d] == bin;
        ok = in;
      }
    }
    if (!ok) return 0;
  }
  return 1;
}

/* 1 if bin b holds an item of one of item i's sets. */
static int shares(const packer *P, int i, int b) {
  for (const int *ss = P->sets_of[i]; *ss >= 0; ss++) {
    const pack_set *s = &P->sets[*ss];
    for (int d = 0; d < s->nb; d++)
      if (s->bin[d] == b) return 1;
  }
  return 0;
}

static int search(packer *P, int i);

/* Item i in bin b, then the rest: 1 placed, 0 no way, -1 out of steps. */
static int try_bin(packer *P, int i, int b) {
  if (P->load[b] + P->size[i] > P->cap) return 0;
  int fresh = b == P->n_bins;
  if (!place(P, i, b)) return 0;
  if (!completable(P, i)) {
    unplace(P, i);
    return 0;
  }
  if (fresh) P->n_bins++;
  int r = search(P, i + 1);
  if (r != 0) return r;
  if (fresh) P->n_bins--;
  unplace(P, i);
  return 0;
}

/* 1: items i.. placed; 0: no way; -1: out of steps.  Bins tried: those
 * holding a partner of i (an item of one of its sets) first, then the
 * other bins, then a fresh one. */
static int search(packer *P, int i) {
  if (i == P->n_items) return 1;
  if (++P->steps > PACK_STEPS) return -1;
  for (int pass = 0; pass < 2; pass++)
    for (int b = 0; b < P->n_bins; b++) {
      if (shares(P, i, b) != (pass == 0)) continue;
      int r = try_bin(P, i, b);
      if (r != 0) return r;
    }
  return try_bin(P, i, P->n_bins);
}

static int cmp_size_desc(const void *a, const void *b, void *ud) {
  const uint64_t *size = ud;
  int x = *(const int *)a, y = *(const int *)b;
  if (size[x] != size[y]) return size[x] > size[y] ? -1 : 1;
  return (x > y) - (x < y);
}

/* A small insertion sort with a context (qsort_r is not portable C). */
static void sort_items(int *v, int n, uint64_t *size) {
  for (int i = 1; i < n; i++) {
    int x = v[i], j = i;
    while (j > 0 && cmp_size_desc(&x, &v[j - 1], size) < 0) {
      v[j] = v[j - 1];
      j--;
    }
    v[j] = x;
  }
}

/* The slab search over the small allocations outside arenas `ar` (NULL:
 * none): groups 1.. per bin, 0 elsewhere.  Returns the span found (0 when
 * none or nothing is small), -1 out of memory. */
static int slab_search(const tidal_trace *t, uint64_t chunk_bytes, const pack_arenas *ar,
                       unsigned *groups) {
  memset(groups, 0, (size_t)t->n_allocs * sizeof *groups);
  packer P;
  memset(&P, 0, sizeof P);
  int rc = -1, best = 0;
  int *item_of = malloc(((size_t)t->n_allocs + 1) * sizeof *item_of);
  int *order = malloc(((size_t)t->n_allocs + 1) * sizeof *order);
  uint64_t *asize = calloc((size_t)t->n_allocs + 1, sizeof *asize);
  int *scratch = malloc(((size_t)t->n_allocs + 1) * sizeof *scratch);
  if (!item_of || !order || !asize || !scratch) goto out;
  for (int a = 0; a < t->n_allocs; a++) item_of[a] = -1;
  /* Items: small allocations some op touches, largest first. */
  int n = 0;
  for (int o = 0; o < t->n_ops; o++)
    for (int k = 0; k < t->ops[o].n_acc; k++) {
      int a = t->tensors[t->ops[o].acc[k].tensor].alloc;
      uint64_t b = t->allocs[a].bytes;
      if (b == 0 || b >= chunk_bytes || item_of[a] >= 0 || (ar && ar->arena_of[a] >= 0)) continue;
      item_of[a] = n;
      order[n] = a;
      asize[a] = pack_aligned(b);
      n++;
    }
  if (n == 0) {
    rc = 0;
    goto out;
  }
  sort_items(order, n, asize);
  P.n_items = n;
  P.cap = chunk_bytes;
  P.alloc = malloc((size_t)n * sizeof *P.alloc);
  P.size = malloc((size_t)n * sizeof *P.size);
  P.bin_of = malloc((size_t)n * sizeof *P.bin_of);
  P.load = calloc((size_t)n + 1, sizeof *P.load);
  P.sets = calloc((size_t)t->n_ops + 1, sizeof *P.sets);
  P.sets_of = calloc((size_t)n, sizeof *P.sets_of);
  if (!P.alloc || !P.size || !P.bin_of || !P.load || !P.sets || !P.sets_of) goto out;
  for (int i = 0; i < n; i++) {
    P.alloc[i] = order[i];
    P.size[i] = asize[order[i]];
    item_of[order[i]] = i;
    P.bin_of[i] = -1;
  }
  /* Distinct item sets of the ops. */
  for (int o = 0; o < t->n_ops; o++) {
    int m = 0;
    for (int k = 0; k < t->ops[o].n_acc; k++) {
      int i = item_of[t->tensors[t->ops[o].acc[k].tensor].alloc];
      int dup = i < 0;
      for (int j = 0; j < m && !dup; j++) dup = scratch[j] == i;
      if (!dup) scratch[m++] = i;
    }
    if (m == 0) continue;
    pack_set *s = &P.sets[P.n_sets];
    s->items = malloc((size_t)m * sizeof *s->items);
    if (!s->items) goto out;
    memcpy(s->items, scratch, (size_t)m * sizeof *scratch);
    qsort(s->items, (size_t)m, sizeof *s->items, cmp_int);
    s->n = m;
    P.n_sets++;
  }
  qsort(P.sets, (size_t)P.n_sets, sizeof *P.sets, cmp_set);
  int w = 0;
  for (int r = 0; r < P.n_sets; r++) {
    if (w > 0 && cmp_set(&P.sets[w - 1], &P.sets[r]) == 0) {
      free(P.sets[r].items);
      continue;
    }
    P.sets[w++] = P.sets[r];
  }
  P.n_sets = w;
  /* item -> its sets */
  int *count = calloc((size_t)n, sizeof *count);
  if (!count) goto out;
  for (int s = 0; s < P.n_sets; s++)
    for (int k = 0; k < P.sets[s].n; k++) count[P.sets[s].items[k]]++;
  int fail = 0;
  for (int i = 0; i < n && !fail; i++) {
    P.sets_of[i] = malloc(((size_t)count[i] + 1) * sizeof(int));
    fail = !P.sets_of[i];
    if (!fail) P.sets_of[i][count[i]] = -1;
    count[i] = 0;
  }
  if (fail) {
    free(count);
    goto out;
  }
  for (int s = 0; s < P.n_sets; s++)
    for (int k = 0; k < P.sets[s].n; k++) {
      int i = P.sets[s].items[k];
      P.sets_of[i][count[i]++] = s;
    }
  free(count);
  for (int span = 1; span <= PACK_MAX_SPAN && !best; span++) {
    P.span = span;
    P.steps = 0;
    P.n_bins = 0;
    for (int s = 0; s < P.n_sets; s++) P.sets[s].nb = 0;
    for (int i = 0; i < n; i++) P.bin_of[i] = -1;
    memset(P.load, 0, ((size_t)n + 1) * sizeof *P.load);
    if (search(&P, 0) == 1) {
      best = span;
      for (int i = 0; i < n; i++) groups[P.alloc[i]] = (unsigned)P.bin_of[i] + 1;
    }
  }
  rc = best;
out:
  for (int s = 0; P.sets && s < P.n_sets; s++) free(P.sets[s].items);
  for (int i = 0; P.sets_of && i < P.n_items; i++) free(P.sets_of[i]);
  free(P.sets_of);
  free(P.sets);
  free(P.alloc);
  free(P.size);
  free(P.bin_of);
  free(P.load);
  free(item_of);
  free(order);
  free(asize);
  free(scratch);
  return rc;
}

/* Largest and sum of working sets. */
static void ws_summary(const uint64_t *ws, int n, uint64_t *max, uint64_t *sum) {
  *max = *sum = 0;
  for (int o = 0; o < n; o++) {
    if (ws[o] > *max) *max = ws[o];
    *sum += ws[o];
  }
}

/* Note [arenas for medium tensors] (pack_arena.c): no op's working set
 * may exceed the largest one without arenas. */
static int no_worse(const tidal_trace *t, const uint64_t *with, const uint64_t *without) {
  uint64_t m1, s1, m0, s0;
  ws_summary(with, t->n_ops, &m1, &s1);
  ws_summary(without, t->n_ops, &m0, &s0);
  return m1 <= m0;
}

/* keep[k]: among arena k's own ops (those touching a member) the largest
 * working set falls, their sum does not grow, and none needs more than the
 * largest working set without arenas.  The number kept, -1 out of memory. */
static int local_gains(const tidal_trace *t, const pack_arenas *ar, const uint64_t *with,
                       const uint64_t *without, unsigned char *keep) {
  uint64_t max0, sum0;
  ws_summary(without, t->n_ops, &max0, &sum0);
  uint64_t *lmax1 = calloc((size_t)ar->n + 1, sizeof *lmax1);
  uint64_t *lmax0 = calloc((size_t)ar->n + 1, sizeof *lmax0);
  int64_t *delta = calloc((size_t)ar->n + 1, sizeof *delta);
  int *seen = malloc(((size_t)ar->n + 1) * sizeof *seen);
  int kept = -1;
  if (!lmax1 || !lmax0 || !delta || !seen) goto out;
  kept = 0;
  for (int k = 0; k < ar->n; k++) {
    seen[k] = -1;
    keep[k] = 1;
  }
  for (int o = 0; o < t->n_ops; o++)
    for (int j = 0; j < t->ops[o].n_acc; j++) {
      int a = t->tensors[t->ops[o].acc[j].tensor].alloc;
      int k = a >= 0 ? ar->arena_of[a] : -1;
      if (k < 0 || seen[k] == o) continue;
      seen[k] = o;
      if (with[o] > lmax1[k]) lmax1[k] = with[o];
      if (without[o] > lmax0[k]) lmax0[k] = without[o];
      delta[k] += (int64_t)with[o] - (int64_t)without[o];
      if (with[o] > max0) keep[k] = 0;
    }
  for (int k = 0; k < ar->n; k++) {
    if (lmax1[k] >= lmax0[k] || delta[k] > 0) keep[k] = 0;
    kept += keep[k];
  }
out:
  free(lmax1);
  free(lmax0);
  free(delta);
  free(seen);
  return kept;
}

/* Slabs alone, then arenas and slabs for the rest: at most three slab
 * searches (without arenas, with all proposed, with those that gain
 * locally), one when no medium has a partner. */
int plan_pack_groups(const tidal_trace *t, uint64_t chunk_bytes, unsigned *groups) {
  size_t na = (size_t)t->n_allocs + 1, no = (size_t)t->n_ops + 1;
  int rc = -1, span0, span1 = 0;
  pack_arenas ar;
  memset(&ar, 0, sizeof ar);
  unsigned *g0 = malloc(na * sizeof *g0);
  uint64_t *ws0 = malloc(no * sizeof *ws0), *ws1 = malloc(no * sizeof *ws1);
  unsigned char *keep = NULL;
  if (!g0 || !ws0 || !ws1) goto out;
  span0 = slab_search(t, chunk_bytes, NULL, g0);
  if (span0 < 0 || pack_working_sets(t, chunk_bytes, NULL, g0, ws0) != 0 ||
      pack_arenas_propose(t, chunk_bytes, ws0, &ar) != 0)
    goto out;
  if (ar.n > 0) {
    keep = malloc((size_t)ar.n);
    span1 = slab_search(t, chunk_bytes, &ar, groups);
    if (!keep || span1 < 0 || pack_working_sets(t, chunk_bytes, &ar, groups, ws1) != 0) goto out;
  }
  if (ar.n > 0) {
    int n = ar.n, kept = local_gains(t, &ar, ws1, ws0, keep);
    if (kept < 0) goto out;
    if (kept > 0 && kept < n) {
      pack_arenas_keep(&ar, keep);
      span1 = slab_search(t, chunk_bytes, &ar, groups);
      if (span1 < 0 || pack_working_sets(t, chunk_bytes, &ar, groups, ws1) != 0) goto out;
    }
    if (kept == 0 || !no_worse(t, ws1, ws0)) ar.n = 0;
  }
  if (ar.n == 0) {
    memcpy(groups, g0, (size_t)t->n_allocs * sizeof *groups);
    rc = span0;
    goto out;
  }
  for (int a = 0; a < t->n_allocs; a++)
    if (ar.arena_of[a] >= 0) groups[a] = TIDAL_GROUP_ARENA | (unsigned)(ar.arena_of[a] + 1);
  rc = span1;
out:
  if (rc < 0) memset(groups, 0, (size_t)t->n_allocs * sizeof *groups);
  pack_arenas_free(&ar);
  free(g0);
  free(ws0);
  free(ws1);
  free(keep);
  return rc;
}

/* Note [groups per call site] (pack.h). */
static const graph *site_g;

static int cmp_site(const void *x, const void *y) {
  const graph_alloc *a = &site_g->allocs[*(const int *)x], *b = &site_g->allocs[*(const int *)y];
  if (a->line != b->line) return a->line < b->line ? -1 : 1;
  if (a->col != b->col) return a->col < b->col ? -1 : 1;
  return strcmp(a->file ? a->file : "", b->file ? b->file : "");
}

int plan_pack_by_site(const graph *g, unsigned *groups) {
  if (g->n_allocs < 2) return 0;
  int *ix = malloc((size_t)g->n_allocs * sizeof *ix);
  if (!ix) return -1;
  for (int a = 0; a < g->n_allocs; a++) ix[a] = a;
  site_g = g;
  qsort(ix, (size_t)g->n_allocs, sizeof *ix, cmp_site);
  for (int i = 0; i < g->n_allocs;) {
    int j = i + 1, same = 1;
    while (j < g->n_allocs && cmp_site(&ix[i], &ix[j]) == 0) {
      same &= groups[ix[j]] == groups[ix[i]];
      j++;
    }
    for (int k = i; !same && k < j; k++) groups[ix[k]] = 0;
    i = j;
  }
  site_g = NULL;
  free(ix);
  return 0;
}
