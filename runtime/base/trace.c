/* trace.c - the event trace (TIDAL_TRACE=FILE): Chrome trace-event JSON.
 *
 * Note [trace format]: the file is {"displayTimeUnit":"ms","traceEvents":[
 * ... ]}, which Perfetto (ui.perfetto.dev) and chrome://tracing open.  One
 * process ("tidal (BACKEND backend)") with these tracks (tids):
 *   1 compute      one slice per op ("B"/"E": op_begin returned .. op_end),
 *                  recompute closures as slices around their own ops,
 *                  faults as instants
 *   2 copy D2H     swap-outs
 *   3 copy H2D     prefetches and fault-ins
 *   4 runtime      instants: malloc, free, drop, evict, error, ...
 *   5 iterations   one slice per tidal_iteration_begin .. _end
 * and counters ("ph":"C") "resident bytes", "host bytes", "budget bytes" and
 * "allocated bytes" (what tidal_malloc handed out: the program's footprint
 * without tidal), written when they change, at op boundaries and copies;
 * once the program annotates ranges (tidal_annotate), "resident by group"
 * splits the resident bytes: args {"parameters", "optimizer state",
 * "gradients", "activations", "other"} (`tidal report` stacks them).
 * Clocks (ts, microseconds): the sim backend's virtual clock (copies are
 * placed where its cost model puts them); on CUDA the host's monotonic
 * clock since tidal_init: op slices are the host's launch window (op_begin
 * returned .. op_end called), not the kernel's execution, and an
 * asynchronous copy ends when the runtime observed its completion (its
 * next reap), an upper bound.
 * Only the training thread writes, through stdio's buffer; the closing
 * "]}" is written at tidal_shutdown (a program that dies before leaves the
 * array open).  An unusable path is a TIDAL_ERR_CONFIG at tidal_init: a
 * trace asked for and silently missing is worse than no start.
 *
 * Note [trace failures and the cap]: the header is flushed at tidal_init,
 * so a path that takes no bytes (/dev/full, a full disk) fails there; a
 * write error later (the disk fills) is seen at the next op or iteration
 * (stdio's error flag), reported at once (log level error), tracing stops
 * with the file closed, and tidal_shutdown returns TIDAL_ERR_CONFIG naming
 * it - never a trace silently cut short with a clean exit (issue 23:
 * `replay --trace /dev/full` exited 0).  TIDAL_TRACE_MAX (trace_max_bytes)
 * caps the file: past it (checked every TRACE_CAP_CHECK_OPS ops, so it
 * overshoots by a few ops' events) a "trace_truncated" instant is written,
 * the JSON closed, and tracing stops with a warning; the run goes on. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "base/base.h"
/* TIDAL_COPY_*: the sim's copy costs (runtime/device/sim_costs.txt, through
 * cmake/costs.cmake), which a copy's slice assumes when the config gives
 * none, as the sim does */
#include "tidal_copy_costs.h"

enum { TID_COMPUTE = 1, TID_D2H, TID_H2D, TID_RUNTIME, TID_ITERATIONS };
#define TRACE_CAP_CHECK_OPS 8 /* ops between two looks at the file's size */

static struct {
  int first;         /* no event written yet (no comma before the next) */
  int host_clock;    /* CUDA: host time; sim: the virtual clock */
  double t0;         /* host clock at open */
  int iter_open;     /* an iteration slice is open */
  uint64_t resident, host, budget; /* counters last written */
  uint64_t allocated;
  uint64_t groups[TIDAL_NGROUPS];
  int groups_written;
  int counters_written;
  double (*now)(void);    /* the modelled clock (sim), NULL = none */
  void (*counters)(void); /* writes the counters (rt_trace_counters, memory/annotate.c) */
  int failed;        /* a write failed: tracing stopped; shutdown reports it */
  int err;           /* its errno, when known */
  unsigned ops_since_check; /* for the cap (Note [trace failures and the cap]) */
  int depth;         /* open op slices (the cap waits for 0) */
} tr;

