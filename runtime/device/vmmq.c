/* vmmq.c - the VMM worker: driver calls off the training thread.
 *
 * Owns one FIFO of driver commands (map, set-access, unmap, copy issue)
 * and the one thread that runs them in order.  The training thread keeps
 * every decision and all bookkeeping (chunk states, which physical chunk,
 * the lists); it only queues commands and, where it needs the driver's
 * state to be real, waits for a command's ticket.  Off by default
 * (tidal_config.vmm_thread, TIDAL_VMM_THREAD=1): everything then runs on
 * the training thread as before and nothing here is used.
 *
 * Note [vmm worker]: on CUDA, remapping a chunk costs about 35 us of host
 * time (cuMemUnmap 13.6 us, cuMemMap 0.9 us, cuMemSetAccess 19 us per
 * chunk, measured on an H100: bench/gpu/h100-2026-11-26/costs.txt), so a
 * plan that remaps hundreds of chunks per iteration starves the GPU from
 * tidal_op_begin.  With the worker on:
 *  - every command gets a ticket, its sequence number (from 1, in queue
 *    order); the worker runs them in that order, so a physical chunk's
 *    unmap always runs before its map elsewhere, a map before the copy
 *    into it, and a set-access before anything touches the run;
 *  - each chunk keeps the ticket of its last command (rt_chunk.ticket);
 *    tidal_op_begin waits for its chunks' tickets before it returns, so
 *    the program's launch never sees a mapping that is not there yet;
 *  - an event issued by a command carries the ticket (rt_event.ticket),
 *    and every backend event call (done?, host wait, stream wait,
 *    release) waits for it first: an event not yet recorded would look
 *    complete to cuEventQuery and make cuStreamWaitEvent a no-op;
 *  - an unmap carries its chunk's last-use mark, which the worker waits
 *    for (Note [last-use marks] in residency.c), not the training thread;
 *  - what frees addresses or physical chunks (tidal_free, a shrinking
 *    budget) or ends the runtime drains the queue first;
 *  - park/unpark cost nothing on CUDA; on the sim they change page
 *    protection, so they wait for the chunk's ticket and run at once
 *    (the oracle then still sees an evicted chunk as PROT_NONE right away).
 * The worker touches only what a command names and the backend's
 * constant state (streams, the fd); cmd_prepare resolved the rest on the
 * training thread.  A failed command makes the queue fail: the worker runs
 * nothing after it, and every later wait returns the error (a chunk the
 * training thread believes mapped may not be, so no op may run).
 * Waits spin briefly, then sleep on a condition variable.  The sim models
 * the worker as a timeline of its own (Note [sim cost model]).
 *
 * Note [device front]: the layers above reach the backend's mapping calls,
 * copies, parking and event calls through rt_dev_* (the end of this file),
 * never through its table, so the queue wraps the backend the way one
 * jemalloc page allocator wraps another behind pai.h, and the backends know
 * nothing of it.  With the worker off each rt_dev_* call is the backend's;
 * with it on, map, set-access, unmap and the copies are queued (the caller
 * gets the command's ticket for its chunk), parking first waits for the
 * chunk's last command where it changes the mapping (the sim), and every
 * event call first makes sure the command that records the event has run.
 * A backend whose events answer from a model clock (events_modelled: the
 * sim) is asked first and the worker awaited only once it says done, so
 * the answer never depends on the worker thread's real speed; a real
 * backend's poll says "not done" while the command is still queued, and
 * its waits count the time spent waiting for the worker. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "device/device.h"

rt_dev_state rt_dev; /* device.h */

#define VMMQ_SPIN_YIELDS 64 /* sched_yield()s before a waiter sleeps */

static struct vmmq {
  int on;
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t cv_work, cv_done;
  rt_cmd *ring;               /* pending commands, oldest at head */
  size_t head, len, cap;
  uint64_t next_seq;          /* the last ticket handed out (training thread) */
  double last_vt;             /* when the last queued command ends, modelled */
  _Atomic uint64_t done;      /* the last command the worker finished */
  _Atomic int failed;         /* a command failed: err/msg say which */
  tidal_status err;
  char msg[512];
  int stop, idle, waiters, hold;
} q;

