/* chunk.c - a chunk's place: its address and length, the lists it can be
 * on, and pins.
 *
 * Every resident, unpinned chunk is on the LRU (rt_mem.lru, least recently
 * used at the head): the only eviction candidates.  Swap-outs and
 * prefetches in flight are on their own lists (out, in, oldest first), and
 * evicted chunks that still hold their memory on `parked` (Note [lazy
 * unmap], residency.c).  A pin is a count of the open ops that declared
 * the chunk (opstack.c): the first takes it off the LRU, the last puts it
 * back at the tail, so a pinned chunk is never evicted.  The state machine
 * that moves chunks between these is residency.c's. */
#include "memory/memory.h"

rt_mem_state rt_mem; /* memory.h */

/* A unit's address is its stable one (a name for traces and messages); its
 * bytes are in its block (rt_unit_dev). */
uintptr_t rt_chunk_addr(const rt_chunk *c) {
  if (c->unit)
    return c->alloc->base + rt_unit_ofc(c)->lo;
  return c->alloc->base + (uintptr_t)c->index * rt_mem.chunk_bytes;
}

size_t rt_chunk_len(const rt_chunk *c) {
  if (c->unit)
    return rt_unit_ofc(c)->hi - rt_unit_ofc(c)->lo;
  size_t off = (size_t)c->index * rt_mem.chunk_bytes;
  size_t left = c->alloc->bytes - off;
  return left < rt_mem.chunk_bytes ? left : rt_mem.chunk_bytes;
}

int rt_chunk_mapped(const rt_chunk *c) {
  return c->state == RT_RESIDENT || c->state == RT_DIRTY || c->state == RT_SWAPPING_OUT ||
         c->state == RT_PREFETCHING;
}

/* ---- lists ---- */

rt_list *rt_list_of(rt_chunk *c) {
  switch (c->list) {
  case RT_LIST_LRU: return &rt_mem.lru;
  case RT_LIST_OUT: return &rt_mem.out;
  case RT_LIST_IN: return &rt_mem.in;
  default: return NULL;
  }
}

void rt_list_push(rt_list *l, int id, rt_chunk *c) {
  c->prev = l->tail;
  c->next = NULL;
  if (l->tail)
    l->tail->next = c;
  else
    l->head = c;
  l->tail = c;
  l->n++;
  c->list = (uint8_t)id;
}

void rt_list_remove(rt_list *l, rt_chunk *c) {
  if (c->prev)
    c->prev->next = c->next;
  else
    l->head = c->next;
  if (c->next)
    c->next->prev = c->prev;
  else
    l->tail = c->prev;
  c->prev = c->next = NULL;
  l->n--;
  c->list = RT_LIST_NONE;
}

void rt_unlist(rt_chunk *c) {
  rt_list *l = rt_list_of(c);
  if (l)
    rt_list_remove(l, c);
}

void rt_pin(rt_chunk *c) {
  if (c->pins++ == 0 && c->list == RT_LIST_LRU)
    rt_list_remove(&rt_mem.lru, c);
}

void rt_unpin(rt_chunk *c) {
  if (--c->pins == 0 && (c->state == RT_RESIDENT || c->state == RT_DIRTY))
    rt_list_push(&rt_mem.lru, RT_LIST_LRU, c); /* most recently used at the tail */
}

void rt_chunks_init(rt_alloc *a, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    rt_chunk *c = &a->chunks[i];
    c->alloc = a;
    c->index = i;
    c->host_slot = -1;
    c->state = RT_UNMAPPED;
  }
}