static double host_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Seconds on the trace's clock. */
static double now_s(void) {
  if (tr.host_clock)
    return host_now() - tr.t0;
  return tr.now ? tr.now() : 0.0;
}

static void counters_now(void) {
  if (tr.counters)
    tr.counters();
}

/* Writes s as the body of a JSON string. */
static void put_json_string(const char *s) {
  for (; s && *s; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\')
      fprintf(rt_base.trace, "\\%c", ch);
    else if (ch < 0x20)
      fprintf(rt_base.trace, "\\u%04x", ch);
    else
      fputc(ch, rt_base.trace);
  }
}

/* Starts one event: {"ph":PH,"ts":TS,"pid":1,"tid":TID  (caller closes). */
static void event_start(const char *ph, double t_s, int tid) {
  fputs(tr.first ? "\n" : ",\n", rt_base.trace);
  tr.first = 0;
  fprintf(rt_base.trace, "{\"ph\":\"%s\",\"ts\":%.3f,\"pid\":1,\"tid\":%d", ph, t_s * 1e6, tid);
}

static void meta_thread(int tid, const char *name) {
  event_start("M", 0, tid);
  fprintf(rt_base.trace, ",\"name\":\"thread_name\",\"args\":{\"name\":\"%s\"}}", name);
  event_start("M", 0, tid);
  fprintf(rt_base.trace, ",\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":%d}}", tid);
}

int rt_trace_open(const char *path, const char *backend, int host_clock, double (*now)(void),
                  void (*counters)(void)) {
  rt_base.trace = fopen(path, "w");
  if (!rt_base.trace)
    return -1; /* errno says why */
  memset(&tr, 0, sizeof tr);
  tr.first = 1;
  tr.host_clock = host_clock;
  tr.t0 = host_now();
  tr.now = now;
  tr.counters = counters;
  fputs("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[", rt_base.trace);
  event_start("M", 0, 0);
  fprintf(rt_base.trace, ",\"name\":\"process_name\",\"args\":{\"name\":\"tidal (%s backend)\"}}",
          backend);
  meta_thread(TID_COMPUTE, "compute (ops)");
  meta_thread(TID_D2H, "copy D2H (swap-out)");
  meta_thread(TID_H2D, "copy H2D (prefetch, fault-in)");
  meta_thread(TID_RUNTIME, "runtime events");
  meta_thread(TID_ITERATIONS, "iterations");
  /* Note [trace failures and the cap]: a path that takes no bytes fails now */
  if (fflush(rt_base.trace) != 0 || ferror(rt_base.trace)) {
    int e = errno;
    fclose(rt_base.trace);
    rt_base.trace = NULL;
    errno = e;
    return -2;
  }
  return 0;
}

/* Ends the JSON and closes the file; records a write error. */
static void finish(void) {
  if (tr.iter_open) {
    event_start("E", now_s(), TID_ITERATIONS);
    fputc('}', rt_base.trace);
    tr.iter_open = 0;
  }
  fputs("\n]}\n", rt_base.trace);
  errno = 0;
  int bad = ferror(rt_base.trace);
  if (fclose(rt_base.trace) != 0 || bad) {
    tr.failed = 1;
    tr.err = errno;
  }
  rt_base.trace = NULL;
}

/* Between events: a write error stops tracing (reported now), and so does
 * the cap (Note [trace failures and the cap]). */
