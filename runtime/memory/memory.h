/* memory.h - the memory layer: chunks and their states, the physical
 * pool, the host store, the registry of allocations, small allocations
 * and arenas, recompute closures, the op stack and annotations.
 *
 * The mechanism only: what happens to a chunk is decided here, which chunk
 * is the policy's, asked through the tables in evict.h (Note [eviction
 * seam]) and rt_share_ops (a budget shared with other processes), both set
 * at tidal_init.  Files here use base/ and device/ only.
 * Sections follow the file that defines them. */
#ifndef TIDAL_RT_MEMORY_H
#define TIDAL_RT_MEMORY_H

#include "device/device.h"
#include "memory/evict.h"

/* Limits, with units in the names. */
#define RT_HOST_PIECES_MAX 40               /* pieces double: 64 MiB * 2^39 is beyond any host */
#define RT_HOST_PIECE_MIN_BYTES ((size_t)64 << 20)
#define RT_RECOMPUTE_DEPTH_MAX 64           /* nested recompute closures before giving up */
#define RT_FREED_REMEMBERED 4096            /* freed bases kept to report double frees */

/* ---- chunks (chunk.c, residency.c) ----
 * Note [chunk states]: a chunk's bytes are in exactly one of these places.
 *   UNMAPPED      never written; no memory anywhere
 *   RESIDENT      mapped, and the host store holds an identical copy (clean)
 *   DIRTY         mapped, the only copy is on the device
 *   SWAPPING_OUT  mapped, a device-to-host copy is in flight
 *   ON_HOST       not mapped; the host store holds the data
 *   PREFETCHING   mapped, a host-to-device copy is in flight (host copy kept)
 *   DROPPED       not mapped; contents declared dead (tidal_drop)
 *   RECOMPUTABLE  not mapped; its recompute closure regenerates it
 * Mapped states own a physical chunk; RESIDENT/SWAPPING_OUT/ON_HOST/
 * PREFETCHING own a host slot. */
typedef enum rt_chunk_state {
  RT_UNMAPPED = 0,
  RT_RESIDENT,
  RT_DIRTY,
  RT_SWAPPING_OUT,
  RT_ON_HOST,
  RT_PREFETCHING,
  RT_DROPPED,
  RT_RECOMPUTABLE
} rt_chunk_state;

enum rt_list_id { RT_LIST_NONE = 0, RT_LIST_LRU, RT_LIST_OUT, RT_LIST_IN, RT_LIST_PARKED };

struct rt_alloc;
struct rt_recompute;

typedef struct rt_chunk {
  struct rt_chunk *prev, *next; /* links on the list named by `list` */
  struct rt_alloc *alloc;       /* owner */
  struct rt_recompute *rc;      /* closure that regenerates it, or NULL */
  rt_event ev;                  /* the copy in flight (SWAPPING_OUT, PREFETCHING) */
  rt_event ready;               /* next op waits for it when ready_pending */
  rt_event host_ev;             /* a restore that may still read the host slot */
  tidal_stream writer;          /* stream of the last op that wrote it */
  int64_t host_slot;            /* host store slot, -1 if none */
  uint64_t op_stamp;            /* last op_begin that declared it (dedup) */
  uint64_t keep_iter;           /* tidal_keep, the eviction policy's: kept while it equals
                                   its epoch + 1 (policy/evict_lru.c) */
  uint32_t phys;                /* physical chunk while mapped */
  uint32_t index;               /* position in its allocation */
  uint32_t pins;                /* open ops that declared it */
  uint8_t state;                /* rt_chunk_state */
  uint8_t list;                 /* enum rt_list_id */
  uint8_t ready_pending;        /* ready must be waited for by the next op */
  uint8_t host_ev_pending;      /* host_ev must complete before the slot is reused */
  uint8_t fresh_from;           /* mapped fresh for a write-only access of an op whose
                                   begin has not finished: the state to go back to if
                                   it fails (Note [write-only restore]), else 0 */
#define RT_FRESH_OWN 0x80u      /* fresh_from flag: the memory is the chunk's own (reclaimed) */
  uint8_t parked;               /* evicted, but phys is still mapped here and holds its
                                   last contents (Note [lazy unmap]); on rt_mem.parked */
  uint8_t hint_drop_only;       /* every hint in [hint_lo, hint_hi) was a drop */
  uint8_t stale;                /* evicted and its memory given to another chunk, but phys
                                   is still mapped at its address (Note [stale aliases]) */
  uint8_t unit;                 /* a relocatable allocation's unit (struct rt_unit) */
  uint8_t in_place;             /* the last op that wrote it also needed its data (read it,
                                   or wrote part of it): no closure is attached to it
                                   (Note [self-reading closures], recompute.c) */
  uint16_t fixed;               /* units: open ops past their begin that declared it: its
                                   address was handed out, so it may not move */
  uint32_t pin_slot;            /* scratch for op_begin: its entry in rt_mem.pinned */
  uint32_t hint_lo, hint_hi;    /* bytes of it hinted (swap_out/drop) since its last use:
                                   Note [partial-chunk hints] */
  uint64_t last_op;             /* rt_mem.ops_ended after the last op that declared it */
  uint64_t park_mark;           /* backend mark covering its last use when parked, 0 = none */
  rt_ticket ticket;             /* its last command queued for the VMM worker: an op may
                                   touch it once the worker has run it (Note [vmm worker]) */
} rt_chunk;

typedef struct rt_list {
  rt_chunk *head, *tail; /* head = least recently used / oldest copy */
  size_t n;
} rt_list;

