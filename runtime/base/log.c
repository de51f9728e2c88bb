/* log.c - messages on stderr at the configured level (TIDAL_LOG_LEVEL).
 *
 * A file of its own, below status.c and trace.c: both report through it,
 * and status.c also writes errors into the trace, so neither may hold it
 * (scripts/check_layers.py: no file cycle within a layer). */
#include <stdarg.h>
#include <stdio.h>
#include "base/base.h"

void rt_log(int level, const char *fmt, ...) {
  static const char *const names[] = {"", "error", "warning", "info", "debug"};
  if (level > rt_base.cfg.log_level || level < 1 || level > 4)
    return;
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "tidal: %s: ", names[level]);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}
