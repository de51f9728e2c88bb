/* planner.h - the run-time planner's internal types (record.c, planner.c,
 * plan_exec.c).  docs/runtime-design.md, "Run-time planning", is the map.
 *
 * record.c     what one iteration did: top-level ops with their accesses,
 *              measured durations, stalls and the chunks they found missing,
 *              and the build-time hints the program called between them;
 * planner.c    a plan from one record: which idle spans (gaps) of which
 *              tensors to release, how (swap, drop, recompute) and where to
 *              prefetch them back;
 * plan_exec.c  runs the plan inside tidal_op_begin, gates the hints, feeds
 *              back what happened and decides when to (re)plan. */
#ifndef TIDAL_RT_PLANNER_H
#define TIDAL_RT_PLANNER_H

#include "policy/policy.h"

/* ---- record.c ---- */

typedef struct rt_rec_acc {
  uintptr_t base;      /* the allocation (tidal_malloc's pointer) */
  size_t alloc_bytes;  /* its size: the same base with another size is another tensor */
  size_t off, len;     /* resolved range */
  uint8_t mode;        /* tidal_mode */
} rt_rec_acc;

typedef struct rt_rec_op {
  const tidal_site *site;
  uint64_t hash;          /* site and accesses: the op's identity */
  uint32_t acc0, nacc;    /* its accesses: rec->accs[acc0 .. acc0 + nacc) */
  uint32_t miss0, nmiss;  /* chunks it found not resident: rec->miss[...] */
  double dur_s;           /* measured: sim clock, or CUDA events */
  double stall_s;         /* waited in tidal_op_begin for data */
  double rc_s;            /* of which recompute closures ran */
  double est_s;           /* the site's est_seconds: the duration when not timed */
  rt_event t0, t1;        /* time marks around the op's work */
  uint8_t timed;          /* t0/t1 hold marks */
} rt_rec_op;

typedef struct rt_rec_hint {
  uint32_t pos;           /* issued before top-level op `pos` of the iteration */
  uint8_t kind;           /* RT_HINT_* */
  uintptr_t base;
  size_t alloc_bytes, off, len;
} rt_rec_hint;

typedef struct rt_record {
  rt_rec_op *ops;
  uint32_t nops, cap_ops;
  rt_rec_acc *accs;
  uint32_t naccs, cap_accs;
  rt_rec_hint *hints;
  uint32_t nhints, cap_hints;
  uintptr_t *miss;        /* chunk addresses */
  uint32_t nmiss, cap_miss;
  uint64_t sig;           /* hash of every op's hash, in order */
  int timed;              /* durations were measured */
  double span_s;          /* timed: device time from the first op's start mark to the last
                             op's end mark, stalls and idle included (0: not measured) */
  uint32_t plan_gen;      /* the plan the iteration ran on (plan_exec.c), 0 = none */
  uint8_t ran_hints;      /* it ran the build-time hints as written beside that plan's ops,
                             not the plan (Note [the hints as a candidate], plan_exec.c) */
} rt_record;

RT_HIDDEN void rt_record_reset(rt_record *r);
RT_HIDDEN void rt_record_free(rt_record *r);
/* Appends one op; returns its index or -1 (out of memory: recording stops). */
RT_HIDDEN int rt_record_op(rt_record *r, const tidal_site *site, int n, const tidal_access *acc);
RT_HIDDEN void rt_record_miss(rt_record *r, uint32_t op, uintptr_t chunk_addr);
RT_HIDDEN void rt_record_hint(rt_record *r, uint32_t pos, int kind, uintptr_t base,
                              size_t alloc_bytes, size_t off, size_t len);
/* Reads the time marks into dur_s (untimed ops: est_s) and frees them;
 * blocks until the device reaches the last one unless rt_record_marks_ready
 * said it has.  Sets r->timed, and r->span_s, when every op was timed. */
RT_HIDDEN void rt_record_finish(rt_record *r);
/* Some op of r holds time marks (not read yet). */
RT_HIDDEN int rt_record_has_marks(const rt_record *r);
/* The device has reached every mark of r (never blocks; 1 if none). */
RT_HIDDEN int rt_record_marks_ready(const rt_record *r);
/* The identity hash of an op as rt_record_op computes it. */
RT_HIDDEN uint64_t rt_record_op_hash(const tidal_site *site, int n, const tidal_access *acc);

/* ---- planner.c ---- */

enum { RT_ACT_SWAP = 1, RT_ACT_DROP, RT_ACT_RECOMPUTE, RT_ACT_PREFETCH };

