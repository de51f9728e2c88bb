/* opstack.c - the ops in progress: one frame per open op, and the chunks
 * each has declared (pinned).
 *
 * tidal_op_begin pushes a frame and pins every chunk its accesses touch
 * before restoring any (api/api.c); the per-op flags (needs the data,
 * writes it) live in the pin entries, not in the chunk, because a nested
 * op - a recompute closure run from inside that begin (Note [recompute
 * re-entrancy], recompute.c) - may declare the same chunk.  Ops nest:
 * frames form a stack, and a frame's pins are a contiguous run of
 * rt_mem.pinned that ends where the next frame's begins. */
#include <stdlib.h>
#include "memory/memory.h"

tidal_status rt_frame_reserve(void) {
  if (rt_mem.depth < rt_mem.cap_frames)
    return TIDAL_OK;
  int cap = rt_mem.cap_frames ? rt_mem.cap_frames * 2 : 8;
  rt_frame *f = realloc(rt_mem.frames, (size_t)cap * sizeof *f);
  if (!f)
    return rt_error(TIDAL_ERR_HOST_MEMORY, "tidal_op_begin: out of host memory");
  rt_mem.frames = f;
  rt_mem.cap_frames = cap;
  return TIDAL_OK;
}

tidal_status rt_frame_pin(rt_chunk *c, uint64_t stamp, uint32_t flags) {
  if (c->op_stamp == stamp) { /* declared twice by this op */
    rt_mem.pinned[c->pin_slot].flags |= flags;
    return TIDAL_OK;
  }
  if (rt_mem.npinned == rt_mem.cap_pinned) {
    size_t cap = rt_mem.cap_pinned ? rt_mem.cap_pinned * 2 : 64;
    rt_pin_entry *n = realloc(rt_mem.pinned, cap * sizeof *n);
    if (!n)
      return rt_error(TIDAL_ERR_HOST_MEMORY, "tidal_op_begin: out of host memory");
    rt_mem.pinned = n;
    rt_mem.cap_pinned = cap;
  }
  c->op_stamp = stamp;
  c->hint_lo = c->hint_hi = 0; /* used again: earlier hints are moot (Note [partial-chunk hints]) */
  c->pin_slot = (uint32_t)rt_mem.npinned;
  rt_mem.pinned[rt_mem.npinned].c = c;
  rt_mem.pinned[rt_mem.npinned].flags = flags;
  rt_mem.npinned++;
  rt_pin(c);
  return TIDAL_OK;
}

void rt_frame_unwind(void) {
  rt_frame *f = &rt_mem.frames[rt_mem.depth - 1];
  if (f->begun)
    rt_units_fix(f->pin_start, rt_mem.npinned, 0); /* its addresses are no longer handed out */
  for (size_t i = f->pin_start; i < rt_mem.npinned; i++)
    rt_unpin(rt_mem.pinned[i].c);
  rt_mem.npinned = f->pin_start;
  rt_mem.nempty = f->empty_start;
  rt_mem.depth--;
}

tidal_status rt_frame_note_empty(uintptr_t p) {
  if (rt_mem.nempty == rt_mem.cap_empty) {
    size_t cap = rt_mem.cap_empty ? rt_mem.cap_empty * 2 : 16;
    uintptr_t *n = realloc(rt_mem.empty, cap * sizeof *n);
    if (!n)
      return rt_error(TIDAL_ERR_HOST_MEMORY, "tidal_op_begin: out of host memory");
    rt_mem.empty = n;
    rt_mem.cap_empty = cap;
  }
  rt_mem.empty[rt_mem.nempty++] = p;
  return TIDAL_OK;
}

void rt_frames_destroy(void) {
  free(rt_mem.empty);
  rt_mem.empty = NULL;
  rt_mem.nempty = rt_mem.cap_empty = 0;
  free(rt_mem.frames);
  free(rt_mem.pinned);
  rt_mem.frames = NULL;
  rt_mem.pinned = NULL;
  rt_mem.depth = rt_mem.cap_frames = 0;
  rt_mem.npinned = rt_mem.cap_pinned = 0;
}

/* Units whose address an op that passed its begin was handed may not move
 * (Note [units], units.c): its frame's units are fixed, until it ends. */
void rt_units_fix(size_t pin_start, size_t pin_end, int fix) {
  if (!rt_mem.nreloc)
    return;
  for (size_t i = pin_start; i < pin_end; i++) {
    rt_chunk *c = rt_mem.pinned[i].c;
    if (c->unit)
      c->fixed = (uint16_t)(fix ? c->fixed + 1 : c->fixed - 1);
  }
}
