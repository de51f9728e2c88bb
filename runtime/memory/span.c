/* span.c - a byte allocator over offsets: the device pool's and the host
 * byte store's placement (Note [device pool], units.c).
 *
 * Note [span allocator]: the blocks in use are kept sorted by offset, each
 * with its owner; the holes are the gaps between them inside the usable
 * regions (the device pool is one region that grows; the host byte store
 * has one region per pinned piece, so that no block straddles two pieces).
 * Keeping the used blocks rather than the holes is what compaction and
 * exact placement (a gather anchored at a unit that may not move) need:
 * who holds the bytes at an offset.  Freeing coalesces by construction.
 * Placement is best fit, at an offset congruent to the block's `phase`
 * modulo RT_SPAN_ALIGN: a unit's device address then has the alignment its
 * stable address has (a float4 access stays 16-byte aligned, as
 * cudaMalloc's 256-byte guarantee promises).  O(blocks) per placement,
 * O(log blocks) per lookup. */
#include <stdlib.h>
#include <string.h>
#include "memory/memory.h"

/* The first used block at or after off. */
static size_t lower(const rt_span *s, size_t off) {
  size_t lo = 0, hi = s->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (s->blk[mid].off < off)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

int rt_span_reserve(rt_span *s, size_t more) {
  if (s->n + more <= s->cap)
    return 1;
  size_t cap = s->cap ? s->cap * 2 : 64;
  while (cap < s->n + more)
    cap *= 2;
  rt_span_blk *b = realloc(s->blk, cap * sizeof *b);
  if (!b)
    return 0;
  s->blk = b;
  s->cap = cap;
  return 1;
}

int rt_span_add_region(rt_span *s, size_t lo, size_t hi) {
  if (s->nregions && s->regions[s->nregions - 1].hi == lo) {
    s->regions[s->nregions - 1].hi = hi; /* the pool grew in place */
    s->total += hi - lo;
    return 1;
  }
  if (s->nregions == RT_SPAN_REGIONS_MAX)
    return 0;
  s->regions[s->nregions].lo = lo;
  s->regions[s->nregions].hi = hi;
  s->nregions++;
  s->total += hi - lo;
  return 1;
}

int rt_span_truncate(rt_span *s, size_t hi) {
  if (s->n && s->blk[s->n - 1].off + s->blk[s->n - 1].len > hi)
    return 0; /* a block lies beyond */
  while (s->nregions && s->regions[s->nregions - 1].hi > hi) {
    size_t *rhi = &s->regions[s->nregions - 1].hi, rlo = s->regions[s->nregions - 1].lo;
    size_t cut = rlo >= hi ? rlo : hi;
    s->total -= *rhi - cut;
    *rhi = cut;
    if (*rhi == rlo)
      s->nregions--;
  }
  return 1;
}

static size_t phased(size_t x, size_t phase) {
  size_t want = phase % RT_SPAN_ALIGN, have = x % RT_SPAN_ALIGN;
  return x + (want + RT_SPAN_ALIGN - have) % RT_SPAN_ALIGN;
}

static int insert(rt_span *s, size_t off, size_t len, void *owner) {
  if (!rt_span_reserve(s, 1))
    return 0;
  size_t i = lower(s, off);
  memmove(&s->blk[i + 1], &s->blk[i], (s->n - i) * sizeof *s->blk);
  s->blk[i].off = off;
  s->blk[i].len = len;
  s->blk[i].owner = owner;
  s->n++;
  s->used += len;
  return 1;
}

int rt_span_alloc(rt_span *s, size_t len, size_t phase, void *owner, size_t *off) {
  size_t best = 0, best_hole = SIZE_MAX;
  int found = 0;
  for (uint32_t r = 0; r < s->nregions; r++) {
    size_t lo = s->regions[r].lo, hi = s->regions[r].hi;
    size_t i = lower(s, lo), at = lo;
    for (;; i++) {
      size_t end = i < s->n && s->blk[i].off < hi ? s->blk[i].off : hi;
      size_t x = phased(at, phase);
      if (x + len <= end && x >= at && end - at < best_hole) {
        best = x;
        best_hole = end - at;
        found = 1;
      }
      if (end == hi)
        break;
      at = s->blk[i].off + s->blk[i].len;
    }
  }
  if (!found || !insert(s, best, len, owner))
    return 0;
  *off = best;
  return 1;
}

int rt_span_alloc_end(rt_span *s, size_t len, void *owner, size_t *off) {
  if (!s->nregions)
    return 0;
  size_t lo = s->regions[s->nregions - 1].lo, hi = s->regions[s->nregions - 1].hi, at = lo;
  if (s->n && s->blk[s->n - 1].off + s->blk[s->n - 1].len > at)
    at = s->blk[s->n - 1].off + s->blk[s->n - 1].len;
  at = phased(at, 0);
  if (at + len > hi || !insert(s, at, len, owner))
    return 0;
  *off = at;
  return 1;
}

int rt_span_is_free(const rt_span *s, size_t off, size_t len) {
  int inside = 0;
  for (uint32_t r = 0; r < s->nregions && !inside; r++)
    inside = off >= s->regions[r].lo && off + len <= s->regions[r].hi;
  if (!inside)
    return 0;
  size_t i = lower(s, off);
  if (i > 0 && s->blk[i - 1].off + s->blk[i - 1].len > off)
    return 0;
  return i == s->n || s->blk[i].off >= off + len;
}

int rt_span_take(rt_span *s, size_t off, size_t len, void *owner) {
  return rt_span_is_free(s, off, len) && insert(s, off, len, owner);
}

rt_span_blk *rt_span_find(rt_span *s, size_t off) {
  size_t i = lower(s, off);
  return i < s->n && s->blk[i].off == off ? &s->blk[i] : NULL;
}

void rt_span_free(rt_span *s, size_t off) {
  size_t i = lower(s, off);
  if (i >= s->n || s->blk[i].off != off)
    return;
  s->used -= s->blk[i].len;
  memmove(&s->blk[i], &s->blk[i + 1], (s->n - i - 1) * sizeof *s->blk);
  s->n--;
}

int rt_span_split(rt_span *s, size_t off, size_t at, void *right_owner) {
  rt_span_blk *b = rt_span_find(s, off);
  if (!b || at == 0 || at >= b->len)
    return 0;
  size_t len = b->len;
  b->len = at;
  s->used -= len - at;
  if (!insert(s, off + at, len - at, right_owner)) {
    b = rt_span_find(s, off); /* undo: nothing changed hands */
    b->len = len;
    s->used += len - at;
    return 0;
  }
  return 1;
}

void rt_span_overlapping(const rt_span *s, size_t off, size_t len, size_t *first, size_t *end) {
  size_t i = lower(s, off);
  if (i > 0 && s->blk[i - 1].off + s->blk[i - 1].len > off)
    i--;
  size_t j = i;
  while (j < s->n && s->blk[j].off < off + len)
    j++;
  *first = i;
  *end = j;
}

void rt_span_destroy(rt_span *s) {
  free(s->blk);
  memset(s, 0, sizeof *s);
}
