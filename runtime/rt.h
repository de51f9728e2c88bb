/* rt.h - libtidal's internal state and the functions its files share.
 *
 * One process-wide runtime (rt_g) owned by the training thread; no locks in
 * the core (see docs/runtime-design.md, "Thread model").  Cross-file names
 * carry the rt_ prefix and hidden visibility; public names are in tidal.h.
 * Sections below follow the file that defines them. */
#ifndef TIDAL_RT_H
#define TIDAL_RT_H

#include <stdint.h>
#include <stdio.h>
#include <stddef.h>
#include "backend.h"
#include "tidal.h"

#if defined(__GNUC__)
#define RT_HIDDEN __attribute__((visibility("hidden")))
#define RT_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define RT_HIDDEN
#define RT_PRINTF(a, b)
#endif

/* Defaults, with units in the names. */
#define RT_DEFAULT_CHUNK_BYTES ((size_t)2 << 20)
#define RT_SIM_DEFAULT_DEVICE_BYTES ((size_t)16 << 30)
/* The sim's copy costs come from runtime/sim_costs.txt; these two are only
 * trace.c's fallback for a copy event without a modelled end. */
#define RT_SIM_DEFAULT_BYTES_PER_S 55e9
#define RT_SIM_DEFAULT_LATENCY_S 10e-6
#define RT_HOST_PIECES_MAX 40               /* pieces double: 64 MiB * 2^39 is beyond any host */
#define RT_HOST_PIECE_MIN_BYTES ((size_t)64 << 20)
#define RT_RECOMPUTE_DEPTH_MAX 64           /* nested recompute closures before giving up */
#define RT_FREED_REMEMBERED 4096            /* freed bases kept to report double frees */
#define RT_KEEP_SCAN_MAX 64                 /* LRU entries skipped for tidal_keep before giving in */
#define RT_PARK_SCAN_MAX 16                 /* parked chunks polled for an idle one before waiting */

/* ---- chunks (residency.c) ----
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

/* A command queued for the VMM worker (Note [vmm worker], vmmq.c): its
 * sequence number, and when it ends on the sim's worker timeline. */
typedef struct rt_ticket {
  uint64_t seq; /* 0 = nothing queued */
  double vt;
} rt_ticket;

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
  uint64_t keep_iter;           /* tidal_keep: kept while equal to rt_g.iteration + 1 */
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
                                   last contents (Note [lazy unmap]); on rt_g.parked */
  uint8_t hint_drop_only;       /* every hint in [hint_lo, hint_hi) was a drop */
  uint8_t stale;                /* evicted and its memory given to another chunk, but phys
                                   is still mapped at its address (Note [stale aliases]) */
  uint32_t pin_slot;            /* scratch for op_begin: its entry in rt_g.pinned */
  uint32_t hint_lo, hint_hi;    /* bytes of it hinted (swap_out/drop) since its last use:
                                   Note [partial-chunk hints] */
  uint64_t last_op;             /* rt_g.ops_ended after the last op that declared it */
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
} rt_alloc;

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
  size_t slot_bytes;        /* = chunk bytes: every host copy is one chunk */
  size_t max_slots;         /* the host budget, in slots */
  size_t min_piece_slots;
  uint32_t npieces;
  int exhausted;            /* pinning failed once: do not retry on every swap */
  void *pieces[RT_HOST_PIECES_MAX];
  size_t first_slot[RT_HOST_PIECES_MAX + 1]; /* piece i holds [first_slot[i], first_slot[i+1]) */
  int64_t *free_slots;      /* stack of free slot numbers */
  size_t nfree, cap_free;
  size_t used;              /* slots handed out (pending ones included) */
  int64_t *pend_slots;      /* freed slots a restore copy may still read, oldest first
                               (Note [deferred slot free]) */
  rt_event *pend_evs;       /* their copies' events */
  size_t npend, cap_pend;
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
  size_t pin_start, pin_end; /* its chunks: pinned[pin_start .. pin_end) */
  tidal_stream stream;
} rt_frame;

