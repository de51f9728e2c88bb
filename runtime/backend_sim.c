/* backend_sim.c - the device emulated in host memory, with a virtual clock.
 *
 * Address reservations are mmap(PROT_NONE) ranges; the physical pool is one
 * memfd whose chunk-sized pieces are mapped into them with
 * mmap(MAP_FIXED|MAP_SHARED).  Unmapping puts PROT_NONE anonymous memory
 * back, so any access to evicted memory raises SIGSEGV: the tests' oracle.
 * The host store is plain anonymous memory (nothing to pin on a CPU).
 *
 * Copies run on one worker thread, in issue order (sim_synchronous runs
 * them inline).  Events are copy sequence numbers; completion is the
 * worker's done counter plus a condition variable.  The worker touches only
 * the two buffers of a job; everything else is the training thread's.
 *
 * Note [sim cost model]: three timelines - compute, the device-to-host
 * engine and the host-to-device engine.  A copy costs latency + bytes /
 * bandwidth on its engine and starts no earlier than the compute time at
 * which it was issued (the host is assumed not to run ahead of the device),
 * after the engine is free, and, for copies into a physical chunk, after
 * that chunk's previous user finished with it.  An op costs its site's
 * est_seconds on the compute timeline, after waiting for the events of the
 * data it uses; that wait is the stall. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include "rt.h"

typedef struct sim_job {
  void *dst;
  const void *src;
  size_t bytes;
  uint64_t seq;
} sim_job;

struct rt_backend {
  size_t device_bytes;
  size_t page_bytes;
  size_t chunk_bytes;
  uint32_t nphys;          /* physical chunk numbers the memfd and phys_busy cover */
  size_t live_bytes;       /* physical chunks that exist now (the pool can resize) */
  int fd;                  /* the emulated device memory */
  double h2d_bytes_per_s, d2h_bytes_per_s, latency_s;
  int synchronous;
  /* virtual clock (training thread only) */
  double t_compute, t_h2d, t_d2h;
  double *phys_busy;       /* per physical chunk: modelled time it is free again */
  /* copy worker */
  pthread_t thread;
  int thread_started;
  pthread_mutex_t mu;
  pthread_cond_t cv_work, cv_done;
  sim_job *q;              /* ring buffer of pending jobs */
  size_t qhead, qlen, qcap;
  uint64_t next_seq;
  _Atomic uint64_t done_seq;
  int stop;
};

static void *worker_main(void *arg) {
  rt_backend *b = arg;
  pthread_mutex_lock(&b->mu);
  for (;;) {
    while (!b->qlen && !b->stop)
      pthread_cond_wait(&b->cv_work, &b->mu);
    if (!b->qlen)
      break; /* stop requested and the queue is drained */
    sim_job j = b->q[b->qhead];
    b->qhead = (b->qhead + 1) % b->qcap;
    b->qlen--;
    pthread_mutex_unlock(&b->mu);
    memcpy(j.dst, j.src, j.bytes);
    pthread_mutex_lock(&b->mu);
    atomic_store(&b->done_seq, j.seq);
    pthread_cond_broadcast(&b->cv_done);
  }
  pthread_mutex_unlock(&b->mu);
  return NULL;
}

static tidal_status sim_create(const tidal_config *cfg, rt_backend **out, size_t *granularity,
                               size_t *device_free) {
  rt_backend *b = calloc(1, sizeof *b);
  if (!b)
    return rt_error(TIDAL_ERR_HOST_MEMORY, "tidal_init: out of host memory");
  long page = sysconf(_SC_PAGESIZE);
  b->page_bytes = page > 0 ? (size_t)page : 4096;
  b->device_bytes = cfg->sim_device_bytes ? cfg->sim_device_bytes : RT_SIM_DEFAULT_DEVICE_BYTES;
  b->h2d_bytes_per_s = cfg->sim_h2d_bytes_per_s > 0 ? cfg->sim_h2d_bytes_per_s
                                                    : RT_SIM_DEFAULT_BYTES_PER_S;
  b->d2h_bytes_per_s = cfg->sim_d2h_bytes_per_s > 0 ? cfg->sim_d2h_bytes_per_s
                                                    : RT_SIM_DEFAULT_BYTES_PER_S;
  b->latency_s = cfg->sim_copy_latency_s > 0 ? cfg->sim_copy_latency_s : RT_SIM_DEFAULT_LATENCY_S;
  b->synchronous = cfg->sim_synchronous;
  b->fd = -1;
  pthread_mutex_init(&b->mu, NULL);
  pthread_cond_init(&b->cv_work, NULL);
  pthread_cond_init(&b->cv_done, NULL);
  if (!b->synchronous) {
    if (pthread_create(&b->thread, NULL, worker_main, b) != 0) {
      free(b);
      return rt_error(TIDAL_ERR_BACKEND, "tidal_init: sim backend: cannot start the copy thread");
    }
    b->thread_started = 1;
  }
  *out = b;
  *granularity = b->page_bytes;
  *device_free = b->device_bytes;
  return TIDAL_OK;
}

