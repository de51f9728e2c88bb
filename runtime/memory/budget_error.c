/* budget_error.c - the message of a TIDAL_ERR_BUDGET: which op could not
 * get memory and what holds the budget.
 *
 * In memory/ because both the mechanism (a fault-in exchange that wins no
 * chunk, residency.c) and the eviction policy (policy/evict_lru.c) end
 * with it, and it reads only this layer's state. */
#include <stdio.h>
#include "memory/memory.h"

/* Note [budget errors]: eviction runs deep inside tidal_op_begin (restores,
 * recompute closures, the exchange), tidal_malloc (a new slab) or a
 * prefetch; its TIDAL_ERR_BUDGET still names the innermost open op - site,
 * file:line, working set in bytes - and says what holds the memory: chunks
 * pinned by open ops (small allocations' slabs included), or resident
 * chunks that cannot leave because the host store is full. */
tidal_status rt_budget_exhausted(const char *why) {
  size_t cb = rt_mem.chunk_bytes;
  size_t resident = (size_t)(rt_mem.nphys - rt_mem.nfree_phys);
  size_t stuck = rt_mem.lru.n, flight = rt_mem.out.n + rt_mem.in.n;
  size_t pinned = resident > stuck + flight ? resident - stuck - flight : 0;
  size_t ws = 0;
  if (rt_mem.reloc_seen) { /* units hold exact bytes (Note [units]): count bytes, not chunks */
    stuck = flight = 0;
    for (const rt_chunk *c = rt_mem.lru.head; c; c = c->next)
      stuck += c->unit ? rt_chunk_len(c) : cb;
    for (const rt_chunk *c = rt_mem.out.head; c; c = c->next)
      flight += c->unit ? rt_chunk_len(c) : cb;
    for (const rt_chunk *c = rt_mem.in.head; c; c = c->next)
      flight += c->unit ? rt_chunk_len(c) : cb;
    resident = rt_resident_bytes();
    pinned = resident > stuck + flight ? resident - stuck - flight : 0;
    cb = 1; /* the counts above are bytes */
  }
  char op[256] = "";
  if (rt_mem.depth > 0) {
    const rt_frame *f = &rt_mem.frames[rt_mem.depth - 1];
    const tidal_site *s = f->site;
    size_t end = f->pin_end > f->pin_start ? f->pin_end : rt_mem.npinned;
    ws = (end - f->pin_start) * cb;
    if (rt_mem.reloc_seen) {
      ws = 0;
      for (size_t i = f->pin_start; i < end; i++)
        ws += rt_mem.pinned[i].c->unit ? rt_chunk_len(rt_mem.pinned[i].c) : rt_mem.chunk_bytes;
    }
    snprintf(op, sizeof op, " for op %s (%s:%d, working set %zu bytes)",
             s && s->label ? s->label : "(unnamed op)", s && s->file ? s->file : "?",
             s ? s->line : 0, ws);
  }
  char held[400];
  int n = 0;
  held[0] = '\0';
  if (pinned && rt_mem.depth > 0)
    n += snprintf(held + n, sizeof held - (size_t)n, "%s%zu bytes pinned by %d open op%s",
                  n ? ", " : "", pinned * cb, rt_mem.depth, rt_mem.depth == 1 ? "" : "s");
  if (stuck && n < (int)sizeof held)
    n += snprintf(held + n, sizeof held - (size_t)n,
                  "%s%zu bytes that cannot be evicted (host store full: %zu of %zu bytes "
                  "used; no recompute closure)",
                  n ? ", " : "", stuck * cb, rt_host_used_bytes(), rt_mem.host_budget);
  if (!n)
    snprintf(held, sizeof held, "nothing is resident that could leave");
  return rt_error(TIDAL_ERR_BUDGET, "%s%s: no device memory left in the %zu-byte budget: %s", why,
                  op, rt_mem.reloc_seen ? rt_mem.budget_exact : rt_mem.budget_bytes, held);
}