/* What feedback learnt about one gap; survives replanning from one record. */
typedef struct rt_gap_adj {
  double extra_lead_s;  /* its prefetch was late by this much: issue it earlier */
  double lead_stall_s;  /* the wait that last moved it earlier */
  uint8_t lead_stuck;   /* moving it earlier did not shorten the wait: stop */
  uint8_t forced;       /* a fault showed it gets evicted anyway: release and prefetch it */
  uint8_t no_rc;        /* its recompute cost more than a swap would */
} rt_gap_adj;

typedef struct rt_plan_alloc {
  uintptr_t base;
  size_t bytes;
  uint32_t nchunks;
  uint32_t *group;      /* per chunk: its group + 1, 0 = used by no op */
} rt_plan_alloc;

/* A group: consecutive chunks of one allocation that the same ops use in
 * the same way - the tensor as the runtime sees it. */
typedef struct rt_plan_group {
  uint32_t alloc, c0, c1; /* chunks c0..c1 inclusive */
  uint32_t use0, nuse;    /* its uses in plan->uses */
  uint32_t gap0, ngaps;   /* its gaps in plan->gaps */
  uint8_t dirty;          /* some op writes it: releasing it copies */
} rt_plan_group;

/* A gap: the idle span of a group from one use to the next (cyclic: the
 * last use's gap ends at the first use of the next iteration). */
typedef struct rt_plan_gap {
  uint32_t group;
  uint32_t from, to;      /* op indices of the uses around it */
  uint8_t need;           /* the use at `to` reads (else overwrites every byte) */
  uint8_t drop_ok;        /* a build-time drop hint covered it: proven dead */
  uint8_t rc_ok;          /* a recompute closure was registered for it */
  uint8_t released;       /* the plan releases it */
  uint8_t kind;           /* RT_ACT_SWAP / DROP / RECOMPUTE when released */
  uint32_t pf;            /* released: op before which it comes back (prefetch) */
  uint8_t has_pf;         /* released by swap and prefetched before the use */
  double cost_s;          /* modelled exposed time of the choice */
  double swap_cost_s;     /* what a swap would have cost (the director's other option) */
} rt_plan_gap;

typedef struct rt_plan_act {
  uint32_t pos;           /* issued in tidal_op_begin of op pos, before it runs */
  uint8_t kind;           /* RT_ACT_* */
  uint32_t gap;
} rt_plan_act;

typedef struct rt_plan_params {
  size_t chunk_bytes;
  uint32_t avail_chunks;    /* budget in chunks, less packed-allocation slabs */
  uint32_t margin_chunks;   /* learnt by feedback: memory the model misses */
  double h2d_bytes_per_s, d2h_bytes_per_s, latency_s;
  double slack;             /* prefetch lead = copy time * (1 + slack) */
} rt_plan_params;

typedef struct rt_plan {
  uint32_t nops;
  uint64_t *op_hash;        /* the recorded iteration's op identities */
  rt_plan_alloc *allocs;
  uint32_t nallocs;
  uint32_t *uses;           /* op << 2 | need << 1 | write, grouped per group */
  uint32_t nuses;
  rt_plan_group *groups;
  uint32_t ngroups;
  rt_plan_gap *gaps;
  uint32_t ngaps;
  rt_plan_act *acts;        /* sorted by pos */
  uint32_t nacts;
  uint32_t *act_start;      /* per op: first act at that pos (nops + 1 entries) */
  int binding;              /* the budget is below the unplanned peak */
  uint32_t peak_before, peak_after; /* modelled chunks */
  double est_cost_s;        /* modelled exposed time per iteration */
} rt_plan;

/* Builds *out from rec (adj: per gap, may be NULL; its length must be the
 * plan's ngaps, which depends only on rec).  0, or -1 out of memory. */
RT_HIDDEN int rt_plan_build(const rt_record *rec, const rt_plan_params *p, const rt_gap_adj *adj,
                            rt_plan *out);
RT_HIDDEN void rt_plan_free(rt_plan *pl);
/* The group of a chunk (address) in the plan, or -1. */
RT_HIDDEN int rt_plan_group_of(const rt_plan *pl, uintptr_t base, size_t alloc_bytes,
                               uint32_t chunk);
/* The gap of group g that op position pos lies in (after `from`, up to and
 * including `to`), or -1. */
RT_HIDDEN int rt_plan_gap_at(const rt_plan *pl, uint32_t g, uint32_t pos);

#endif