static tidal_status sim_pool_create(rt_backend *b, size_t chunk_bytes, uint32_t n) {
  b->chunk_bytes = chunk_bytes;
  b->nphys = n;
  b->live_bytes = chunk_bytes * n;
  b->phys_busy = calloc(n ? n : 1, sizeof *b->phys_busy);
  if (!b->phys_busy)
    return rt_error(TIDAL_ERR_HOST_MEMORY, "tidal_init: out of host memory");
  b->fd = memfd_create("tidal-sim-device", MFD_CLOEXEC);
  if (b->fd < 0)
    return rt_error(TIDAL_ERR_BACKEND, "tidal_init: sim backend: memfd_create: %s",
                    strerror(errno));
  if (ftruncate(b->fd, (off_t)(chunk_bytes * n)) != 0)
    return rt_error(TIDAL_ERR_DEVICE_MEMORY, "tidal_init: sim backend: sizing the %zu-byte pool: %s",
                    chunk_bytes * n, strerror(errno));
  return TIDAL_OK;
}

/* Physical chunk `phys` comes into existence (the budget grew): the memfd
 * grows to cover it, doubling so that growing one chunk at a time stays
 * cheap; the emulated device's capacity still bounds what exists. */
static tidal_status sim_phys_add(rt_backend *b, uint32_t phys) {
  if (b->live_bytes + b->chunk_bytes > b->device_bytes)
    return rt_error(TIDAL_ERR_DEVICE_MEMORY,
                    "sim backend: a %zu-byte chunk more exceeds the %zu-byte device", b->chunk_bytes,
                    b->device_bytes);
  if (phys >= b->nphys) {
    uint32_t n = b->nphys ? b->nphys : 1;
    while (n <= phys)
      n = n > UINT32_MAX / 2 ? UINT32_MAX : n * 2;
    double *busy = realloc(b->phys_busy, (size_t)n * sizeof *busy);
    if (!busy)
      return rt_error(TIDAL_ERR_HOST_MEMORY, "sim backend: out of host memory");
    memset(busy + b->nphys, 0, (size_t)(n - b->nphys) * sizeof *busy);
    b->phys_busy = busy;
    if (ftruncate(b->fd, (off_t)(b->chunk_bytes * n)) != 0)
      return rt_error(TIDAL_ERR_DEVICE_MEMORY, "sim backend: growing the pool to %zu bytes: %s",
                      b->chunk_bytes * n, strerror(errno));
    b->nphys = n;
  }
  b->live_bytes += b->chunk_bytes;
  return TIDAL_OK;
}

/* Physical chunk `phys` (unmapped) goes away: its memory is given back to
 * the host, as cuMemRelease gives it back to the device. */
static void sim_phys_remove(rt_backend *b, uint32_t phys) {
  fallocate(b->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)((size_t)phys * b->chunk_bytes),
            (off_t)b->chunk_bytes);
  b->live_bytes -= b->chunk_bytes;
}

static void sim_destroy(rt_backend *b) {
  if (b->thread_started) {
    pthread_mutex_lock(&b->mu);
    b->stop = 1;
    pthread_cond_signal(&b->cv_work);
    pthread_mutex_unlock(&b->mu);
    pthread_join(b->thread, NULL);
  }
  if (b->fd >= 0)
    close(b->fd);
  pthread_mutex_destroy(&b->mu);
  pthread_cond_destroy(&b->cv_work);
  pthread_cond_destroy(&b->cv_done);
  free(b->q);
  free(b->phys_busy);
  free(b);
}