int rt_vmmq_on(void) { return q.on; }

static int run_one(const rt_cmd *c, char *err, size_t n) {
  if (c->kind == 0)
    return rt_dev.be->worker_attach(rt_dev.b, err, n);
  return rt_dev.be->cmd_run(rt_dev.b, c, err, n);
}

static void *worker_main(void *arg) {
  (void)arg;
  char err[sizeof q.msg];
  pthread_mutex_lock(&q.mu);
  for (;;) {
    while ((!q.len || q.hold) && !q.stop) {
      q.idle = 1;
      pthread_cond_wait(&q.cv_work, &q.mu);
      q.idle = 0;
    }
    if (!q.len)
      break; /* stop requested and the queue is drained */
    rt_cmd c = q.ring[q.head];
    q.head = (q.head + 1) % q.cap;
    q.len--;
    pthread_mutex_unlock(&q.mu);
    tidal_status st = TIDAL_OK;
    err[0] = '\0';
    if (!atomic_load(&q.failed)) /* after a failure nothing more runs */
      st = run_one(&c, err, sizeof err);
    pthread_mutex_lock(&q.mu);
    if (st != TIDAL_OK && !atomic_load(&q.failed)) {
      q.err = st;
      snprintf(q.msg, sizeof q.msg, "%s", err[0] ? err : "a driver command failed");
      atomic_store(&q.failed, 1);
    }
    atomic_store(&q.done, c.seq);
    if (q.waiters)
      pthread_cond_broadcast(&q.cv_done);
  }
  pthread_mutex_unlock(&q.mu);
  return NULL;
}

static int done_upto(uint64_t seq) { return !q.on || atomic_load(&q.done) >= seq; }

