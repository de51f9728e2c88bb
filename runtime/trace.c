/* trace.c - the JSON-lines event log (TIDAL_TRACE=FILE).
 *
 * One object per line, written through stdio's buffer: {"seq":N,
 * "t":modelled_seconds, "ev":"...", ...}.  Only the training thread writes
 * it.  A trace that cannot be opened is a warning, not a failure: tracing is
 * an observation aid, training must not depend on it. */
#include <stdarg.h>
#include <stdio.h>
#include "rt.h"

static uint64_t trace_seq;

void rt_trace_open(const char *path) {
  rt_g.trace = fopen(path, "w");
  trace_seq = 0;
  if (!rt_g.trace)
    rt_log(2, "TIDAL_TRACE=%s: cannot open for writing; tracing is off", path);
}

void rt_trace_close(void) {
  if (rt_g.trace)
    fclose(rt_g.trace);
  rt_g.trace = NULL;
}

void rt_trace(const char *ev, const char *fmt, ...) {
  if (!rt_g.trace)
    return;
  double t = rt_g.be && rt_g.b ? rt_g.be->modelled_now(rt_g.b) : 0.0;
  fprintf(rt_g.trace, "{\"seq\":%llu,\"t\":%.9f,\"ev\":\"%s\"", (unsigned long long)trace_seq++, t,
          ev);
  if (fmt && *fmt) {
    fputc(',', rt_g.trace);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(rt_g.trace, fmt, ap);
    va_end(ap);
  }
  fputs("}\n", rt_g.trace);
}