typedef struct rt_alloc {
  uintptr_t base;        /* the pointer tidal_malloc returned */
  size_t bytes;          /* as requested */
  size_t reserved;       /* address range reserved (chunked: rounded up to chunks) */
  uint32_t nchunks;      /* 0 for packed small allocations */
  rt_chunk *chunks;
  struct rt_slab *slab;  /* packed small allocation: its slab, else NULL */
  struct rt_arena *arena;/* arena member: its arena (Note [arenas]), else NULL */
  uint8_t idle;          /* packed: RT_IDLE_* hinted since an op last declared it */
  uint8_t reloc;         /* relocatable: units, no chunks (Note [units], units.c) */
  size_t guard;          /* reserved and never used before base and after base + reserved
                            (relocatable: Note [guard ranges], units.c), else 0 */
  struct rt_unit **units;/* relocatable: its units, sorted by offset, disjoint */
  size_t nunits, cap_units;
  uint64_t seq;          /* registration order (registry.c): an order between allocations
                            that does not depend on where their addresses landed */
} rt_alloc;

/* ---- relocatable units (units.c) ----
 * Note [units]: a relocatable allocation's bytes are covered lazily by
 * units, byte ranges [lo, hi) made by accesses; each is a chunk to the state
 * machine (its states, lists, pins, host copy), with a device block in the
 * pool instead of a physical chunk at its address. */
typedef struct rt_unit {
  rt_chunk c;            /* first: the state machine's view (c.unit = 1) */
  size_t lo, hi;         /* bytes of its allocation */
  size_t block;          /* its device block: an offset in the pool, while mapped or parked */
  uint64_t mark;         /* a copy into its block waits for this: the previous holders'
                            last use (Note [stale aliases]); 0 = none */
  uint8_t placed;        /* `block` is its place, taken before its restore (Note [placed
                            in advance], units.c); it has no data there yet */
  uint8_t pf_pending;    /* on rt_mem.pace: a prefetch hint deferred (Note [prefetch
                            order], pace.c) */
  uint32_t pf_lead;      /* ops from its last prefetch hint to its next use, as last seen;
                            0 = not seen */
  uint64_t pf_at;        /* op_stamp at its last prefetch hint not yet followed by a use */
  uint64_t pf_need;      /* while pending: the op_stamp it is expected to be used at */
  uint64_t pf_seq;       /* while pending: its deferral's number (ties go in hint order) */
} rt_unit;
static inline rt_unit *rt_unit_of(rt_chunk *c) { return (rt_unit *)c; }
static inline const rt_unit *rt_unit_ofc(const rt_chunk *c) { return (const rt_unit *)c; }

/* The first of a's units whose hi is above off (a's units are sorted and
 * disjoint): binary search, here so that devpool.c needs nothing of
 * units.c. */
