/* device.h - the device layer: the backend in use (backend.h: the sim or
 * CUDA), the VMM queue that wraps it (vmmq.c) and the sim's cost model
 * (costs.c).
 *
 * The layers above reach the backend's mapping calls, copies, parking and
 * events only through the device front (rt_dev_*, Note [device front] in
 * vmmq.c), so that the VMM worker can run them; its other calls (reserve,
 * marks, the pool, the clock) through rt_dev.be directly.  Files here use
 * base/ only. */
#ifndef TIDAL_RT_DEVICE_H
#define TIDAL_RT_DEVICE_H

#include "base/base.h"
#include "device/backend.h"

#define RT_SIM_DEFAULT_DEVICE_BYTES ((size_t)16 << 30)

/* The layer's state (Note [one thread], api/api.c). */
typedef struct rt_dev_state {
  const rt_backend_ops *be;
  rt_backend *b;
  size_t granularity;            /* the backend's mapping unit */
  size_t device_free;            /* bytes the backend offered at init: the budget's ceiling */
} rt_dev_state;

RT_HIDDEN extern rt_dev_state rt_dev; /* vmmq.c */

/* A command queued for the VMM worker (Note [vmm worker], vmmq.c): its
 * sequence number, and when it ends on the sim's worker timeline. */
typedef struct rt_ticket {
  uint64_t seq; /* 0 = nothing queued */
  double vt;
} rt_ticket;

/* ---- vmmq.c: the VMM worker (Note [vmm worker]) ---- */
RT_HIDDEN tidal_status rt_vmmq_start(void); /* tidal_init, when cfg.vmm_thread */
RT_HIDDEN void rt_vmmq_stop(void);          /* drains, then joins; no-op when off */
RT_HIDDEN int rt_vmmq_on(void);
/* Blocks until the worker has run command seq: the real wait only.  The
 * worker's failure, if any. */
RT_HIDDEN tidal_status rt_vmmq_sync(uint64_t seq);
/* rt_vmmq_sync, and the sim's host clock waits for t->vt. */
RT_HIDDEN tidal_status rt_vmmq_wait(const rt_ticket *t);
RT_HIDDEN tidal_status rt_vmmq_drain(void); /* every command queued so far */

/* ---- vmmq.c: the device front (Note [device front]) ----
 * The backend's calls that the VMM worker may run, and the event calls.
 * *t: the command's ticket when it was queued (untouched otherwise); the
 * rest as the backend's call of the same name (backend.h). */
RT_HIDDEN tidal_status rt_dev_map(uintptr_t addr, uint32_t phys, rt_event *ready, rt_ticket *t);
RT_HIDDEN tidal_status rt_dev_set_access(uintptr_t addr, size_t bytes, rt_ticket *t);
/* With the worker on it waits for `mark` (the caller waited already otherwise). */
RT_HIDDEN tidal_status rt_dev_unmap(uintptr_t addr, uint32_t phys, uint64_t mark, rt_ticket *t);
RT_HIDDEN tidal_status rt_dev_copy_d2h(void *dst, uintptr_t src, size_t bytes, uint32_t phys,
                                       tidal_stream after, rt_event *done, rt_ticket *t);
RT_HIDDEN tidal_status rt_dev_copy_h2d(uintptr_t dst, const void *src, size_t bytes,
                                       uint32_t phys, int urgent, uint64_t after_mark,
                                       rt_event *done, rt_ticket *t);
/* park (1) or unpark (0); last_seq: the chunk's last ticket. */
RT_HIDDEN tidal_status rt_dev_park(uintptr_t addr, uint32_t phys, int park, uint64_t last_seq);
RT_HIDDEN int rt_dev_event_done(const rt_event *ev);
RT_HIDDEN tidal_status rt_dev_event_sync(const rt_event *ev, double *waited_s);
RT_HIDDEN tidal_status rt_dev_stream_wait(tidal_stream s, const rt_event *ev, double *stall_s);
RT_HIDDEN void rt_dev_event_release(rt_event *ev);
/* The backend's modelled clock (0 if none, or no backend yet). */
RT_HIDDEN double rt_dev_now(void);

/* ---- costs.c: the sim's cost model (Note [sim cost model]) ---- */
typedef struct rt_costs {
  double map_s, set_access_s, unmap_s;        /* per driver call on one 2 MiB handle, host */
  double map_8m_s, set_access_8m_s, unmap_8m_s;    /* the same on one 8 MiB handle (0: unknown) */
  double map_32m_s, set_access_32m_s, unmap_32m_s; /* and on one 32 MiB handle (0: unknown) */
  double vmm_in_situ_scale;                   /* what those calls cost in a training run over
                                                 what bench/vmm_costs measures (Note [vmm
                                                 calls in situ], backend_sim.c); 0 = 1 */
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
  double d2d_bytes_per_s;                     /* device to device (gathers, compaction) */
  double pin_bytes_per_s;                     /* host pinning (cuMemHostAlloc) */
  double host_ahead_s;                        /* most the host runs ahead of the device */
  double one_copy_engine;                     /* nonzero: every copy, both directions, queues
                                                 on one engine (Note [one copy engine]) */
} rt_costs;
/* Parses the cost file format ("key value  # comment" lines) over the
 * values already in *c; 0 on success, else -1 and a message in err. */
RT_HIDDEN int rt_costs_parse(const char *text, const char *name, rt_costs *c, char *err,
                             size_t errlen);
/* The built-in defaults (runtime/device/sim_costs.txt), then path if non-NULL. */
RT_HIDDEN tidal_status rt_costs_load(const char *path, rt_costs *c);

#endif
