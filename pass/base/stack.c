/* stack.c - the big analysis thread and the depth guard (stack.h).
 *
 * The guard compares the address of a local with the bounds recorded when
 * the thread started: a check costs one subtraction, so every recursive
 * step of the walkers can afford it, and it adapts to frame sizes (an
 * ASan build's frames are several times larger) where a fixed depth count
 * would not. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "base/stack.h"

/* STACK_MIN: libclang parses on this thread too, and below a few MiB its
 * parser, not tidal's guarded walkers, runs out (TIDAL_PASS_STACK=1M ended
 * in "nested too deeply" on a one-line file, or a SIGSEGV inside clang). */
enum { STACK_DEFAULT = 512u << 20, STACK_MIN_RESERVE = 1u << 20, STACK_MIN = 4u << 20 };

static _Thread_local uintptr_t stack_top;     /* highest address in use at start */
static _Thread_local size_t stack_usable;     /* bytes below it before the reserve */
static _Thread_local size_t stack_size;
static int reported;

size_t stack_default_size(void) {
  const char *e = getenv("TIDAL_PASS_STACK");
  if (e && *e) {
    char *end;
    unsigned long long v = strtoull(e, &end, 10);
    if (*end == 'K' || *end == 'k') v <<= 10, end++;
    else if (*end == 'M' || *end == 'm') v <<= 20, end++;
    if (*end == '\0' && v >= STACK_MIN && v <= (4ull << 30)) return (size_t)v;
    diag_warning(NULL, 0, 0, "TIDAL_PASS_STACK=%s is not a size from 4M to 4096M; using %u MiB", e,
                 STACK_DEFAULT >> 20);
  }
  return STACK_DEFAULT;
}

typedef struct run_ctx {
  int (*fn)(void *);
  void *arg;
  size_t bytes;
  int rc;
} run_ctx;

static void *thread_main(void *p) {
  run_ctx *r = p;
  char here;
  size_t reserve = r->bytes / 8 > STACK_MIN_RESERVE ? r->bytes / 8 : STACK_MIN_RESERVE;
  stack_top = (uintptr_t)&here;
  stack_usable = r->bytes > reserve ? r->bytes - reserve : 0;
  stack_size = r->bytes;
  r->rc = r->fn(r->arg);
  return NULL;
}

int stack_run(int (*fn)(void *), void *arg, size_t bytes) {
  run_ctx r = {fn, arg, bytes, 0};
  pthread_attr_t at;
  pthread_t th;
  if (pthread_attr_init(&at) != 0) return fn(arg);
  int ok = pthread_attr_setstacksize(&at, bytes) == 0 && pthread_create(&th, &at, thread_main, &r) == 0;
  pthread_attr_destroy(&at);
  if (!ok) return fn(arg); /* no bounds recorded: the guard stays off */
  pthread_join(th, NULL);
  return r.rc;
}

int stack_too_deep(CXCursor at, const char *what) {
  if (reported) return 1; /* unwinding already: stop every walker */
  if (!stack_top) return 0;
  char here;
  uintptr_t now = (uintptr_t)&here;
  if (now > stack_top || stack_top - now < stack_usable) return 0;
  reported = 1;
  diag_error_at(at, "%s nested too deeply for tidal's analysis (its stack of %zu MiB is used up); "
                "split it into smaller statements or functions",
                what, stack_size >> 20);
  return 1;
}

int stack_exhausted(void) { return reported; }
