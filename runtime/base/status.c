/* status.c - status names, the per-thread last-error message and logging.
 *
 * The message buffer is thread-local so a failing call on the training
 * thread is not overwritten by anything else; rt_error() formats it and
 * returns the status so call sites read "return rt_error(...)".  Log lines go
 * to stderr with a "tidal: " prefix when the level allows (TIDAL_LOG). */
#include <stdarg.h>
#include <stdio.h>
#include "base/base.h"

#define RT_ERROR_BYTES 512

static _Thread_local char last_error[RT_ERROR_BYTES];

const char *tidal_status_string(tidal_status status) {
  switch (status) {
  case TIDAL_OK: return "TIDAL_OK: success";
  case TIDAL_ERR_INVALID: return "TIDAL_ERR_INVALID: invalid argument";
  case TIDAL_ERR_NOT_INITIALIZED: return "TIDAL_ERR_NOT_INITIALIZED: runtime not initialised";
  case TIDAL_ERR_ALREADY_INITIALIZED:
    return "TIDAL_ERR_ALREADY_INITIALIZED: runtime already initialised";
  case TIDAL_ERR_UNKNOWN_POINTER:
    return "TIDAL_ERR_UNKNOWN_POINTER: pointer is inside no tidal allocation";
  case TIDAL_ERR_DOUBLE_FREE: return "TIDAL_ERR_DOUBLE_FREE: allocation already freed";
  case TIDAL_ERR_OUT_OF_BOUNDS:
    return "TIDAL_ERR_OUT_OF_BOUNDS: access runs past the end of its allocation";
  case TIDAL_ERR_BUDGET: return "TIDAL_ERR_BUDGET: working set exceeds the memory budget";
  case TIDAL_ERR_DEVICE_MEMORY: return "TIDAL_ERR_DEVICE_MEMORY: not enough device memory";
  case TIDAL_ERR_HOST_MEMORY: return "TIDAL_ERR_HOST_MEMORY: host memory exhausted";
  case TIDAL_ERR_BACKEND: return "TIDAL_ERR_BACKEND: device backend failure";
  case TIDAL_ERR_RECOMPUTE: return "TIDAL_ERR_RECOMPUTE: recompute closure failed";
  case TIDAL_ERR_UNSUPPORTED: return "TIDAL_ERR_UNSUPPORTED: not supported in this build";
  case TIDAL_ERR_CONFIG: return "TIDAL_ERR_CONFIG: malformed configuration";
  }
  return "TIDAL_ERR_?: unknown status";
}

const char *tidal_last_error(void) { return last_error; }

void rt_clear_error(void) { last_error[0] = '\0'; }

void rt_set_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(last_error, sizeof last_error, fmt, ap);
  va_end(ap);
}

tidal_status rt_error(tidal_status st, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(last_error, sizeof last_error, fmt, ap);
  va_end(ap);
  if (rt_base.cfg.log_level >= 1)
    fprintf(stderr, "tidal: error: %s\n", last_error);
  if (RT_TRACING())
    rt_trace("error", "\"status\":%d", (int)st);
  return st;
}