typedef struct rt_runtime {
  int initialized;
  tidal_config cfg;              /* resolved */
  const rt_backend_ops *be;
  rt_backend *b;
  size_t granularity;
  size_t chunk_bytes;
  size_t budget_bytes;           /* phys_target * chunk_bytes */
  uint32_t nphys;                /* physical chunks that exist now */
  uint32_t *free_phys;           /* stack of unused physical chunks */
  uint32_t nfree_phys;
  uint32_t *free_pos;            /* per physical chunk: its index in free_phys while free */
  rt_chunk **phys_owner;         /* per physical chunk: the chunk whose data it holds
                                    (mapped or parked), NULL while free */
  uint64_t *phys_mark;           /* per physical chunk: a mark covering its previous
                                    holder's last use; copies into it wait for it on the
                                    device (Note [stale aliases]) */
  /* pool.c: the budget can change at run time (Note [resizable pool]) */
  uint32_t phys_target;          /* the budget in chunks; nphys converges to it */
  uint32_t phys_ids;             /* physical chunk numbers used so far: all are < phys_ids */
  uint32_t cap_phys;             /* entries of free_phys and absent_phys */
  uint32_t *absent_phys;         /* numbers below phys_ids with no physical chunk now */
  uint32_t nabsent_phys;
  size_t device_free;            /* bytes the backend offered at init: the budget's ceiling */
  /* Called after every budget change (the run-time planner replans); NULL = none. */
  void (*budget_changed)(size_t old_bytes, size_t new_bytes);
  struct rt_arbiter *arb;        /* arbiter.c: shared budget, or NULL */
  size_t footprint_bytes;        /* allocations in whole chunks, slabs included: the most
                                    this process could keep resident (its shared demand) */

  /* registry.c: live allocations sorted by base, and recently freed bases */
  rt_alloc **allocs;
  size_t nallocs, cap_allocs;
  uint64_t allocated_bytes;   /* live tidal_malloc bytes: the program's footprint without tidal */
  rt_alloc *last_hit;
  uintptr_t *freed;              /* ring of freed bases */
  size_t nfreed, freed_head;

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

  rt_frame *frames;
  int depth, cap_frames;
  rt_pin_entry *pinned;
  size_t npinned, cap_pinned;
  uint64_t op_stamp;
  tidal_stream stream;

  rt_hoststore hs;
  rt_slab *slabs;
  rt_arena *arenas;              /* newest first */
  rt_recompute *rcs;
  int rc_depth;                  /* recompute closures on the stack */
  int rc_floor;                  /* op frames below this belong to the ops whose
                                    closures are running: tidal_op_end may not pop them */
  tidal_status rc_error;         /* first failure inside a closure */

  uint64_t iteration;            /* epoch: tidal_iteration_end calls so far */
  int in_iteration;

  uint64_t iterations_done;
  tidal_counters total, cur;     /* cur: the iteration in progress */
  double iter_t0;                /* modelled clock at iteration begin */

  FILE *trace;

  /* budget.c (Note [budget meaning]) */
  double budget_peak_percent;    /* budget = this % of the first iteration's peak; 0 = none */
  size_t budget_peak_bytes;      /* that peak, once measured */
  size_t budget_resolved_bytes;  /* the budget it gives, once resolved */
  /* api.c: the thread that called tidal_init (Note [one thread]) */
  uintptr_t owner_thread;
} rt_runtime;

RT_HIDDEN extern rt_runtime rt_g;

/* ---- api.c ---- */
RT_HIDDEN void rt_frame_unwind(void); /* pops the top op frame, unpinning its chunks */

/* ---- status.c ---- */
RT_HIDDEN tidal_status rt_error(tidal_status st, const char *fmt, ...) RT_PRINTF(2, 3);
RT_HIDDEN void rt_log(int level, const char *fmt, ...) RT_PRINTF(2, 3);
RT_HIDDEN void rt_clear_error(void);
/* Sets tidal_last_error() without logging (parsers the tool calls too). */
RT_HIDDEN void rt_set_error(const char *fmt, ...) RT_PRINTF(1, 2);

