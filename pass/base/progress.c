/* progress.c - see progress.h.  The thread only reads the current stage
 * (an atomic pointer) and the start time; it writes nothing but stderr. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/progress.h"

#define PROGRESS_AFTER_S 2.0

static _Atomic(const char *) stage;
static atomic_int stop;
static pthread_t thread;
static atomic_int running;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int drawn; /* the status line is on the screen (under mu) */

void progress_clear_line(void) {
  if (!running) return;
  pthread_mutex_lock(&mu);
  if (drawn) {
    fputs("\r\033[K", stderr);
    drawn = 0;
  }
  pthread_mutex_unlock(&mu);
}

static void *loop(void *arg) {
  (void)arg;
  double t0 = now_s();
  pthread_mutex_lock(&mu);
  while (!atomic_load(&stop)) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 1;
    pthread_cond_timedwait(&cv, &mu, &until);
    if (atomic_load(&stop)) break;
    double el = now_s() - t0;
    const char *s = atomic_load(&stage);
    if (el < PROGRESS_AFTER_S || !s) continue;
    fprintf(stderr, "\r\033[Ktidal: %s (%.0fs)", s, el);
    fflush(stderr);
    drawn = 1;
  }
  if (drawn) {
    fputs("\r\033[K", stderr);
    fflush(stderr);
    drawn = 0;
  }
  pthread_mutex_unlock(&mu);
  return NULL;
}

static int always; /* TIDAL_PROGRESS=always: every stage at once, terminal or not */

void progress_begin(void) {
  const char *env = getenv("TIDAL_PROGRESS");
  always = env && strcmp(env, "always") == 0;
  int on = env ? strcmp(env, "0") != 0 && (always || isatty(2)) : isatty(2);
  if (!on || running) return;
  atomic_store(&stop, 0);
  running = pthread_create(&thread, NULL, loop, NULL) == 0;
}

void progress_stage(const char *what) {
  atomic_store(&stage, what);
  if (always && running && what) {
    pthread_mutex_lock(&mu);
    fprintf(stderr, "\r\033[Ktidal: %s", what);
    fflush(stderr);
    drawn = 1;
    pthread_mutex_unlock(&mu);
  }
}

void progress_done(void) {
  if (!running) return;
  pthread_mutex_lock(&mu);
  atomic_store(&stop, 1);
  pthread_cond_signal(&cv);
  pthread_mutex_unlock(&mu);
  pthread_join(thread, NULL);
  running = 0;
}
