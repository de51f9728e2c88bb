/* thread.c - who may call the API: the thread that called tidal_init, and
 * never a child forked while the runtime is up.
 *
 * Note [one thread]: the API belongs to the thread that called tidal_init
 * (tidal.h); the core has no locks.  Every call checks it, in every build
 * (one compare of pthread_self with the owner), and a call from another
 * thread returns TIDAL_ERR_INVALID touching nothing: in release builds the
 * check was once left out, and two threads calling the API crashed in the
 * caller's own buffer (issue 23).  The refusal writes only the calling
 * thread's error buffer and stderr - never the trace, which belongs to the
 * owner.
 *
 * Note [fork]: after fork() the child holds a copy of the runtime without
 * its threads (the sim's copy engine, the VMM worker), with the sim's
 * device memory still shared with the parent (a memfd) and the CUDA
 * context unusable; any call there could corrupt the parent's data or hang
 * waiting for a thread that does not exist.  So the child refuses every
 * call (TIDAL_ERR_UNSUPPORTED, tidal_init included; tidal_is_initialized
 * says 0): a pthread_atfork handler, registered at the first tidal_init,
 * marks it and clears the owner, so the one compare above catches it too.
 * A child must exec or exit without tidal; the parent is unaffected.
 *
 * In base/ because every layer has public entry points that check it
 * (tidal_annotate in memory/, tidal_stats_get in api/). */
#include <pthread.h>
#include <stdio.h>
#include "base/base.h"

static uintptr_t owner_thread;    /* the thread that called tidal_init */
static volatile int forked_child; /* set in a child forked while the runtime was up */
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static uintptr_t this_thread(void) { return (uintptr_t)pthread_self(); }

static void atfork_child(void) {
  if (rt_base.initialized) {
    forked_child = 1;
    owner_thread = 0; /* no thread's id: every call takes the slow path */
  }
}

static void register_atfork(void) { (void)pthread_atfork(NULL, NULL, atfork_child); }

void rt_api_owner_set(void) {
  pthread_once(&atfork_once, register_atfork);
  owner_thread = this_thread();
}

void rt_api_owner_clear(void) { owner_thread = 0; }

int rt_api_forked(void) { return forked_child; }

int rt_api_is_owner(void) { return owner_thread == this_thread(); }

tidal_status rt_api_refuse(const char *fn) {
  if (forked_child) {
    rt_set_error("%s: called in a child process after fork(); the runtime belongs to the "
                 "parent, and a child may not use it (docs/limitations.md, \"Threads and "
                 "fork\")",
                 fn);
  } else if (!rt_base.initialized) {
    return rt_error(TIDAL_ERR_NOT_INITIALIZED, "%s: tidal_init has not run", fn);
  } else {
    rt_set_error("%s: called from a thread other than the one that called tidal_init (the API "
                 "is single-threaded: docs/runtime-api.md, \"Threads and fork\")",
                 fn);
  }
  if (rt_base.cfg.log_level >= 1)
    fprintf(stderr, "tidal: error: %s\n", tidal_last_error());
  return forked_child ? TIDAL_ERR_UNSUPPORTED : TIDAL_ERR_INVALID;
}

tidal_status rt_api_check(const char *fn) {
  if (!rt_base.initialized || owner_thread != this_thread())
    return rt_api_refuse(fn);
  return TIDAL_OK;
}