/* ---- size.c ---- */
/* tidal_parse_size: 1, or 0 with the message set (Note [size syntax]). */
RT_HIDDEN int rt_size_parse(const char *text, tidal_size *out);

/* ---- config.c ---- */
RT_HIDDEN size_t rt_host_ram_bytes(void);
/* Reads only TIDAL_DEVICE (tidal_init with an explicit config). */
RT_HIDDEN tidal_status rt_config_device_from_env(tidal_device *device);
/* Warns once about TIDAL_* variables nothing reads (typos). */
RT_HIDDEN void rt_config_warn_unknown_env(void);

/* ---- budget.c ---- */
/* The budget tidal_init creates the pool with (Note [budget meaning]). */
RT_HIDDEN tidal_status rt_budget_initial(const tidal_config *cfg, size_t device_free,
                                         size_t *budget);
/* Resolves a percent-of-peak budget after the first iteration. */
RT_HIDDEN void rt_budget_iteration_end(void);
/* TIDAL_ERR_BUDGET when eviction finds nothing (Note [budget errors]). */
RT_HIDDEN tidal_status rt_budget_exhausted(const char *why);

/* ---- summary.c ---- */
/* The memory summary printed at tidal_shutdown (TIDAL_STATS). */
RT_HIDDEN void rt_summary_print(FILE *out);

/* ---- registry.c ---- */
RT_HIDDEN tidal_status rt_registry_insert(rt_alloc *a);
RT_HIDDEN void rt_registry_remove(rt_alloc *a);
/* The live allocation containing p, or NULL. O(log n). */
RT_HIDDEN rt_alloc *rt_registry_find(uintptr_t p);
RT_HIDDEN int rt_registry_was_freed(uintptr_t p);
RT_HIDDEN void rt_registry_destroy(void);

/* ---- residency.c ---- */
RT_HIDDEN void rt_list_push(rt_list *l, int id, rt_chunk *c);
RT_HIDDEN void rt_list_remove(rt_list *l, rt_chunk *c);
RT_HIDDEN rt_list *rt_list_of(rt_chunk *c);
RT_HIDDEN uintptr_t rt_chunk_addr(const rt_chunk *c);
RT_HIDDEN size_t rt_chunk_len(const rt_chunk *c); /* bytes of the allocation in it */
RT_HIDDEN int rt_chunk_mapped(const rt_chunk *c);
RT_HIDDEN void rt_pin(rt_chunk *c);
RT_HIDDEN void rt_unpin(rt_chunk *c);
/* Finishes completed copies: swapped-out chunks release their device memory. */
RT_HIDDEN tidal_status rt_reap(int wait_all);
/* A free physical chunk, evicting LRU chunks if needed. */
RT_HIDDEN tidal_status rt_phys_acquire(uint32_t *phys, const char *why);
RT_HIDDEN void rt_phys_release(uint32_t phys); /* pool.c */
/* api.c: TIDAL_OK if a public call may run here (initialised, the owning
 * thread, not a forked child: Notes [one thread] and [fork]), else the
 * refusal, with its message. */
RT_HIDDEN tidal_status rt_api_check(const char *fn);
/* While on, a chunk released during a shrink is kept for the next acquire
 * (Note [exchange], residency.c); pool.c. */
RT_HIDDEN void rt_pool_keep_released(int on);
RT_HIDDEN uint32_t rt_phys_free_pop(void);  /* pool.c: the top of the free stack (nfree_phys > 0) */
RT_HIDDEN int rt_phys_free_take(uint32_t phys); /* pool.c: phys out of the free stack, if there */
/* Unmaps every stale alias of phys (Note [stale aliases]): it is going away. */
RT_HIDDEN void rt_phys_unalias(uint32_t phys);
/* One step towards a free physical chunk (reassign parked memory, reap,
 * evict, land a prefetch). */