static tidal_status failure(void) {
  return rt_error(q.err, "VMM worker: %s (every later op fails: the device state is unknown)",
                  q.msg);
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* *real_s += the wall time spent waiting, if it had to. */
static tidal_status sync_timed(uint64_t seq, double *real_s) {
  if (!q.on || !seq)
    return TIDAL_OK;
  if (atomic_load(&q.done) >= seq)
    return atomic_load(&q.failed) ? failure() : TIDAL_OK;
  double t0 = now_s();
  for (int i = 0; i < VMMQ_SPIN_YIELDS && atomic_load(&q.done) < seq; i++)
    sched_yield();
  if (atomic_load(&q.done) < seq) {
    pthread_mutex_lock(&q.mu);
    q.waiters++;
    while (atomic_load(&q.done) < seq)
      pthread_cond_wait(&q.cv_done, &q.mu);
    q.waiters--;
    pthread_mutex_unlock(&q.mu);
  }
  if (real_s)
    *real_s += now_s() - t0;
  return atomic_load(&q.failed) ? failure() : TIDAL_OK;
}

tidal_status rt_vmmq_sync(uint64_t seq) { return sync_timed(seq, NULL); }

tidal_status rt_vmmq_wait(const rt_ticket *t) {
  if (!q.on || !t->seq)
    return TIDAL_OK;
  double real = 0, waited = 0;
  tidal_status st = sync_timed(t->seq, &real);
  rt_dev.be->worker_waited(rt_dev.b, t->vt, real, &waited);
  if (waited > 0) {
    RT_COUNT_TIME(stall_seconds, waited);
    if (RT_TRACING()) /* where the training thread waited for the worker */
      rt_trace("vmm_wait", "\"seconds\":%.9f,\"ticket\":%llu", waited,
               (unsigned long long)t->seq);
  }
  return st;
}

tidal_status rt_vmmq_drain(void) {
  rt_ticket t = {q.next_seq, q.last_vt};
  return rt_vmmq_wait(&t);
}

static tidal_status push(rt_cmd *cmd) {
  pthread_mutex_lock(&q.mu);
  if (q.len == q.cap) {
    size_t cap = q.cap ? q.cap * 2 : 256;
    rt_cmd *r = malloc(cap * sizeof *r);
    if (!r) {
      pthread_mutex_unlock(&q.mu);
      return rt_error(TIDAL_ERR_HOST_MEMORY, "VMM worker: out of host memory for the queue");
    }
    for (size_t i = 0; i < q.len; i++)
      r[i] = q.ring[(q.head + i) % q.cap];
    free(q.ring);
    q.ring = r;
    q.head = 0;
    q.cap = cap;
  }
  cmd->seq = ++q.next_seq;
  q.ring[(q.head + q.len) % q.cap] = *cmd;
  q.len++;
  if (q.idle)
    pthread_cond_signal(&q.cv_work);
  pthread_mutex_unlock(&q.mu);
  return TIDAL_OK;
}

/* Queues cmd (backend cmd_prepare first): *ev as the backend fills it (a
 * copy's carries the ticket), *t its ticket; ev and t may be NULL. */
static tidal_status submit(rt_cmd *cmd, rt_event *ev, rt_ticket *t) {
  if (atomic_load(&q.failed))
    return failure();
  rt_event scratch;
  if (!ev)
    ev = &scratch;
  memset(ev, 0, sizeof *ev);
  double vt = 0;
  tidal_status st = rt_dev.be->cmd_prepare(rt_dev.b, cmd, ev, &vt);
  if (st != TIDAL_OK)
    return st;
  if ((st = push(cmd)) != TIDAL_OK) {
    rt_dev.be->event_release(rt_dev.b, ev);
    return st;
  }
  q.last_vt = vt;
  if (cmd->kind == RT_CMD_D2H || cmd->kind == RT_CMD_H2D)
    ev->ticket = cmd->seq; /* recorded by the worker: callers wait for it */
  if (t) {
    t->seq = cmd->seq;
    t->vt = vt;
  }
  return TIDAL_OK;
}

tidal_status rt_vmmq_start(void) {
  memset(&q, 0, sizeof q);
  pthread_mutex_init(&q.mu, NULL);
  pthread_cond_init(&q.cv_work, NULL);
  pthread_cond_init(&q.cv_done, NULL);
  if (pthread_create(&q.thread, NULL, worker_main, NULL) != 0) {
    pthread_mutex_destroy(&q.mu);
    pthread_cond_destroy(&q.cv_work);
    pthread_cond_destroy(&q.cv_done);
    return rt_error(TIDAL_ERR_BACKEND, "tidal_init: cannot start the VMM worker thread");
  }
  q.on = 1;
  /* The first command attaches the worker to the device (cuda: the
   * context); a failure fails tidal_init. */
  rt_cmd attach = {0};
  tidal_status st = push(&attach);
  if (st == TIDAL_OK)
    st = rt_vmmq_sync(attach.seq);
  if (st != TIDAL_OK)
    rt_vmmq_stop();
  return st;
}

RT_HIDDEN void rt_vmmq_hold(int on);

void rt_vmmq_stop(void) {
  if (!q.on)
    return;
  rt_vmmq_hold(0);
  rt_vmmq_sync(q.next_seq); /* a failure was reported when it mattered */
  pthread_mutex_lock(&q.mu);
  q.stop = 1;
  pthread_cond_signal(&q.cv_work);
  pthread_mutex_unlock(&q.mu);
  pthread_join(q.thread, NULL);
  pthread_mutex_destroy(&q.mu);
  pthread_cond_destroy(&q.cv_work);
  pthread_cond_destroy(&q.cv_done);
  free(q.ring);
  memset(&q, 0, sizeof q);
}

/* Test hooks (test_vmmthread.c): hold keeps the worker from starting
 * another command, so a test can prove what waits for it and what does
 * not; pending counts commands queued and not finished. */
RT_HIDDEN uint64_t rt_vmmq_pending(void);

void rt_vmmq_hold(int on) {
  if (!q.on)
    return;
  pthread_mutex_lock(&q.mu);
  q.hold = on;
  pthread_cond_signal(&q.cv_work);
  pthread_mutex_unlock(&q.mu);
}

uint64_t rt_vmmq_pending(void) { return q.on ? q.next_seq - atomic_load(&q.done) : 0; }

/* ---- the device front (Note [device front]) ---- */

tidal_status rt_dev_map(uintptr_t addr, uint32_t phys, rt_event *ready, rt_ticket *t) {
  if (!q.on)
    return rt_dev.be->map(rt_dev.b, addr, phys, ready);
  rt_cmd cmd = {.kind = RT_CMD_MAP, .addr = addr, .phys = phys};
  return submit(&cmd, ready, t);
}

tidal_status rt_dev_set_access(uintptr_t addr, size_t bytes, rt_ticket *t) {
  if (!q.on)
    return rt_dev.be->set_access(rt_dev.b, addr, bytes);
  rt_cmd cmd = {.kind = RT_CMD_SET_ACCESS, .addr = addr, .bytes = bytes};
  return submit(&cmd, NULL, t);
}

tidal_status rt_dev_unmap(uintptr_t addr, uint32_t phys, uint64_t mark, rt_ticket *t) {
  if (!q.on) /* the caller has waited for the mark */
    return rt_dev.be->unmap(rt_dev.b, addr, phys);
  rt_cmd cmd = {.kind = RT_CMD_UNMAP, .addr = addr, .phys = phys, .mark = mark};
  return submit(&cmd, NULL, t);
}

tidal_status rt_dev_copy_d2h(void *dst, uintptr_t src, size_t bytes, uint32_t phys,
                             tidal_stream after, rt_event *done, rt_ticket *t) {
  if (!q.on)
    return rt_dev.be->copy_d2h(rt_dev.b, dst, src, bytes, phys, after, done);
  rt_cmd cmd = {.kind = RT_CMD_D2H, .addr = src, .bytes = bytes, .host = dst, .stream = after,
                .phys = phys};
  return submit(&cmd, done, t);
}

tidal_status rt_dev_copy_h2d(uintptr_t dst, const void *src, size_t bytes, uint32_t phys,
                             int urgent, uint64_t after_mark, rt_event *done, rt_ticket *t) {
  if (!q.on)
    return rt_dev.be->copy_h2d(rt_dev.b, dst, src, bytes, phys, urgent, after_mark, done);
  rt_cmd cmd = {.kind = RT_CMD_H2D, .addr = dst, .bytes = bytes, .host = (void *)src,
                .phys = phys, .urgent = (uint8_t)urgent, .mark = after_mark};
  return submit(&cmd, done, t);
}

tidal_status rt_dev_park(uintptr_t addr, uint32_t phys, int park, uint64_t last_seq) {
  if (q.on && rt_dev.be->park_touches_mapping) {
    tidal_status st = rt_vmmq_sync(last_seq);
    if (st != TIDAL_OK)
      return st;
  }
  return park ? rt_dev.be->park(rt_dev.b, addr, phys) : rt_dev.be->unpark(rt_dev.b, addr, phys);
}

int rt_dev_event_done(const rt_event *ev) {
  if (ev->ticket && !done_upto(ev->ticket) && !rt_dev.be->events_modelled)
    return 0; /* not even recorded yet (a real event would read as complete) */
  int done = rt_dev.be->event_done(rt_dev.b, ev);
  if (done && ev->ticket) /* the host may touch its memory once the worker has run it */
    rt_vmmq_sync(ev->ticket);
  return done;
}

tidal_status rt_dev_event_sync(const rt_event *ev, double *waited_s) {
  if (ev->ticket) {
    tidal_status st = sync_timed(ev->ticket, rt_dev.be->events_modelled ? NULL : waited_s);
    if (st != TIDAL_OK)
      return st;
  }
  return rt_dev.be->event_sync(rt_dev.b, ev, waited_s);
}

tidal_status rt_dev_stream_wait(tidal_stream s, const rt_event *ev, double *stall_s) {
  if (ev->ticket) { /* a wait on an event not recorded yet would be a no-op */
    tidal_status st = rt_vmmq_sync(ev->ticket);
    if (st != TIDAL_OK)
      return st;
  }
  return rt_dev.be->stream_wait(rt_dev.b, s, ev, stall_s);
}

void rt_dev_event_release(rt_event *ev) {
  if (ev->ticket) /* not back to the backend's pool before the worker has recorded it */
    rt_vmmq_sync(ev->ticket);
  rt_dev.be->event_release(rt_dev.b, ev);
}

double rt_dev_now(void) { return rt_dev.be && rt_dev.b ? rt_dev.be->modelled_now(rt_dev.b) : 0.0; }
