/* backend.h - the device interface the layers above run on.
 *
 * Two implementations: backend_sim.c (the device emulated in host memory,
 * with a virtual clock) and backend_cuda.c (CUDA driver virtual memory
 * management).  The layers above talk only to this table - its mapping
 * calls, copies, parking and events through the VMM queue's front, which
 * may run them on the worker thread (Note [device front], vmmq.c) - so they
 * never know which backend runs.
 *
 * Vocabulary:
 *  - a reservation is a device address range that never moves; chunks of it
 *    are mapped to and unmapped from physical chunks;
 *  - physical chunks are numbered; the pool is created at init, sized by
 *    the budget, never grown or released per eviction, only when the budget
 *    changes (phys_add / phys_remove; numbers may then have gaps);
 *  - an event marks the completion of a copy (or the moment a physical chunk
 *    may be reused); it is a plain value the core stores in a chunk.
 * All functions are called from the training thread only, except
 * cmd_run and worker_attach, which the VMM worker calls (Note [vmm worker]
 * in vmmq.c). */
#ifndef TIDAL_RT_BACKEND_H
#define TIDAL_RT_BACKEND_H

#include <stdint.h>
#include "tidal.h"

typedef struct rt_event {
  uint64_t seq;    /* sim: copy sequence number, 0 = complete already */
  double vt;       /* sim: virtual time the event completes at */
  void *handle;    /* cuda: a CUevent from the backend's pool, NULL = none */
  uint64_t ticket; /* the VMM worker's command that issues it (Note [vmm worker]);
                      0 = issued already.  The backends ignore it: the device
                      front waits for that command first (Note [device front]). */
} rt_event;

/* Note [vmm worker] (vmmq.c): a driver command the VMM worker runs, in
 * the order the training thread queued them. */
typedef enum rt_cmd_kind {
  RT_CMD_MAP = 1,    /* map phys at addr */
  RT_CMD_SET_ACCESS, /* grant access to [addr, addr + bytes) */
  RT_CMD_UNMAP,      /* unmap addr once `mark` is done */
  RT_CMD_D2H,        /* copy bytes from addr to host, after `stream`'s work */
  RT_CMD_H2D         /* copy bytes from host to addr (urgent: the fault stream) */
} rt_cmd_kind;

typedef struct rt_cmd {
  uint64_t seq;        /* its ticket: commands are numbered from 1 in queue order */
  uintptr_t addr;      /* device address */
  size_t bytes;        /* SET_ACCESS, copies */
  void *host;          /* copies: the host side */
  void *handle;        /* the backend's: cuda memory handle (MAP), CUevent (copies) */
  tidal_stream stream; /* D2H: runs after the work enqueued on it */
  uint64_t mark;       /* UNMAP: the last-use mark to wait for first; H2D: the mark its
                          stream waits for first (Note [stale aliases]); 0 = none */
  uint32_t phys;       /* MAP, UNMAP, copies: the physical chunk */
  uint8_t kind;        /* rt_cmd_kind */
  uint8_t urgent;      /* H2D: a fault */
} rt_cmd;

typedef struct rt_backend rt_backend; /* each backend's private state */

/* The `phys` of a copy into or out of the device pool (a relocatable unit's
 * block): no physical chunk. */
#define RT_PHYS_NONE UINT32_MAX