RT_HIDDEN tidal_status rt_phys_free_one(const char *why);
/* Grants access to every chunk mapped since the last flush: one
 * set_access per contiguous range (Note [access batching]). */
RT_HIDDEN tidal_status rt_access_flush(void);
/* The VMM worker has run every command queued for the chunks of
 * rt_g.pinned[pin_start, pin_end) (Note [vmm worker]): the end of
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
/* a->chunks[0, n): owned by a, numbered, unmapped, no host slot. */
RT_HIDDEN void rt_chunks_init(rt_alloc *a, uint32_t n);
/* Releases a's chunks [0, a->nchunks) (waiting for copies in flight), then
 * its address range once their unmaps have run; a->chunks stays a's. */
RT_HIDDEN tidal_status rt_range_release(rt_alloc *a);

/* ---- vmmq.c: the VMM worker (Note [vmm worker]) ---- */
RT_HIDDEN tidal_status rt_vmmq_start(void); /* tidal_init, when cfg.vmm_thread */
RT_HIDDEN void rt_vmmq_stop(void);          /* drains, then joins; no-op when off */
RT_HIDDEN int rt_vmmq_on(void);
/* Queues cmd (backend cmd_prepare first): *ev as the backend fills it (a
 * copy's carries the ticket), *t its ticket; ev and t may be NULL. */
RT_HIDDEN tidal_status rt_vmmq_submit(rt_cmd *cmd, rt_event *ev, rt_ticket *t);
RT_HIDDEN int rt_vmmq_done(uint64_t seq);       /* never blocks */
/* Blocks until the worker has run command seq: the real wait only (the
 * backends' event calls).  The worker's failure, if any. */
RT_HIDDEN tidal_status rt_vmmq_sync(uint64_t seq);
/* rt_vmmq_sync, and the sim's host clock waits for t->vt. */
RT_HIDDEN tidal_status rt_vmmq_wait(const rt_ticket *t);
RT_HIDDEN tidal_status rt_vmmq_drain(void); /* every command queued so far */

/* ---- pool.c ---- */
/* Creates the pool for `budget` bytes: eagerly, or (lazy) one chunk at a
 * time as rt_phys_acquire needs them. */
RT_HIDDEN tidal_status rt_pool_init(size_t chunk_bytes, size_t budget, int lazy);
RT_HIDDEN void rt_pool_destroy(void);
/* One more physical chunk while nphys < phys_target (the arbiter permitting). */
RT_HIDDEN tidal_status rt_pool_add(uint32_t *phys);
/* Changes the budget: growing lets the pool add chunks as they are needed;
 * shrinking evicts through the usual path (nothing is lost) and gives the
 * chunks back.  Chunks pinned by open ops go when released.  Calls
 * rt_g.budget_changed.  TIDAL_ERR_CONFIG for a budget under one chunk or over
 * the device. */
RT_HIDDEN tidal_status rt_budget_set(size_t bytes);

/* ---- arbiter.c ---- */
/* Joins the shared budget named by the config (TIDAL_SHARED_BUDGET); sets
 * *budget to this process's first share.  No-op when none is configured. */
RT_HIDDEN tidal_status rt_arbiter_join(const tidal_config *cfg, size_t *budget);
RT_HIDDEN void rt_arbiter_leave(void);
/* Publishes demand and applies a changed share (rt_budget_set).  full: take
 * the lock, check who is alive and divide again (iteration boundaries);
 * else only a changed division or demand costs more than a load (ops). */
RT_HIDDEN void rt_arbiter_poll(int full);
/* Physical bytes this process may hold: take before creating a chunk (0 if
 * the total is spent), give back after releasing one. */
RT_HIDDEN int rt_arbiter_take(size_t bytes);
/* An op's working set of `bytes` exceeds this process's share: it becomes
 * the process's floor in the division (Note [shared budget]) and the
 * budget follows the new share.  1 if the budget now holds it. */