static void trace_guard(void) {
  if (ferror(rt_base.trace)) {
    tr.failed = 1;
    tr.err = errno;
    fclose(rt_base.trace);
    rt_base.trace = NULL;
    rt_log(1, "TIDAL_TRACE: '%s': writing the trace failed%s%s; tracing stopped",
           rt_base.cfg.trace_path, tr.err ? ": " : "", tr.err ? strerror(tr.err) : "");
    return;
  }
  /* the cap only between top-level ops: no op slice is left open */
  if (!rt_base.cfg.trace_max_bytes || tr.depth || ++tr.ops_since_check < TRACE_CAP_CHECK_OPS)
    return;
  tr.ops_since_check = 0;
  off_t at = ftello(rt_base.trace);
  if (at < 0 || (uint64_t)at < rt_base.cfg.trace_max_bytes)
    return;
  event_start("i", now_s(), TID_RUNTIME);
  fprintf(rt_base.trace, ",\"s\":\"g\",\"name\":\"trace_truncated\",\"args\":{\"max_bytes\":%zu}}",
          rt_base.cfg.trace_max_bytes);
  finish();
  if (tr.failed)
    rt_log(1, "TIDAL_TRACE: '%s': writing the trace failed%s%s; tracing stopped",
           rt_base.cfg.trace_path, tr.err ? ": " : "", tr.err ? strerror(tr.err) : "");
  else
    rt_log(2, "TIDAL_TRACE: '%s' reached TIDAL_TRACE_MAX (%zu bytes); tracing stopped, the "
           "file is complete JSON up to here", rt_base.cfg.trace_path, rt_base.cfg.trace_max_bytes);
}

int rt_trace_close(void) {
  if (rt_base.trace) {
    counters_now();
    finish();
  }
  if (!tr.failed)
    return 0;
  tr.failed = 0;
  return tr.err ? tr.err : -1;
}

void rt_trace(const char *ev, const char *fmt, ...) {
  if (!rt_base.trace)
    return;
  event_start("i", now_s(), TID_RUNTIME);
  fprintf(rt_base.trace, ",\"s\":\"t\",\"name\":\"%s\",\"args\":{", ev);
  if (fmt && *fmt) {
    va_list ap;
    va_start(ap, fmt);
    vfprintf(rt_base.trace, fmt, ap);
    va_end(ap);
  }
  fputs("}}", rt_base.trace);
}

static void counter(const char *name, uint64_t v) {
  event_start("C", now_s(), 0);
  fprintf(rt_base.trace, ",\"name\":\"%s\",\"args\":{\"bytes\":%llu}}", name,
          (unsigned long long)v);
}

void rt_trace_write_counters(const rt_trace_counts *now) {
  if (!rt_base.trace)
    return;
  uint64_t resident = now->resident, host = now->host, budget = now->budget;
  if (!tr.counters_written || resident != tr.resident)
    counter("resident bytes", resident);
  if (!tr.counters_written || host != tr.host)
    counter("host bytes", host);
  if (!tr.counters_written || budget != tr.budget)
    counter("budget bytes", budget);
  if (!tr.counters_written || now->allocated != tr.allocated)
    counter("allocated bytes", now->allocated);
  tr.allocated = now->allocated;
  if (now->by_group) { /* Note [trace format]: resident by group */
    const uint64_t *g = now->groups;
    if (!tr.groups_written || memcmp(g, tr.groups, sizeof tr.groups) != 0) {
      static const char *const names[TIDAL_NGROUPS] = {"other", "parameters", "optimizer state",
                                                       "gradients", "activations"};
      event_start("C", now_s(), 0);
      fputs(",\"name\":\"resident by group\",\"args\":{", rt_base.trace);
      for (int k = 0; k < TIDAL_NGROUPS; k++)
        fprintf(rt_base.trace, "%s\"%s\":%llu", k ? "," : "", names[k], (unsigned long long)g[k]);
      fputs("}}", rt_base.trace);
      memcpy(tr.groups, g, sizeof tr.groups);
      tr.groups_written = 1;
    }
  }
  tr.resident = resident;
  tr.host = host;
  tr.budget = budget;
  tr.counters_written = 1;
}

static void site_args(const tidal_site *site) {
  fputs(",\"name\":\"", rt_base.trace);
  put_json_string(site && site->label ? site->label : "(unnamed op)");
  fputs("\",\"args\":{\"file\":\"", rt_base.trace);
  put_json_string(site && site->file ? site->file : "");
  fprintf(rt_base.trace, "\",\"line\":%d}}", site ? site->line : 0);
}