static tidal_status sim_reserve(rt_backend *b, size_t bytes, uintptr_t *addr) {
  void *p = mmap(NULL, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    return rt_error(TIDAL_ERR_DEVICE_MEMORY, "sim backend: reserving %zu bytes of addresses: %s",
                    bytes, strerror(errno));
  *addr = (uintptr_t)p;
  return TIDAL_OK;
}

static void sim_release(rt_backend *b, uintptr_t addr, size_t bytes) {
  munmap((void *)addr, bytes);
}

/* Every mapped chunk is one kernel mapping (neighbours merge only when their
 * physical chunks are contiguous), so small chunks under a large budget can
 * run into the process's mapping limit: say so rather than just ENOMEM. */
static const char *map_errno_hint(int err) {
  return err == ENOMEM ? " (likely the process's mapping limit, vm.max_map_count: the sim maps "
                         "each chunk separately; use larger chunks or a smaller budget)"
                       : "";
}

static tidal_status sim_map(rt_backend *b, uintptr_t addr, uint32_t phys, rt_event *ready) {
  void *p = mmap((void *)addr, b->chunk_bytes, PROT_READ | PROT_WRITE, MAP_FIXED | MAP_SHARED,
                 b->fd, (off_t)((size_t)phys * b->chunk_bytes));
  if (p == MAP_FAILED)
    return rt_error(TIDAL_ERR_BACKEND, "sim backend: mapping chunk %u at %#lx: %s%s", phys,
                    (unsigned long)addr, strerror(errno), map_errno_hint(errno));
  ready->seq = 0;
  ready->vt = b->phys_busy[phys];
  ready->handle = NULL;
  return TIDAL_OK;
}

static tidal_status sim_unmap(rt_backend *b, uintptr_t addr, uint32_t phys) {
  void *p = mmap((void *)addr, b->chunk_bytes, PROT_NONE,
                 MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  int err = errno;
  /* Ops enqueued so far may still use the physical chunk. */
  if (b->phys_busy[phys] < b->t_compute)
    b->phys_busy[phys] = b->t_compute;
  if (p == MAP_FAILED)
    return rt_error(TIDAL_ERR_BACKEND, "sim backend: unmapping %#lx: %s%s", (unsigned long)addr,
                    strerror(err), map_errno_hint(err));
  return TIDAL_OK;
}

static tidal_status sim_host_alloc(rt_backend *b, size_t bytes, void **p) {
  void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
  if (m == MAP_FAILED)
    return TIDAL_ERR_HOST_MEMORY;
  *p = m;
  return TIDAL_OK;
}

static void sim_host_free(rt_backend *b, void *p, size_t bytes) { munmap(p, bytes); }

static double max2(double a, double x) { return a > x ? a : x; }

static tidal_status enqueue(rt_backend *b, void *dst, const void *src, size_t bytes,
                            rt_event *done) {
  if (b->synchronous) {
    memcpy(dst, src, bytes);
    done->seq = 0; /* complete already */
    return TIDAL_OK;
  }
  pthread_mutex_lock(&b->mu);
  if (b->qlen == b->qcap) {
    size_t cap = b->qcap ? b->qcap * 2 : 256;
    sim_job *q = malloc(cap * sizeof *q);
    if (!q) {
      pthread_mutex_unlock(&b->mu);
      return rt_error(TIDAL_ERR_HOST_MEMORY, "sim backend: out of host memory for the copy queue");
    }
    for (size_t i = 0; i < b->qlen; i++)
      q[i] = b->q[(b->qhead + i) % b->qcap];
    free(b->q);
    b->q = q;
    b->qhead = 0;
    b->qcap = cap;
  }
  sim_job *j = &b->q[(b->qhead + b->qlen) % b->qcap];
  j->dst = dst;
  j->src = src;
  j->bytes = bytes;
  j->seq = ++b->next_seq;
  b->qlen++;
  done->seq = j->seq;
  pthread_cond_signal(&b->cv_work);
  pthread_mutex_unlock(&b->mu);
  return TIDAL_OK;
}

static tidal_status sim_copy_d2h(rt_backend *b, void *dst, uintptr_t src, size_t bytes,
                                 uint32_t phys, tidal_stream after, rt_event *done) {
  double start = max2(b->t_d2h, b->t_compute); /* after the last writer: all enqueued compute */
  double end = start + b->latency_s + (double)bytes / b->d2h_bytes_per_s;
  b->t_d2h = end;
  b->phys_busy[phys] = max2(b->phys_busy[phys], end);
  done->vt = end;
  done->handle = NULL;
  return enqueue(b, dst, (const void *)src, bytes, done);
}

static tidal_status sim_copy_h2d(rt_backend *b, uintptr_t dst, const void *src, size_t bytes,
                                 uint32_t phys, rt_event *done) {
  double start = max2(max2(b->t_h2d, b->t_compute), b->phys_busy[phys]);
  double end = start + b->latency_s + (double)bytes / b->h2d_bytes_per_s;
  b->t_h2d = end;
  b->phys_busy[phys] = end;
  done->vt = end;
  done->handle = NULL;
  return enqueue(b, (void *)dst, src, bytes, done);
}

static int sim_event_done(rt_backend *b, const rt_event *ev) {
  return ev->seq == 0 || atomic_load(&b->done_seq) >= ev->seq;
}

static tidal_status sim_event_sync(rt_backend *b, const rt_event *ev, double *waited_s) {
  if (sim_event_done(b, ev))
    return TIDAL_OK;
  pthread_mutex_lock(&b->mu);
  while (atomic_load(&b->done_seq) < ev->seq)
    pthread_cond_wait(&b->cv_done, &b->mu);
  pthread_mutex_unlock(&b->mu);
  return TIDAL_OK; /* the modelled wait is charged by sim_stream_wait */
}

static tidal_status sim_stream_wait(rt_backend *b, tidal_stream s, const rt_event *ev,
                                    double *stall_s) {
  /* The "kernel" runs on the host right after op_begin: the data must be
   * there for real, not only on the virtual clock. */
  sim_event_sync(b, ev, NULL);
  if (ev->vt > b->t_compute) {
    *stall_s += ev->vt - b->t_compute;
    b->t_compute = ev->vt;
  }
  return TIDAL_OK;
}

static void sim_event_release(rt_backend *b, rt_event *ev) { (void)ev; }

static void sim_op_end(rt_backend *b, tidal_stream s, double est_seconds) {
  if (est_seconds > 0)
    b->t_compute += est_seconds;
}

static double sim_modelled_now(rt_backend *b) { return b->t_compute; }

static tidal_status sim_time_mark(rt_backend *b, tidal_stream s, rt_event *mark) {
  memset(mark, 0, sizeof *mark);
  mark->vt = b->t_compute;
  return TIDAL_OK;
}

static tidal_status sim_time_elapsed(rt_backend *b, const rt_event *a, const rt_event *e,
                                     double *s) {
  *s = e->vt - a->vt;
  return TIDAL_OK;
}

static void sim_time_release(rt_backend *b, rt_event *mark) { (void)mark; }

const rt_backend_ops rt_backend_sim_ops = {
    .name = "sim",
    .create = sim_create,
    .pool_create = sim_pool_create,
    .phys_add = sim_phys_add,
    .phys_remove = sim_phys_remove,
    .destroy = sim_destroy,
    .reserve = sim_reserve,
    .release = sim_release,
    .map = sim_map,
    .unmap = sim_unmap,
    .host_alloc = sim_host_alloc,
    .host_free = sim_host_free,
    .copy_d2h = sim_copy_d2h,
    .copy_h2d = sim_copy_h2d,
    .event_done = sim_event_done,
    .event_sync = sim_event_sync,
    .stream_wait = sim_stream_wait,
    .event_release = sim_event_release,
    .op_end = sim_op_end,
    .modelled_now = sim_modelled_now,
    .time_mark = sim_time_mark,
    .time_elapsed = sim_time_elapsed,
    .time_release = sim_time_release,
};