RT_HIDDEN int rt_arbiter_need(size_t bytes);
RT_HIDDEN void rt_arbiter_give(size_t bytes);
/* Waits (bounded) until the total has room for `bytes` more; 0 on timeout. */
RT_HIDDEN int rt_arbiter_wait(size_t bytes);
/* The shared total and the most physical memory the group held at once (0 if none). */
RT_HIDDEN void rt_arbiter_stats(uint64_t *total, uint64_t *peak);

/* ---- hoststore.c ---- */
RT_HIDDEN void rt_host_init(size_t slot_bytes, size_t budget_bytes);
/* Pins host pieces now until at least `bytes` of slots exist (bounded by
 * the host budget): Note [host store sizing]. */
RT_HIDDEN tidal_status rt_host_reserve(size_t bytes);
RT_HIDDEN int64_t rt_host_slot_alloc(void); /* -1 when the store is full */
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
RT_HIDDEN tidal_status rt_small_alloc(rt_alloc *a, uint32_t group);
RT_HIDDEN tidal_status rt_small_free(rt_alloc *a);
/* A hint (RT_HINT_*, planner.h) on [off, off+len) of packed allocation a:
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

/* ---- stats.c ---- */
RT_HIDDEN void rt_stats_note_resident(void);
RT_HIDDEN void rt_stats_add(size_t offset, uint64_t v); /* offsetof(tidal_counters, f) */
RT_HIDDEN void rt_stats_add_time(size_t offset, double s);
RT_HIDDEN void rt_stats_iteration_begin(void);
RT_HIDDEN void rt_stats_iteration_end(void);
#define RT_COUNT(field, v) rt_stats_add(offsetof(tidal_counters, field), (uint64_t)(v))
#define RT_COUNT_TIME(field, s) rt_stats_add_time(offsetof(tidal_counters, field), (s))
static inline size_t rt_resident_bytes(void) {
  return (size_t)(rt_g.nphys - rt_g.nfree_phys - rt_g.parked.n) * rt_g.chunk_bytes;
}

/* ---- profile.c: per-site op durations (TIDAL_PROFILE) ---- */
RT_HIDDEN void rt_profile_add(const tidal_site *site, double seconds);
RT_HIDDEN tidal_status rt_profile_write(const char *path);
/* At tidal_init: path can be written (a file there is created or opened,
 * never truncated; one this made is removed again).  TIDAL_ERR_CONFIG. */
RT_HIDDEN tidal_status rt_profile_check(const char *path);
RT_HIDDEN void rt_profile_destroy(void);

/* ---- costs.c: the sim's cost model (Note [sim cost model]) ---- */
typedef struct rt_costs {
  double map_s, set_access_s, unmap_s;        /* per driver call, host */
  double event_record_s, event_query_s;       /* host */
  double event_sync_s;                        /* host wake-up after a blocking wait */
  double stream_wait_s;                       /* cuStreamWaitEvent, host */
  double launch_s;                            /* host cost of one op's launch */
  double launch_gap_s;                        /* device idle between back-to-back ops */
  double copy_issue_s;                        /* host cost of issuing one async copy */
  double vmm_enqueue_s;                       /* host cost of queuing one command for the
                                                 VMM worker (Note [vmm worker]) */
  double copy_latency_s;                      /* device: per copy, before bytes move */
  double h2d_bytes_per_s, d2h_bytes_per_s;    /* pinned, per direction */
  double pin_bytes_per_s;                     /* host pinning (cuMemHostAlloc) */
  double host_ahead_s;                        /* most the host runs ahead of the device */
} rt_costs;
/* Parses the cost file format ("key value  # comment" lines) over the
 * values already in *c; 0 on success, else -1 and a message in err. */
RT_HIDDEN int rt_costs_parse(const char *text, const char *name, rt_costs *c, char *err,
                             size_t errlen);