static inline size_t rt_unit_index(const rt_alloc *a, size_t off) {
  size_t lo = 0, hi = a->nunits;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (a->units[mid]->hi <= off)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* A device-to-device copy, counted (d2d_copies: each has a fixed cost,
 * about 8 us of an H200's device time, whatever its size). */
static inline tidal_status rt_copy_d2d(uintptr_t dst, uintptr_t src, size_t len, tidal_stream s,
                                       tidal_stream after) {
  RT_COUNT(d2d_copies, 1);
  return rt_dev.be->copy_d2d(rt_dev.b, dst, src, len, s, after);
}

/* ---- the span allocator (span.c, Note [span allocator]) ---- */
#define RT_SPAN_ALIGN 256
#define RT_SPAN_REGIONS_MAX (RT_HOST_PIECES_MAX + 1)
typedef struct rt_span_blk {
  size_t off, len;
  void *owner;
} rt_span_blk;
typedef struct rt_span {
  rt_span_blk *blk;      /* in use, sorted by offset */
  size_t n, cap;
  size_t used;           /* bytes in use */
  size_t total;          /* bytes of the regions */
  struct { size_t lo, hi; } regions[RT_SPAN_REGIONS_MAX]; /* usable, sorted */
  uint32_t nregions;
} rt_span;
/* [lo, hi) becomes usable (extends the last region if adjacent); 0 if full. */
RT_HIDDEN int rt_span_add_region(rt_span *s, size_t lo, size_t hi);
/* Offsets from hi on stop being usable; 0 (nothing changes) if a block lies there. */
RT_HIDDEN int rt_span_truncate(rt_span *s, size_t hi);
/* Best fit for len bytes at an offset = phase (mod RT_SPAN_ALIGN): 1 and *off. */
RT_HIDDEN int rt_span_alloc(rt_span *s, size_t len, size_t phase, void *owner, size_t *off);
/* After the last block of the last region, aligned, if it fits: O(1), no
 * best fit (the host store's slots, Note [one host store]). */
RT_HIDDEN int rt_span_alloc_end(rt_span *s, size_t len, void *owner, size_t *off);
RT_HIDDEN int rt_span_is_free(const rt_span *s, size_t off, size_t len);
RT_HIDDEN int rt_span_take(rt_span *s, size_t off, size_t len, void *owner); /* exactly there */
RT_HIDDEN rt_span_blk *rt_span_find(rt_span *s, size_t off); /* the block starting at off */
RT_HIDDEN void rt_span_free(rt_span *s, size_t off);
/* The block at off becomes [off, off + at) and [off + at, end) (right_owner). */
RT_HIDDEN int rt_span_split(rt_span *s, size_t off, size_t at, void *right_owner);
/* Blocks [*first, *end) overlap [off, off + len). */
RT_HIDDEN void rt_span_overlapping(const rt_span *s, size_t off, size_t len, size_t *first,
                                   size_t *end);
RT_HIDDEN int rt_span_reserve(rt_span *s, size_t more); /* room for `more` blocks */
RT_HIDDEN void rt_span_destroy(rt_span *s);

/* ---- packed small allocations (suballoc.c) ----
 * Note [lifetime-aware pool]: allocations smaller than a chunk are packed
 * into slabs, one chunk each, which are evicted, restored and released as
 * one unit: an op declaring a member pins the slab's chunk. */
typedef struct rt_slab {
  struct rt_slab *next;
  rt_alloc self;         /* a one-chunk allocation over the slab (not in the registry) */
  rt_chunk chunk;        /* self.chunks: its state is the members' */
  uint32_t group;        /* packing group: only members of this group share it */
  uint32_t nmembers, cap_members;
  struct rt_alloc **members; /* sorted by address */
} rt_slab;
enum { RT_IDLE_COLD = 1, RT_IDLE_DEAD = 2 }; /* swap-out / drop hinted */

/* ---- arenas (arena.c) ----
 * Note [arenas]: the members of a TIDAL_GROUP_ARENA group are laid out one
 * after another in one reserved range, whose chunks they share; an op or a
 * hint on a member acts on the arena's chunks its range covers. */
typedef struct rt_arena {
  struct rt_arena *next;
  rt_alloc self;         /* the range (not in the registry); self.bytes: laid out so far,
                            self.nchunks: the chunks that covers */
  uint32_t group;
  uint32_t nmembers, cap_members;
  struct rt_alloc **members; /* live members, sorted by address */
} rt_arena;
#define RT_SMALL_MIN_BYTES 256 /* cudaMalloc's alignment guarantee */
/* bytes rounded up to RT_SMALL_MIN_BYTES: a slab or arena member's room */
static inline size_t rt_small_aligned(size_t bytes) {
  return (bytes + RT_SMALL_MIN_BYTES - 1) / RT_SMALL_MIN_BYTES * RT_SMALL_MIN_BYTES;
}

/* ---- host store (hoststore.c) ---- */
typedef struct rt_hoststore {
  size_t slot_bytes;        /* = chunk bytes: a chunk's host copy is one slot */
  size_t max_slots;         /* the host budget, in slots (messages, tests) */
  int exhausted;            /* pinning failed once: do not retry on every swap */
  size_t used;              /* slots handed out (pending ones included) */
  int64_t *cache;           /* slots given back, kept as blocks for the next slot: O(1)
                               (Note [one host store]); units' copies flush them */
  size_t ncache, cap_cache;
} rt_hoststore;

/* ---- recompute closures (recompute.c) ---- */
typedef struct rt_recompute {
  struct rt_recompute *next;
  tidal_recompute_fn fn;
  void *ctx;             /* private copy of the caller's ctx */
  size_t ctx_bytes;
  uintptr_t lo, hi;      /* the registered range */
  uint32_t refs;         /* chunks pointing at it */
  int running;           /* its closure is on the stack */
  int expired;           /* iteration ended: only RECOMPUTABLE chunks keep it */
  uint64_t overwrite_stamp; /* op_begin that ended it but has not finished yet */
} rt_recompute;

/* ---- the op stack ---- */
enum { RT_PIN_NEED_DATA = 1u, RT_PIN_WRITTEN = 2u };
typedef struct rt_pin_entry {
  rt_chunk *c;
  uint32_t flags;        /* RT_PIN_*: kept here, not in the chunk, because a nested
                            op (recompute) may declare the same chunk */
} rt_pin_entry;

typedef struct rt_frame {
  const tidal_site *site;
  int begun;                 /* its begin succeeded: its units are fixed (rt_units_fix) */
  size_t empty_start;        /* its empty relocatable accesses: rt_mem.empty[empty_start ..) */
  size_t pin_start, pin_end; /* its chunks: pinned[pin_start .. pin_end); tidal_home inside
                                the op adds pinned[pin_end .. npinned) */
  tidal_stream stream;
  uint64_t stamp;            /* its op_stamp (rt_frame_pin's dedup) */
} rt_frame;

/* A device budget shared with other processes (policy/arbiter.c). */
typedef struct rt_share_ops {
  int (*take)(size_t bytes);  /* before creating physical memory: 0 if the total is spent */
  void (*give)(size_t bytes); /* after giving it back */
  int (*wait)(size_t bytes);  /* waits (bounded) for room; 0 on timeout */
} rt_share_ops;

/* The layer's state (Note [one thread], api/api.c). */
typedef struct rt_mem_state {
  size_t chunk_bytes;
  size_t budget_bytes;           /* phys_target * chunk_bytes */
  size_t budget_exact;           /* the budget as given, in bytes: what units and chunks
                                    together may hold (Note [units]) */
  size_t nreloc;                 /* live relocatable allocations */
  int reloc_seen;                /* a relocatable allocation was made: budgets are exact */
  /* the physical pool (pool.c) */
  uint32_t nphys;                /* physical chunks that exist now */
  uint32_t *free_phys;           /* stack of unused physical chunks */
  uint32_t nfree_phys;
  uint32_t *free_pos;            /* per physical chunk: its index in free_phys while free */
  rt_chunk **phys_owner;         /* per physical chunk: the chunk whose data it holds
                                    (mapped or parked), NULL while free */
  uint64_t *phys_mark;           /* per physical chunk: a mark covering its previous
                                    holder's last use; copies into it wait for it on the
                                    device (Note [stale aliases]) */
  uint32_t phys_target;          /* the budget in chunks; nphys converges to it
                                    (Note [resizable pool]) */
  uint32_t phys_ids;             /* physical chunk numbers used so far: all are < phys_ids */
  uint32_t cap_phys;             /* entries of free_phys and absent_phys */
  uint32_t *absent_phys;         /* numbers below phys_ids with no physical chunk now */
  uint32_t nabsent_phys;
  size_t footprint_bytes;        /* allocations in whole chunks, slabs included: the most
                                    this process could keep resident (its shared demand) */
  /* decisions taken from above, set at tidal_init */
  const rt_evict_ops *evict;     /* which chunk goes (Note [eviction seam], evict.h) */
  const rt_share_ops *share;     /* a budget shared with other processes, or NULL */

  /* registry.c: live allocations sorted by base, and recently freed bases */
  rt_alloc **allocs;
  size_t nallocs, cap_allocs;
  uint64_t alloc_seq;            /* allocations registered so far (rt_alloc.seq) */
  uint64_t allocated_bytes;      /* live tidal_malloc bytes: the program's footprint
                                    without tidal */
  rt_alloc *last_hit;
  uintptr_t *freed;              /* ring of freed bases */
  size_t nfreed, freed_head;

  /* chunk.c, residency.c */
  rt_list lru;                   /* resident, unpinned, evictable */
  rt_list out;                   /* swap-outs in flight, oldest first */
  rt_list in;                    /* prefetches in flight */
  rt_list parked;                /* evicted chunks still mapped, oldest first (Note [lazy unmap]) */
  uint64_t ops_ended;            /* tidal_op_end calls so far */
  uint64_t marked_ops;           /* ops_ended when last_mark was taken */
  uint64_t last_mark;            /* the backend's latest mark (0 = none yet) */
  tidal_stream last_stream;      /* stream of the last op ended */
  uintptr_t access_lo, access_hi; /* mapped, access not yet granted (Note [access batching]) */
  rt_alloc *access_alloc;        /* the allocation [access_lo, access_hi) is in */

  /* opstack.c */
  rt_frame *frames;
  int depth, cap_frames;
  rt_pin_entry *pinned;
  size_t npinned, cap_pinned;
  uint64_t op_stamp;
  tidal_stream stream;           /* tidal_stream_set: the stream ops are enqueued on */
  uintptr_t *empty;              /* pointers of the open ops' empty relocatable accesses */
  size_t nempty, cap_empty;

  /* homehold.c: chunks tidal_home made resident outside any op, pinned
   * until the next tidal_op_begin (Note [home residency]) */
  rt_chunk **held;
  size_t nheld, cap_held;
  uint64_t home_stamp;           /* op_stamp of the held chunks in this hold period */
  int homing;                    /* inside tidal_home's restores: a closure's op keeps the holds */

  rt_hoststore hs;
  /* units.c: the device pool (Note [device pool]) and the host byte store */
  rt_span dpool;
  uintptr_t dpool_base;          /* its reserved range, 0 until the first relocatable malloc */
  size_t dpool_reserved, dpool_mapped;
  size_t *dpool_steps;           /* where each growth step begins, in order (Note [physical
                                    bound]): the pool shrinks by whole steps from the top */
  size_t dpool_nsteps, dpool_cap_steps;
  uint64_t squeezes;             /* compactions that moved units of an op in its begin */
  size_t pool_wants;             /* while a placement asks the policy for room: the bytes
                                    the pool would grow by (Note [physical bound]), else 0 */
  size_t unit_resident;          /* bytes of units holding a block, parked ones not counted */
  uint32_t parked_units;         /* of rt_mem.parked, units */
  size_t pfreed_n;               /* recently freed pool ranges and their last-use marks */
  struct { size_t off, len; uint64_t mark; } pfreed[64];
  uint64_t pfreed_floor;         /* the marks of ranges forgotten from `pfreed` */
  /* pace.c: deferred prefetches of units (Note [prefetch order]) */
  struct rt_unit **pace;
  size_t npace, cap_pace;
  /* hoststore.c: the pinned host store, one byte allocator over pinned
   * pieces for chunks' slots and units' copies (Note [one host store]) */
  rt_span uhost;
  void *uhost_pieces[RT_HOST_PIECES_MAX];
  size_t uhost_sizes[RT_HOST_PIECES_MAX];
  uint8_t uhost_heap[RT_HOST_PIECES_MAX]; /* adopted (malloc'd, not pinned): Note [adopted slots] */
  uint32_t uhost_npieces;
  size_t uhost_pinned;           /* bytes pinned: within the host budget */
  struct rt_uhost_pend {         /* copies given up while a restore may still read them */
    int64_t off;
    rt_event ev;
    uint8_t slot;                /* a chunk's slot (else a unit's copy) */
  } *uhost_pend;
  size_t uhost_npend, uhost_cap_pend, uhost_pend_bytes; /* pend_bytes: units' copies only */
  size_t host_budget;            /* bytes, chunks' slots and units' copies together */
  const tidal_site **warned;     /* sites warned about an undeclared tidal_at */
  size_t nwarned;
  const tidal_site **clamped;    /* sites noted for an extent cut at its allocation's end */
  size_t nclamped;
  rt_slab *slabs;
  rt_arena *arenas;              /* newest first */
  /* recompute.c */
  rt_recompute *rcs;
  int rc_depth;                  /* recompute closures on the stack */
  int rc_floor;                  /* op frames below this belong to the ops whose
                                    closures are running: tidal_op_end may not pop them */
  tidal_status rc_error;         /* first failure inside a closure */
} rt_mem_state;

RT_HIDDEN extern rt_mem_state rt_mem; /* chunk.c */

/* A restore still writing c (ready_pending): the compute stream waits for
 * it (no host block on CUDA) before c's bytes move or are cut. */
static inline tidal_status rt_unit_follow_restore(rt_chunk *c) {
  if (!c->ready_pending)
    return TIDAL_OK;
  double stall = 0;
  tidal_status st = rt_dev_stream_wait(rt_mem.stream, &c->ready, &stall);
  rt_dev_event_release(&c->ready);
  c->ready_pending = 0;
  return st;
}

static inline size_t rt_resident_bytes(void) {
  return (size_t)(rt_mem.nphys - rt_mem.nfree_phys - (rt_mem.parked.n - rt_mem.parked_units)) *
             rt_mem.chunk_bytes +
         rt_mem.unit_resident;
}
static inline void rt_note_resident(void) { rt_stats_resident(rt_resident_bytes()); }
/* Device memory created: physical chunks (free and parked ones too) and the
 * device pool's mapped bytes (Note [physical bound], devpool.c). */
static inline size_t rt_physical_bytes(void) {
  return (size_t)rt_mem.nphys * rt_mem.chunk_bytes + rt_mem.dpool_mapped;
}
static inline void rt_note_physical(void) { rt_stats_physical(rt_physical_bytes()); }
/* Host store bytes holding copies (chunks' slots, pending ones included, and
 * units' copies), the slots kept for reuse not counted (hoststore.c). */
/* Bytes of host memory the store has pinned (every piece). */
size_t rt_host_pinned_bytes(void);
static inline size_t rt_host_used_bytes(void) {
  return rt_mem.uhost.used - rt_mem.hs.ncache * rt_mem.hs.slot_bytes;
}

/* ---- registry.c ---- */
RT_HIDDEN tidal_status rt_registry_insert(rt_alloc *a);
RT_HIDDEN void rt_registry_remove(rt_alloc *a);
/* The live allocation containing p, or NULL. O(log n). */
RT_HIDDEN rt_alloc *rt_registry_find(uintptr_t p);
RT_HIDDEN int rt_registry_was_freed(uintptr_t p);
RT_HIDDEN void rt_registry_destroy(void);

/* ---- chunk.c ---- */
RT_HIDDEN void rt_list_push(rt_list *l, int id, rt_chunk *c);
RT_HIDDEN void rt_list_remove(rt_list *l, rt_chunk *c);
RT_HIDDEN rt_list *rt_list_of(rt_chunk *c);
RT_HIDDEN void rt_unlist(rt_chunk *c); /* off whichever of lru, out, in it is on */
RT_HIDDEN uintptr_t rt_chunk_addr(const rt_chunk *c);
RT_HIDDEN size_t rt_chunk_len(const rt_chunk *c); /* bytes of the allocation in it */
RT_HIDDEN int rt_chunk_mapped(const rt_chunk *c);
RT_HIDDEN void rt_pin(rt_chunk *c);
RT_HIDDEN void rt_unpin(rt_chunk *c);
/* a->chunks[0, n): owned by a, numbered, unmapped, no host slot. */
RT_HIDDEN void rt_chunks_init(rt_alloc *a, uint32_t n);
/* Resident with an identical host copy, and not a write-only restore in
 * progress: evicting it costs nothing, and its copy may be taken. */
static inline int rt_chunk_clean(const rt_chunk *c) {
  return c->state == RT_RESIDENT && c->host_slot >= 0 && !c->fresh_from;
}

/* ---- opstack.c: the open ops and the chunks they pinned ---- */
RT_HIDDEN tidal_status rt_frame_reserve(void); /* room for one more frame */
/* Pins c for the op being begun (stamp: its op_stamp), or adds flags
 * (RT_PIN_*) to its entry if the op declared it already. */
RT_HIDDEN tidal_status rt_frame_pin(rt_chunk *c, uint64_t stamp, uint32_t flags);
RT_HIDDEN void rt_frame_unwind(void); /* pops the top op frame, unpinning its chunks */
/* The op being begun declared 0 bytes at p in a relocatable allocation:
 * tidal_at(p) is no error while it is open. */
RT_HIDDEN tidal_status rt_frame_note_empty(uintptr_t p);
RT_HIDDEN void rt_frames_destroy(void);

/* ---- homehold.c: what tidal_home makes resident (Note [home residency]) ---- */
/* Pins every chunk of home allocation a and restores it: into the innermost
 * open op (until its end), or outside any op into the holds (until the next
 * tidal_op_begin).  On failure this call's chunks are as they were. */
RT_HIDDEN tidal_status rt_home_hold(rt_alloc *a);
/* Bytes of chunks the holds and the open ops pin now (an upper bound: a
 * chunk two nested ops declared counts twice), with *unit_bytes the exact
 * bytes of the units they pin; and a's bytes that are not pinned by the
 * holds or the innermost op yet. */
RT_HIDDEN size_t rt_home_pinned_bytes(size_t *unit_bytes);
RT_HIDDEN size_t rt_home_need_bytes(rt_alloc *a);
/* Lets go of the holds (tidal_op_begin, tidal_free, tidal_shutdown): the
 * chunks count as written by an op that ended now.  Not inside tidal_home's
 * own restores (a recompute closure's op). */
RT_HIDDEN void rt_home_release(void);
RT_HIDDEN void rt_home_destroy(void);

/* ---- residency.c ---- */
/* Finishes completed copies: swapped-out chunks release their device memory. */
RT_HIDDEN tidal_status rt_reap(int wait_all);
/* A free physical chunk, evicting (the policy's choice) if needed. */
RT_HIDDEN tidal_status rt_phys_acquire(uint32_t *phys, const char *why);
/* phys is free: back to the free stack, or out of the pool while it
 * shrinks (Note [resizable pool]). */
RT_HIDDEN void rt_phys_release(uint32_t phys);
/* The pool is over its target: gives free chunks back, then evicts until
 * it is not (or only pinned chunks are left). */
RT_HIDDEN void rt_phys_shrink(void);
/* Gives every free physical chunk back to the device (unaliased first);
 * the pool's target stays, so chunks are created again as they are needed
 * (Note [resizable pool]).  The first relocatable allocation: its units'
 * device pool takes the memory instead (Note [device pool]). */
RT_HIDDEN void rt_phys_trim(void);
/* Note [physical bound] (devpool.c): gives back free physical chunks, then
 * parked ones, all in one go, until `bytes` more of device pool fit the
 * bound: the number it gave back (the eviction policy's first step while
 * rt_mem.pool_wants is set). */
RT_HIDDEN size_t rt_phys_yield(size_t bytes);
/* After an op: memory created past the bound while an op's own memory was
 * in the way (physical_overruns) is given back where it can be. */
RT_HIDDEN void rt_phys_settle(void);
/* The mechanism the eviction policy drives (Note [eviction seam]):
 * starts releasing resident, unpinned c - clean: parked; with a closure
 * (and not `copy`): dropped; else copied out into a host slot the policy
 * finds - 1 if it did, 0 if it cannot (no slot: it stays resident). */
RT_HIDDEN int rt_chunk_evict(rt_chunk *c, tidal_status *st, int copy);
/* v is parked: its memory goes back to the free stack, still mapped at v's
 * address (Note [stale aliases]); copies into it wait for v's last use. */
RT_HIDDEN tidal_status rt_parked_give(rt_chunk *v);
/* The swap-out of c completed: its device memory is parked. */
RT_HIDDEN tidal_status rt_swap_out_finish(rt_chunk *c);
/* Takes clean c's host slot (c becomes DIRTY: its only copy is on the
 * device) and returns it. */
RT_HIDDEN int64_t rt_chunk_take_host(rt_chunk *c);
/* Grants access to every chunk mapped since the last flush: one
 * set_access per contiguous range (Note [access batching]). */
RT_HIDDEN tidal_status rt_access_flush(void);
/* The VMM worker has run every command queued for the chunks of
 * rt_mem.pinned[pin_start, pin_end) (Note [vmm worker]): the end of
 * tidal_op_begin.  No-op when the worker is off. */
RT_HIDDEN tidal_status rt_chunks_ready(size_t pin_start, size_t pin_end);
/* tidal_op_end: the chunks of the ending op were used up to now. */
RT_HIDDEN void rt_note_op_end(size_t pin_start, size_t pin_end, tidal_stream s);
/* A swap-out / drop hint covering [lo, hi) of c's bytes (chunk-relative):
 * 1 if every byte of c is now hinted (Note [partial-chunk hints]). */
RT_HIDDEN int rt_chunk_hint(rt_chunk *c, uint32_t lo, uint32_t hi, int drop);
/* Makes c mapped and current (need_data) or mapped with undefined
 * contents (write-only access).  c must be pinned by the caller. */
RT_HIDDEN tidal_status rt_chunk_restore(rt_chunk *c, int need_data);
/* Hints on one chunk.  swap_out flags: RT_SWAP_SYNC releases the memory
 * before returning; RT_SWAP_COPY copies even a chunk with a recompute
 * closure (the run-time planner's director chose swap). */
enum { RT_SWAP_SYNC = 1, RT_SWAP_COPY = 2 };
RT_HIDDEN tidal_status rt_chunk_swap_out(rt_chunk *c, unsigned flags);
RT_HIDDEN tidal_status rt_chunk_prefetch(rt_chunk *c);
/* Prefetches the chunks cs[0..n) (Note [prefetch batches]); cs is scratch. */
RT_HIDDEN tidal_status rt_prefetch_chunks(rt_chunk **cs, size_t n);
RT_HIDDEN tidal_status rt_chunk_drop(rt_chunk *c);
/* Undoes a write-only restore of an op whose begin failed (fresh_from). */
RT_HIDDEN void rt_chunk_unrestore(rt_chunk *c);
/* Waits for any copy in flight on c and settles its state. */
RT_HIDDEN tidal_status rt_chunk_settle(rt_chunk *c);
/* Gives c's host copy back to the store (after any copy still reading it). */
RT_HIDDEN void rt_chunk_free_host(rt_chunk *c);
/* Releases everything c holds (tidal_free). */
RT_HIDDEN tidal_status rt_chunk_release(rt_chunk *c);
/* Releases a's chunks [0, a->nchunks) (waiting for copies in flight), then
 * its address range once their unmaps have run; a->chunks stays a's. */
RT_HIDDEN tidal_status rt_range_release(rt_alloc *a);

/* ---- pool.c ---- */
/* Creates the pool for `budget` bytes: eagerly, or (lazy) one chunk at a
 * time as rt_phys_acquire needs them. */
RT_HIDDEN tidal_status rt_pool_init(size_t chunk_bytes, size_t budget, int lazy);
RT_HIDDEN void rt_pool_destroy(void);
/* One more physical chunk while nphys < phys_target (rt_mem.share permitting). */
/* over: even past the physical bound (Note [physical bound], devpool.c). */
RT_HIDDEN tidal_status rt_pool_add(uint32_t *phys, int over);
/* Removes free, unaliased phys from the pool (the budget shrank). */
RT_HIDDEN void rt_pool_remove(uint32_t phys);
RT_HIDDEN void rt_phys_free_push(uint32_t phys);
/* While on, a chunk released during a shrink is kept for the next acquire
 * (Note [exchange], residency.c). */
RT_HIDDEN void rt_pool_keep_released(int on);
/* budget_error.c: TIDAL_ERR_BUDGET naming the innermost open op and what
 * holds the memory (Note [budget errors]). */
RT_HIDDEN tidal_status rt_budget_exhausted(const char *why);
RT_HIDDEN uint32_t rt_phys_free_pop(void);  /* the top of the free stack (nfree_phys > 0) */
RT_HIDDEN int rt_phys_free_take(uint32_t phys); /* phys out of the free stack, if there */

/* ---- hoststore.c ---- */
RT_HIDDEN void rt_host_init(size_t slot_bytes, size_t budget_bytes);
/* Pins host pieces now until at least `bytes` of slots exist (bounded by
 * the host budget): Note [host store sizing]. */
RT_HIDDEN tidal_status rt_host_reserve(size_t bytes);
RT_HIDDEN int64_t rt_host_slot_alloc(void); /* -1 when the store is full; slots are offsets */
/* Note [exchange] (residency.c): a chunk-sized malloc'd buffer becomes a
 * slot of its own, beyond the host budget; adopt_ready (called first, may
 * grow the tables) says whether adopt will succeed.  The store frees it. */
RT_HIDDEN int rt_host_adopt_ready(void);
RT_HIDDEN int64_t rt_host_adopt(void *buf);
RT_HIDDEN void rt_host_slot_free(int64_t slot);
/* Frees slot once ev (a restore copy reading it) is done, without waiting
 * for it; takes ev over (Note [deferred slot free]). */
RT_HIDDEN void rt_host_slot_free_after(int64_t slot, rt_event *ev);
/* Frees the pending slots whose copies are done (wait: at least one, blocking). */
RT_HIDDEN void rt_host_pending_reap(int wait);
RT_HIDDEN void *rt_host_slot_addr(int64_t slot);
RT_HIDDEN size_t rt_host_capacity_slots(void);
RT_HIDDEN void rt_host_destroy(void);
/* Note [host slot ownership]: 0 if it holds, else -1 and a message. */
RT_HIDDEN int rt_host_check(char *msg, size_t len);

/* ---- suballoc.c ---- */
/* Hint kinds (suballoc.c; the run-time planner records them and its
 * actions are the same kinds). */
enum { RT_HINT_SWAP = 1, RT_HINT_PREFETCH, RT_HINT_DROP, RT_HINT_KEEP, RT_HINT_RECOMPUTE };
RT_HIDDEN tidal_status rt_small_alloc(rt_alloc *a, uint32_t group);
RT_HIDDEN tidal_status rt_small_free(rt_alloc *a);
/* A hint (RT_HINT_*) on [off, off+len) of packed allocation a:
 * Note [hints on packed allocations]. */
RT_HIDDEN tidal_status rt_small_hint(rt_alloc *a, size_t off, size_t len, int kind);
/* Freeing a would release a slab an open op has pinned. */
RT_HIDDEN int rt_small_busy(const rt_alloc *a);
RT_HIDDEN void rt_small_destroy(void);
/* Places a in an arena of `group` (TIDAL_GROUP_ARENA set); *placed = 0 when
 * it is too big for one (the caller makes it a plain allocation). */
RT_HIDDEN tidal_status rt_arena_alloc(rt_alloc *a, uint32_t group, int *placed);
RT_HIDDEN tidal_status rt_arena_free(rt_alloc *a);
/* Freeing a would release a chunk an open op has pinned. */
RT_HIDDEN int rt_arena_busy(const rt_alloc *a);
/* [*off, *off + *len) of member *a as a range of its arena's self; a hint
 * that reaches the member's end also covers its alignment padding. */
RT_HIDDEN void rt_arena_range(rt_alloc **a, size_t *off, size_t *len, int hint);
RT_HIDDEN void rt_arena_destroy_all(void);

/* ---- recompute.c ---- */
RT_HIDDEN tidal_status rt_recompute_register(uintptr_t lo, uintptr_t hi, tidal_recompute_fn fn,
                                             const void *ctx, size_t ctx_bytes);
RT_HIDDEN void rt_recompute_detach(rt_chunk *c); /* c no longer regenerated by its closure */
/* An op (begin stamp `stamp`) is about to write [lo, hi): ends every other
 * registration overlapping it, re-running it first if it holds data only as
 * "recomputable" that this op does not overwrite (Note [overwritten
 * registrations]). */
RT_HIDDEN tidal_status rt_recompute_overwrite(uintptr_t lo, uintptr_t hi, uint64_t stamp);
RT_HIDDEN tidal_status rt_recompute_run(rt_chunk *c);
RT_HIDDEN void rt_recompute_iteration_end(void);
RT_HIDDEN void rt_recompute_destroy(void);

/* ---- devpool.c (Note [device pool]) ---- */
/* len bytes of the pool at offset = phase (mod RT_SPAN_ALIGN) for owner:
 * within the budget unless transient (a gather's span), compacting and
 * evicting through the policy while it does not fit. */
RT_HIDDEN tidal_status rt_pool_place(size_t len, size_t phase, void *owner, int transient,
                                     const char *why, size_t *off);
/* Backs at least `need` more bytes of the pool, within the physical bound
 * (giving back the chunk pool's unused chunks for it: rt_phys_yield) or,
 * `over`, past it; 0 if it may not. */
RT_HIDDEN int rt_pool_grow(size_t need, int over);
/* Note [physical bound]: the device memory created (rt_physical_bytes) stays
 * within rt_physical_limit() once relocatable allocations exist: the budget
 * plus one growth step of the pool. */
RT_HIDDEN size_t rt_physical_limit(void);
/* Gives back the pool's top growth steps (compacting once if that empties
 * them) until `need` more bytes of physical chunks fit the bound: 1 if
 * they do. */
RT_HIDDEN int rt_pool_shrink(size_t need);
/* [off, off + len) was given back after `mark`; the mark a copy into
 * [off, off + len) must wait for. */
RT_HIDDEN void rt_pool_freed(size_t off, size_t len, uint64_t mark);
RT_HIDDEN uint64_t rt_pool_mark(size_t off, size_t len);
/* Parked unit c gives its block back (its state stays). */
RT_HIDDEN void rt_unit_give_parked(rt_chunk *c);

/* ---- units.c (Note [units]) ---- */
/* pace.c (Note [prefetch order]).  rt_pace_defer: of a prefetch hint's
 * units cs, keeps in cs (and counts) those to prefetch now; the others wait
 * on the list (may_defer 0: none, the leads are learnt all the same). */
RT_HIDDEN size_t rt_pace_defer(rt_chunk **cs, size_t n, int may_defer);
RT_HIDDEN void rt_pace_use(struct rt_unit *u, uint64_t stamp);
RT_HIDDEN void rt_pace_forget(struct rt_unit *u);
RT_HIDDEN tidal_status rt_pace_split(struct rt_unit *u, struct rt_unit *r);
RT_HIDDEN tidal_status rt_pace_pump(void);
RT_HIDDEN void rt_pace_destroy(void);
/* tidal_op_begin, step 1, for [off, off + len) of relocatable a: splits the
 * units its ends fall inside, covers its gaps with new units and pins them
 * (mode: the access's). */
RT_HIDDEN tidal_status rt_units_declare(rt_alloc *a, size_t off, size_t len, int mode,
                                        uint64_t stamp);
/* After the restores: every group of overlapping accesses of the op at
 * hand (begin stamp `stamp`; [offs[i], offs[i] + lens[i]) of allocations
 * as[i], NULL for home ones) lies contiguous in the pool.  place: before
 * the restores, groups none of whose units has a block get their span now
 * (Note [placed in advance]). */
RT_HIDDEN tidal_status rt_units_gather(rt_alloc **as, const size_t *offs, const size_t *lens,
                                       int n, uint64_t stamp, int place);
/* A begin that failed: the places of its units not restored go back. */
RT_HIDDEN void rt_units_unplace(size_t pin_start, size_t pin_end);
/* The op at hand's begin succeeded (fix 1) or it ends (fix 0): its units'
 * addresses are handed out / no longer. */
RT_HIDDEN void rt_units_fix(size_t pin_start, size_t pin_end, int fix);
/* tidal_at: the device address for p, or p itself (*undeclared set when p is
 * in a relocatable allocation outside every open op's units). */
RT_HIDDEN void *rt_units_at(uintptr_t p, int *undeclared);
/* Units [*first, *end) of a overlap [off, off + len). */
RT_HIDDEN void rt_units_range(const rt_alloc *a, size_t off, size_t len, size_t *first,
                              size_t *end);
RT_HIDDEN int rt_units_busy(const rt_alloc *a); /* an open op pins one */
/* Releases every unit of a (tidal_free, tidal_home). */
RT_HIDDEN tidal_status rt_units_release(rt_alloc *a);
/* tidal_home: a's bytes move to its own address, which becomes chunked. */
RT_HIDDEN tidal_status rt_units_home(rt_alloc *a);
/* The state machine's hooks (residency.c): a block for unit c (evicting
 * through the policy), c's block given back (copies into it later wait for
 * `mark`), c's device and host addresses. */
RT_HIDDEN tidal_status rt_unit_bind(rt_chunk *c, const char *why);
RT_HIDDEN void rt_unit_unbind(rt_chunk *c, uint64_t mark);
RT_HIDDEN uint64_t rt_unit_take_mark(rt_chunk *c);
RT_HIDDEN uintptr_t rt_unit_dev(const rt_chunk *c);
/* Units' host copies (hoststore.c, Note [one host store]): len bytes of
 * the host store, the same store chunks' slots come from; -1 when full.
 * Freeing waits for a copy still reading it. */
RT_HIDDEN int64_t rt_uhost_alloc(size_t len, void *owner);
RT_HIDDEN void rt_uhost_free(int64_t off);
/* Frees off once ev (a restore copy reading it) is done; takes ev over
 * (Note [deferred slot free]). */
RT_HIDDEN void rt_uhost_free_after(int64_t off, rt_event *ev);
RT_HIDDEN void *rt_uhost_addr(int64_t off);
RT_HIDDEN void rt_units_destroy(void);
/* Test hook: 0, or -1 and a message: the pool's blocks are the units'. */
RT_HIDDEN int rt_units_check(char *msg, size_t len);

/* ---- annotate.c ---- */
RT_HIDDEN void rt_annotate_forget(uintptr_t lo, uintptr_t hi); /* annotations starting in [lo, hi) */
RT_HIDDEN void rt_annotate_destroy(void);
RT_HIDDEN int rt_annotate_any(void);
/* Splits `resident` bytes by tidal_group (unannotated: OTHER). */
RT_HIDDEN void rt_annotate_resident(uint64_t resident, uint64_t out[TIDAL_NGROUPS]);
/* The trace's memory counters now (rt_trace_write_counters); no-op when not
 * tracing. */
RT_HIDDEN void rt_trace_counters(void);

#endif