void rt_trace_op_begin(const tidal_site *site) {
  if (!rt_base.trace)
    return;
  trace_guard();
  if (!rt_base.trace)
    return;
  tr.depth++;
  counters_now();
  event_start("B", now_s(), TID_COMPUTE);
  site_args(site);
}

void rt_trace_op_end(const tidal_site *site) {
  if (!rt_base.trace)
    return;
  if (tr.depth)
    tr.depth--;
  event_start("E", now_s(), TID_COMPUTE);
  fputc('}', rt_base.trace);
  (void)site;
  counters_now();
}

void rt_trace_recompute(int begin, uintptr_t lo, size_t bytes) {
  if (!rt_base.trace)
    return;
  event_start(begin ? "B" : "E", now_s(), TID_COMPUTE);
  if (begin)
    fprintf(rt_base.trace, ",\"name\":\"recompute\",\"args\":{\"ptr\":\"%#lx\",\"bytes\":%zu}}",
            (unsigned long)lo, bytes);
  else
    fputc('}', rt_base.trace);
}

void rt_trace_iteration(int begin) {
  if (!rt_base.trace)
    return;
  trace_guard();
  if (!rt_base.trace)
    return;
  if (!begin && !tr.iter_open)
    return;
  if (begin && tr.iter_open) { /* begin without end: close the last one */
    event_start("E", now_s(), TID_ITERATIONS);
    fputc('}', rt_base.trace);
  }
  event_start(begin ? "B" : "E", now_s(), TID_ITERATIONS);
  if (begin)
    fprintf(rt_base.trace, ",\"name\":\"iteration %llu\"}",
            (unsigned long long)rt_base.iterations_done);
  else
    fputc('}', rt_base.trace);
  tr.iter_open = begin;
}

/* The sim's cost model (Note [sim cost model]): a copy's duration. */
static double sim_copy_seconds(int d2h, size_t bytes) {
  double bw = d2h ? rt_base.cfg.sim_d2h_bytes_per_s : rt_base.cfg.sim_h2d_bytes_per_s;
  double lat = rt_base.cfg.sim_copy_latency_s;
  if (bw <= 0)
    bw = d2h ? TIDAL_COPY_D2H_BYTES_PER_S : TIDAL_COPY_H2D_BYTES_PER_S;
  if (lat <= 0)
    lat = TIDAL_COPY_LATENCY_S;
  return lat + (double)bytes / bw;
}

void rt_trace_copy(int d2h, const char *name, uintptr_t addr, size_t bytes, double end_s,
                   double waited_s) {
  if (!rt_base.trace)
    return;
  int tid = d2h ? TID_D2H : TID_H2D;
  if (!tr.host_clock) { /* the model knows when it ends: a complete slice */
    double dur = sim_copy_seconds(d2h, bytes);
    double end = end_s > 0 ? end_s : now_s() + dur;
    event_start("X", end - dur, tid);
    fprintf(rt_base.trace, ",\"dur\":%.3f", dur * 1e6);
  } else if (waited_s >= 0) { /* a synchronous copy that just ended */
    event_start("X", now_s() - waited_s, tid);
    fprintf(rt_base.trace, ",\"dur\":%.3f", waited_s * 1e6);
  } else { /* asynchronous: ends in rt_trace_copy_done */
    event_start("b", now_s(), tid);
    fprintf(rt_base.trace, ",\"cat\":\"copy\",\"id\":\"%#lx\"", (unsigned long)addr);
  }
  fprintf(rt_base.trace, ",\"name\":\"%s\",\"args\":{\"ptr\":\"%#lx\",\"bytes\":%zu}}", name,
          (unsigned long)addr, bytes);
  counters_now();
}

void rt_trace_copy_done(int d2h, const char *name, uintptr_t addr) {
  if (!rt_base.trace || !tr.host_clock)
    return;
  event_start("e", now_s(), d2h ? TID_D2H : TID_H2D);
  fprintf(rt_base.trace, ",\"cat\":\"copy\",\"id\":\"%#lx\",\"name\":\"%s\"}", (unsigned long)addr,
          name);
  counters_now();
}
