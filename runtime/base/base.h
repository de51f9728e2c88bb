/* base.h - the bottom layer: status and logging, sizes, the configuration,
 * counters, the trace writer and the op profile.
 *
 * Files in base/ call nothing above them (runtime/README.md, "The rule").
 * What they need from above comes in as values (the resident bytes, the
 * modelled clock) or as the two hooks rt_trace_open takes: the clock and
 * the memory counters.  Cross-file names carry the rt_ prefix and hidden
 * visibility; public names are in tidal.h. */
#ifndef TIDAL_RT_BASE_H
#define TIDAL_RT_BASE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "tidal.h"

#if defined(__GNUC__)
#define RT_HIDDEN __attribute__((visibility("hidden")))
#define RT_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define RT_HIDDEN
#define RT_PRINTF(a, b)
#endif


/* The layer's state.  One process-wide runtime owned by the training
 * thread, no locks (Note [one thread], base/thread.c); each layer keeps its own
 * part (rt_base here, rt_dev, rt_mem, rt_pol above), and tidal_init and
 * tidal_shutdown zero them all. */
typedef struct rt_base_state {
  int initialized;               /* tidal_init has finished */
  tidal_config cfg;              /* resolved */
  FILE *trace;                   /* TIDAL_TRACE, or NULL (trace.c) */
  uint64_t iterations_done;      /* tidal_iteration_end calls so far */
  tidal_counters total, cur;     /* cur: the iteration in progress */
  tidal_counters last_iteration; /* the last one completed */
  double iter_t0;                /* modelled clock at iteration begin */
  uint64_t physical_now;         /* device memory created now (rt_stats_physical) */
} rt_base_state;

RT_HIDDEN extern rt_base_state rt_base; /* state.c */

/* ---- thread.c: who may call the API (Notes [one thread] and [fork]) ---- */
/* TIDAL_OK if a public call may run here (initialised, the owning thread,
 * not a forked child), else the refusal, with its message. */
RT_HIDDEN tidal_status rt_api_check(const char *fn);
RT_HIDDEN tidal_status rt_api_refuse(const char *fn); /* the refusal itself */
RT_HIDDEN void rt_api_owner_set(void);   /* tidal_init: this thread owns the API */
RT_HIDDEN void rt_api_owner_clear(void);
RT_HIDDEN int rt_api_is_owner(void);
RT_HIDDEN int rt_api_forked(void); /* a child forked while the runtime was up */

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
/* Parses TIDAL_PLANNER's value; 0 if malformed. */
RT_HIDDEN int rt_parse_planner(const char *s, tidal_planner *out);

/* ---- stats.c ---- */
RT_HIDDEN void rt_stats_resident(uint64_t resident_bytes); /* the peaks */
RT_HIDDEN void rt_stats_physical(uint64_t physical_bytes);  /* device memory created now */
RT_HIDDEN void rt_stats_add(size_t offset, uint64_t v); /* offsetof(tidal_counters, f) */
RT_HIDDEN void rt_stats_add_time(size_t offset, double s);
/* now: the modelled clock (rt_dev_now) */
RT_HIDDEN void rt_stats_iteration_begin(uint64_t resident_bytes, double now);
RT_HIDDEN void rt_stats_iteration_end(uint64_t resident_bytes, double now);
#define RT_COUNT(field, v) rt_stats_add(offsetof(tidal_counters, field), (uint64_t)(v))
#define RT_COUNT_TIME(field, s) rt_stats_add_time(offsetof(tidal_counters, field), (s))

/* ---- profile.c: per-site op durations (TIDAL_PROFILE) ---- */
/* One execution of the op at site: its device seconds and the host seconds
 * its launch took (0 if not measured); cold: it ran before the first
 * tidal_iteration_end (Note [cold samples], profile.c). */
RT_HIDDEN void rt_profile_add(const tidal_site *site, double seconds, double launch_s, int cold);
/* measured: the durations are CUDA events' (else the sim's model). */
RT_HIDDEN tidal_status rt_profile_write(const char *path, int measured);
/* At tidal_init: path can be written (a file there is created or opened,
 * never truncated; one this made is removed again).  TIDAL_ERR_CONFIG. */
RT_HIDDEN tidal_status rt_profile_check(const char *path);
RT_HIDDEN void rt_profile_destroy(void);

/* ---- trace.c (Note [trace format]) ---- */
/* Opens the trace at path and writes its header: 0, -1 if it cannot be
 * opened, -2 if it takes no bytes (Note [trace failures and the cap]);
 * errno says why.  host_clock:
 * times are the host's (CUDA), else now()'s (the sim's modelled clock);
 * counters() writes the memory counters (rt_trace_counters,
 * memory/annotate.c) where they may have changed.  Both hooks are the
 * caller's (tidal_init). */
RT_HIDDEN int rt_trace_open(const char *path, const char *backend, int host_clock,
                            double (*now)(void), void (*counters)(void));
/* Closes it: 0, or the errno (-1 if none) of a write that failed at any
 * point of the run. */
RT_HIDDEN int rt_trace_close(void);
/* An instant on the runtime track: {"name":ev, "args":{<fields>}}; fields
 * is a JSON fragment. */
RT_HIDDEN void rt_trace(const char *ev, const char *fmt, ...) RT_PRINTF(2, 3);
/* The counters now: each is written when it changed since the last. */
typedef struct rt_trace_counts {
  uint64_t resident, host, budget, allocated;
  int by_group;                  /* groups is set: something is annotated */
  uint64_t groups[TIDAL_NGROUPS];
} rt_trace_counts;
RT_HIDDEN void rt_trace_write_counters(const rt_trace_counts *now);
RT_HIDDEN void rt_trace_op_begin(const tidal_site *site);
RT_HIDDEN void rt_trace_op_end(const tidal_site *site);
RT_HIDDEN void rt_trace_recompute(int begin, uintptr_t lo, size_t bytes);
RT_HIDDEN void rt_trace_iteration(int begin);
/* A copy issued now.  end_s: its modelled end (sim), 0 if none; waited_s >=
 * 0: it was synchronous and took that long; else, on CUDA,
 * rt_trace_copy_done ends it. */
RT_HIDDEN void rt_trace_copy(int d2h, const char *name, uintptr_t addr, size_t bytes, double end_s,
                             double waited_s);
RT_HIDDEN void rt_trace_copy_done(int d2h, const char *name, uintptr_t addr);
#define RT_TRACING() (rt_base.trace != NULL)

#endif