typedef struct rt_backend_ops {
  const char *name; /* "sim" or "cuda" */
  /* Opens the device.  *granularity: mapping unit (chunk sizes are its
   * multiples); *device_free: bytes the budget may use (percent budgets are
   * taken of this). */
  tidal_status (*create)(const tidal_config *cfg, rt_backend **out, size_t *granularity,
                         size_t *device_free);
  /* Creates the pool of n physical chunks of chunk_bytes each, once. */
  tidal_status (*pool_create)(rt_backend *b, size_t chunk_bytes, uint32_t n);
  /* The budget changed: physical chunk `phys` is created (it may be past
   * the pool's first n) or, unmapped, given back. */
  tidal_status (*phys_add)(rt_backend *b, uint32_t phys);
  void (*phys_remove)(rt_backend *b, uint32_t phys);
  /* Waits for every copy and releases everything, pool included. */
  void (*destroy)(rt_backend *b);

  tidal_status (*reserve)(rt_backend *b, size_t bytes, uintptr_t *addr);
  void (*release)(rt_backend *b, uintptr_t addr, size_t bytes);
  /* Maps physical chunk phys at addr (one chunk; cuMemMap).  The device may
   * not touch it before set_access.  *ready: when the physical memory may be
   * written (its previous user's copy has finished). */
  tidal_status (*map)(rt_backend *b, uintptr_t addr, uint32_t phys, rt_event *ready);
  /* Grants device access to [addr, addr+bytes), a run of mapped chunks of
   * one reservation (cuMemSetAccess, once per run: Note [access batching]). */
  tidal_status (*set_access)(rt_backend *b, uintptr_t addr, size_t bytes);
  /* Unmaps one chunk at addr (cuMemUnmap).  The caller has made sure that
   * no work still uses it (a mark covering its last use is done). */
  tidal_status (*unmap)(rt_backend *b, uintptr_t addr, uint32_t phys);
  /* The chunk at addr is evicted but phys stays mapped there, holding its
   * contents (Note [lazy unmap]): no driver call on CUDA; the sim makes it
   * PROT_NONE so that stray accesses still fault.  unpark undoes it. */
  tidal_status (*park)(rt_backend *b, uintptr_t addr, uint32_t phys);
  tidal_status (*unpark)(rt_backend *b, uintptr_t addr, uint32_t phys);

  /* Pinned host memory for the host store (large pieces, allocated rarely). */
  tidal_status (*host_alloc)(rt_backend *b, size_t bytes, void **p);
  void (*host_free)(rt_backend *b, void *p, size_t bytes);

  /* Asynchronous copies on the dedicated engines.  d2h runs after all work
   * enqueued so far on `after` (the chunk's last writer's stream).  h2d runs
   * on the prefetch stream, or (urgent: a fault an op is about to wait for)
   * on a high-priority stream of its own, so it does not queue behind bulk
   * prefetches.  h2d's stream first waits for `after_mark` (0 = none):
   * the physical chunk's previous holder may still be using it on the
   * compute stream (Note [stale aliases] in residency.c); the host does not
   * wait. */
  tidal_status (*copy_d2h)(rt_backend *b, void *dst, uintptr_t src, size_t bytes, uint32_t phys,
                           tidal_stream after, rt_event *done);
  tidal_status (*copy_h2d)(rt_backend *b, uintptr_t dst, const void *src, size_t bytes,
                           uint32_t phys, int urgent, uint64_t after_mark, rt_event *done);

  /* The device pool of relocatable units (Note [device pool],
   * memory/units.c), in a range from `reserve`.  pool_grow backs [addr,
   * addr + bytes) with new physical memory, mapped and accessible (CUDA:
   * cuMemCreate, cuMemMap, cuMemSetAccess: a few calls per growth step,
   * never per move; the sim: one read-write mapping).  pool_release gives
   * back the first `mapped` bytes of [addr, addr + reserved) and the range.
   * pool_shrink gives back [addr, addr + bytes), the last growth steps
   * (whole ones: addr is where one began), unmapped and released; the
   * caller waited for their last use (Note [physical bound], devpool.c).
   * NULL: the backend has no pool (relocatable allocations stay home). */
  tidal_status (*pool_grow)(rt_backend *b, uintptr_t addr, size_t bytes);
  void (*pool_shrink)(rt_backend *b, uintptr_t addr, size_t bytes);
  void (*pool_release)(rt_backend *b, uintptr_t addr, size_t reserved, size_t mapped);
  /* A device-to-device copy on stream s after the work enqueued there and,
   * if `after` is another stream, after the work enqueued on it (the
   * source's last writer), for a gather, compaction or tidal_home: later
   * work on s follows it. */
  tidal_status (*copy_d2d)(rt_backend *b, uintptr_t dst, uintptr_t src, size_t bytes,
                           tidal_stream s, tidal_stream after);

  /* Nonzero if the event completed (never blocks). */
  int (*event_done)(rt_backend *b, const rt_event *ev);
  /* Blocks the host until the event completes; *waited_s += host wait. */
  tidal_status (*event_sync)(rt_backend *b, const rt_event *ev, double *waited_s);
  /* Later work on stream s waits for ev (no host block on CUDA; the sim
   * blocks the host, because its "kernels" run on the host); *stall_s +=
   * the modelled time the compute timeline waited. */
  tidal_status (*stream_wait)(rt_backend *b, tidal_stream s, const rt_event *ev, double *stall_s);
  /* The core no longer needs ev (CUDA returns the CUevent to its pool). */
  void (*event_release)(rt_backend *b, rt_event *ev);

  /* Note [last-use marks]: a mark is a point on compute stream s after all
   * work enqueued so far (an event recorded there).  Marks are numbered
   * from 1 in order; 0 means "nothing to wait for".  mark_done polls (never
   * blocks); mark_wait blocks the host (*waited_s += the wait). */
  tidal_status (*mark)(rt_backend *b, tidal_stream s, uint64_t *mark);
  int (*mark_done)(rt_backend *b, uint64_t mark);
  tidal_status (*mark_wait)(rt_backend *b, uint64_t mark, double *waited_s);

  /* An op's work is about to be enqueued on s (the end of tidal_op_begin),
   * and was enqueued (tidal_op_end): the sim advances its clocks; with a
   * profile open, the CUDA backend times the op with events. */
  void (*op_start)(rt_backend *b, tidal_stream s, const tidal_site *site);
  void (*op_end)(rt_backend *b, tidal_stream s, const tidal_site *site);
  /* Hands every op duration measured so far to rt_profile_add (blocks). */
  void (*profile_flush)(rt_backend *b);
  /* Modelled seconds elapsed (0 if not modelled): the later of the host
   * and device timelines. */
  double (*modelled_now)(rt_backend *b);
  /* The program waits for the whole device: every op and copy issued so
   * far (cudaDeviceSynchronize; tidal_config.sim_device_sync_per_iteration).
   * Sim only, on its clocks; NULL on a real device, where the program's own
   * call does it. */
  void (*device_sync)(rt_backend *b);
  /* tidal_device_synchronize: blocks until the program's work is done (the
   * legacy default stream and s), not tidal's copy streams.  The sim waits
   * for its compute timeline. */
  tidal_status (*program_sync)(rt_backend *b, tidal_stream s);

  /* Time marks for the run-time planner's op durations (record.c): a mark
   * on stream s now (sim: the compute clock; CUDA: a timing event);
   * ready: the device has reached it (never blocks; cuEventQuery);
   * elapsed: seconds from a to e, blocking the host until e is reached
   * (callers ask time_ready first: Note [time marks]); release: unused. */
  tidal_status (*time_mark)(rt_backend *b, tidal_stream s, rt_event *mark);
  int (*time_ready)(rt_backend *b, const rt_event *mark);
  tidal_status (*time_elapsed)(rt_backend *b, const rt_event *a, const rt_event *e, double *s);
  void (*time_release)(rt_backend *b, rt_event *mark);

  /* Note [vmm worker]: with the worker on, map, set_access, unmap and the
   * copies are split in two.  cmd_prepare runs on the training thread when
   * the command is queued: the bookkeeping (sim: the command's cost on the
   * worker's timeline, *vt = when it ends there; cuda: the copy's event
   * from the pool, the physical handle) and *ev (MAP: ready; copies: done;
   * unused otherwise).  cmd_run runs on the worker: the driver calls only,
   * touching nothing the training thread changes; a failure is written to
   * err (not rt_error: the trace and the last error belong to the training
   * thread).  worker_attach runs once on the worker before any command
   * (cuda: makes the context current).  worker_waited: the training
   * thread waited for the command ending at vt, real_s seconds of wall
   * time; *waited_s += the wait (sim: the host clock moves to vt; cuda:
   * real_s). */
  tidal_status (*cmd_prepare)(rt_backend *b, rt_cmd *cmd, rt_event *ev, double *vt);
  tidal_status (*cmd_run)(rt_backend *b, const rt_cmd *cmd, char *err, size_t errlen);
  tidal_status (*worker_attach)(rt_backend *b, char *err, size_t errlen);
  void (*worker_waited)(rt_backend *b, double vt, double real_s, double *waited_s);
  /* park/unpark change the mapping (sim: mprotect), so they wait for the
   * chunk's queued commands first; on cuda they are free and never wait. */
  int park_touches_mapping;
  /* event_done and the waits answer from a model clock (sim), not from the
   * device: Note [device front] in vmmq.c. */
  int events_modelled;
} rt_backend_ops;

extern const rt_backend_ops rt_backend_sim_ops;
extern const rt_backend_ops rt_backend_cuda_ops;

#endif