/* The built-in defaults (runtime/sim_costs.txt), then path if non-NULL. */
RT_HIDDEN tidal_status rt_costs_load(const char *path, rt_costs *c);

/* ---- annotate.c ---- */
RT_HIDDEN void rt_annotate_forget(uintptr_t lo, uintptr_t hi); /* annotations starting in [lo, hi) */
RT_HIDDEN void rt_annotate_destroy(void);
RT_HIDDEN int rt_annotate_any(void);
/* Splits `resident` bytes by tidal_group (unannotated: OTHER). */
RT_HIDDEN void rt_annotate_resident(uint64_t resident, uint64_t out[TIDAL_NGROUPS]);

/* ---- the run-time planner (plan_exec.c; planner.h has the rest) ----
 * Hooks from api.c.  op_enter runs the plan's actions for the op about to
 * begin (top level only); op_pinned sees which chunks it will fault in;
 * op_ready/op_exit time it; hint says whether a build-time hint runs. */
RT_HIDDEN tidal_status rt_planner_init(void);
RT_HIDDEN void rt_planner_shutdown(void);
RT_HIDDEN tidal_status rt_planner_op_enter(const tidal_site *site, int n, const tidal_access *acc);
RT_HIDDEN void rt_planner_op_pinned(size_t pin_start, size_t pin_end);
RT_HIDDEN void rt_planner_op_ready(void);
RT_HIDDEN void rt_planner_op_failed(void);
RT_HIDDEN void rt_planner_op_exit(tidal_stream s);
RT_HIDDEN int rt_planner_hint(int kind, const rt_alloc *a, size_t off, size_t len);
/* The run-time planner (TIDAL_PLANNER=runtime) decides the releases
 * (residency.c leaves the chunks it keeps alone: Note [clean before waiting]). */
RT_HIDDEN int rt_planner_steering(void);
RT_HIDDEN void rt_planner_iteration_begin(void);
RT_HIDDEN void rt_planner_iteration_end(void);
/* rt_g.budget_changed while the run-time planner runs (rt_budget_set calls
 * it): the plan is rebuilt at the next iteration end; until then LRU
 * eviction keeps resident bytes inside the new budget. */
RT_HIDDEN void rt_planner_budget_changed(size_t old_bytes, size_t new_bytes);
/* Parses TIDAL_PLANNER's value; 0 if malformed. */
RT_HIDDEN int rt_parse_planner(const char *s, tidal_planner *out);

/* ---- trace.c (Note [trace format]) ---- */
/* TIDAL_ERR_CONFIG if path cannot be written. */
RT_HIDDEN tidal_status rt_trace_open(const char *path);
RT_HIDDEN tidal_status rt_trace_close(void); /* a write failure: TIDAL_ERR_CONFIG */
/* An instant on the runtime track: {"name":ev, "args":{<fields>}}; fields
 * is a JSON fragment. */
RT_HIDDEN void rt_trace(const char *ev, const char *fmt, ...) RT_PRINTF(2, 3);
RT_HIDDEN void rt_trace_counters(void); /* resident/host/budget bytes, if changed */
RT_HIDDEN void rt_trace_budget(void);
RT_HIDDEN void rt_trace_op_begin(const tidal_site *site);
RT_HIDDEN void rt_trace_op_end(const tidal_site *site);
RT_HIDDEN void rt_trace_recompute(int begin, uintptr_t lo, size_t bytes);
RT_HIDDEN void rt_trace_iteration(int begin);
/* A copy issued now (ev: its completion event).  waited_s >= 0: it was
 * synchronous and took that long; else, on CUDA, rt_trace_copy_done ends it. */
RT_HIDDEN void rt_trace_copy(int d2h, const char *name, uintptr_t addr, size_t bytes,
                             const rt_event *ev, double waited_s);
RT_HIDDEN void rt_trace_copy_done(int d2h, const char *name, uintptr_t addr);
#define RT_TRACING() (rt_g.trace != NULL)

#endif
