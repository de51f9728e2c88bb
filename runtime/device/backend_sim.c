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
 * Note [sim cost model]: the costs come from a small text file
 * (runtime/device/sim_costs.txt, compiled in; TIDAL_SIM_COSTS=FILE or
 * tidal_config.sim_costs_path over it; bench/vmm_costs measures one on a
 * GPU).  Five timelines, in modelled seconds:
 *  - the host (t_host): every driver call the CUDA backend would make costs
 *    its per-call time here (map, set-access, unmap, event record and
 *    query, stream wait, copy issue, launch, pinning); a blocking wait
 *    (event_sync, mark_wait) moves it to the awaited time plus a wake-up;
 *  - the device's compute stream (t_dev): an op is enqueued at tidal_op_end
 *    and starts at the latest of: the previous op's end plus the launch
 *    gap, the host's time (it cannot start before it is launched), and the
 *    events its begin waited for (prefetches, faults: the stall); it lasts
 *    its site's est_seconds.  The host runs ahead of the device by at most
 *    host_ahead_s (then a launch blocks until the device catches up);
 *  - three copy engines: device-to-host, host-to-device (prefetches) and
 *    the urgent host-to-device stream (faults).  A copy costs latency +
 *    bytes / bandwidth; it starts after its issue on the host, after its
 *    engine is free, after the compute enqueued before it (swap-outs), and
 *    after its physical chunk's previous user (restores);
 *  - with the VMM worker on (Note [vmm worker], vmmq.c), the worker's
 *    timeline (t_vmm): map, set-access, unmap and copy issue cost their
 *    time there instead of on the host, which pays vmm_enqueue_s per
 *    command.  A command starts when the worker is free and the host has
 *    queued it (an unmap also waits for its last-use mark); a copy starts
 *    no earlier than its issue there.  The host's clock jumps to a
 *    command's end only when it waits for its ticket (tidal_op_begin, an
 *    event it issued).  Times are computed when a command is queued, on
 *    the training thread, so they do not depend on the worker thread's
 *    real speed; the worker does the real mmap and memcpy.
 * An event (copy, mark) is done for the host when the host's time has
 * reached it: polling never sees the future, so what the runtime decides
 * does not depend on the copy thread's real speed.  The modelled time is
 * the later of host and device. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include "device/device.h"

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
  rt_costs c;
  int synchronous;
  int no_data;             /* cfg.sim_no_data: copies move no bytes */
  int profile;             /* record modelled op durations (TIDAL_PROFILE) */
  /* virtual clocks (training thread only; Note [sim cost model]) */
  double t_host, t_dev, t_h2d, t_d2h, t_fault;
  double t_vmm;            /* the VMM worker's timeline (Note [vmm worker]) */
  double dev_wait;         /* the next op waits for this (its begin's stream waits) */
  double *phys_busy;       /* per physical chunk: modelled time it is free again */
  double map_c, unmap_c, access_c; /* one chunk's map, unmap, set-access (Note [vmm calls in situ]) */
  tidal_sim_site *sites;   /* tidal_config.sim_sites, hashed by site (open addressing) */
  size_t nsites_cap;       /* a power of two, or 0 */
  double *marks;           /* mark m's time is marks[m - mark_base] */
  uint64_t mark_base, nmarks;
  size_t cap_marks;
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

static size_t site_slot(const tidal_site *site, size_t cap) {
  uintptr_t h = (uintptr_t)site;
  h ^= h >> 17;
  h *= (uintptr_t)0x9E3779B97F4A7C15ull;
  return (size_t)(h ^ (h >> 29)) & (cap - 1);
}

/* Copies the program's per-site host costs (tidal_config.sim_sites). */
static int sites_init(rt_backend *b, const tidal_config *cfg) {
  if (cfg->n_sim_sites <= 0 || !cfg->sim_sites)
    return 1;
  size_t cap = 16;
  while (cap < 2 * (size_t)cfg->n_sim_sites)
    cap *= 2;
  b->sites = calloc(cap, sizeof *b->sites);
  if (!b->sites)
    return 0;
  b->nsites_cap = cap;
  for (int i = 0; i < cfg->n_sim_sites; i++) {
    const tidal_sim_site *e = &cfg->sim_sites[i];
    if (!e->site)
      continue;
    size_t j = site_slot(e->site, cap);
    while (b->sites[j].site && b->sites[j].site != e->site)
      j = (j + 1) & (cap - 1);
    b->sites[j] = *e;
  }
  return 1;
}

static const tidal_sim_site *site_costs(const rt_backend *b, const tidal_site *site) {
  if (!b->nsites_cap || !site)
    return NULL;
  for (size_t j = site_slot(site, b->nsites_cap); b->sites[j].site; j = (j + 1) & (b->nsites_cap - 1))
    if (b->sites[j].site == site)
      return &b->sites[j];
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
  tidal_status st = rt_costs_load(cfg->sim_costs_path, &b->c);
  if (st != TIDAL_OK) {
    free(b);
    return st;
  }
  if (cfg->sim_h2d_bytes_per_s > 0)
    b->c.h2d_bytes_per_s = cfg->sim_h2d_bytes_per_s;
  if (cfg->sim_d2h_bytes_per_s > 0)
    b->c.d2h_bytes_per_s = cfg->sim_d2h_bytes_per_s;
  if (cfg->sim_copy_latency_s > 0)
    b->c.copy_latency_s = cfg->sim_copy_latency_s;
  if (cfg->sim_call_cost_scale > 0) {
    double k = cfg->sim_call_cost_scale;
    b->c.map_s *= k, b->c.set_access_s *= k, b->c.unmap_s *= k;
    b->c.map_8m_s *= k, b->c.set_access_8m_s *= k, b->c.unmap_8m_s *= k;
    b->c.map_32m_s *= k, b->c.set_access_32m_s *= k, b->c.unmap_32m_s *= k;
    b->c.event_record_s *= k, b->c.event_query_s *= k, b->c.event_sync_s *= k;
    b->c.stream_wait_s *= k, b->c.copy_issue_s *= k, b->c.vmm_enqueue_s *= k;
  }
  if (!sites_init(b, cfg)) {
    free(b);
    return rt_error(TIDAL_ERR_HOST_MEMORY, "tidal_init: out of host memory");
  }
  b->no_data = cfg->sim_no_data;
  b->synchronous = cfg->sim_synchronous || b->no_data; /* nothing for a thread to copy */
  b->profile = cfg->profile_path != NULL;
  b->mark_base = 1;
  b->fd = -1;
  pthread_mutex_init(&b->mu, NULL);
  pthread_cond_init(&b->cv_work, NULL);
  pthread_cond_init(&b->cv_done, NULL);
  if (!b->synchronous) {
    if (pthread_create(&b->thread, NULL, worker_main, b) != 0) {
      free(b->sites);
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

/* Note [vmm calls in situ]: a chunk is one physical handle, and what a
 * map, unmap or set-access of it costs depends on the handle's size:
 * bench/vmm_costs measures handles of 2, 8 and 32 MiB (the H200: set-access
 * 21.2 / 26.3 / 43.1 us, unmap 14.1 / 17.8 / 25.1 us, map about 1 us), and
 * a chunk between two measured sizes costs the straight line between them
 * (past 32 MiB the last segment's slope; below 2 MiB the 2 MiB cost, which
 * tidal replay scales per byte: Note [latency per chunk], replay.c).  An
 * unmeasured size (0) costs what the next smaller measured one does, as
 * the sim charged before sizes were measured.
 * Those are microbenchmark figures: one reservation, a handle the device
 * never touched, an idle device, the same call repeated.  In a training
 * run the same calls cost more.  The H200 trace of the gpt variant at 50%
 * (bench/gpu/h200-2026-11-27/README.md) gives, per step, the host time
 * between a reassignment and the next event: 310 unmap+map pairs 27.5 us
 * each (15.2 us microbenchmarked), 290 unmap+map+set-access+copy issues
 * 70 us (39.6), and 108 unmap+map+set-access runs of 418 chunks in all,
 * 18.1 ms (10.5): 1.81x, 1.77x and 1.72x.  The ratio does not depend on
 * whether a kernel or a copy into the device was running (median 24 us
 * for unmap+map either way; 60 us for a remap with a prefetch), so it is
 * not bench/vmm_busy's saturated-device slowdown (3-7x under 20 ms of
 * queued copies) but a cost of the calls in that process (mappings the
 * device has used, a handle also mapped at a stale alias, a thousand live
 * mappings; the trace cannot tell which).  vmm_in_situ_scale (1.75 by
 * default) multiplies every size's cost. */
static double vmm_size_cost(size_t bytes, double c2, double c8, double c32) {
  const double m2 = 2.0 * 1048576, m8 = 8.0 * 1048576, m32 = 32.0 * 1048576;
  double x = (double)bytes;
  if (x <= m2 || c8 <= 0)
    return c2;
  if (x <= m8 || c32 <= 0)
    return x <= m8 ? c2 + (c8 - c2) * (x - m2) / (m8 - m2) : c8;
  return c8 + (c32 - c8) * (x - m8) / (m32 - m8);
}

static tidal_status sim_pool_create(rt_backend *b, size_t chunk_bytes, uint32_t n) {
  b->chunk_bytes = chunk_bytes;
  double k = b->c.vmm_in_situ_scale > 0 ? b->c.vmm_in_situ_scale : 1.0;
  b->map_c = k * vmm_size_cost(chunk_bytes, b->c.map_s, b->c.map_8m_s, b->c.map_32m_s);
  b->unmap_c = k * vmm_size_cost(chunk_bytes, b->c.unmap_s, b->c.unmap_8m_s, b->c.unmap_32m_s);
  b->access_c =
      k * vmm_size_cost(chunk_bytes, b->c.set_access_s, b->c.set_access_8m_s, b->c.set_access_32m_s);
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
  free(b->marks);
  free(b->sites);
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

static double max2(double a, double x) { return a > x ? a : x; }

/* The mapping itself, shared with the VMM worker: a message in err, not
 * rt_error (which belongs to the training thread). */
static tidal_status do_map(rt_backend *b, uintptr_t addr, uint32_t phys, char *err, size_t n) {
  /* Mapped with access at once: the sim has no separate grant, only its cost. */
  void *p = mmap((void *)addr, b->chunk_bytes, PROT_READ | PROT_WRITE, MAP_FIXED | MAP_SHARED,
                 b->fd, (off_t)((size_t)phys * b->chunk_bytes));
  if (p == MAP_FAILED) {
    snprintf(err, n, "sim backend: mapping chunk %u at %#lx: %s%s", phys, (unsigned long)addr,
             strerror(errno), map_errno_hint(errno));
    return TIDAL_ERR_BACKEND;
  }
  return TIDAL_OK;
}

static tidal_status do_unmap(rt_backend *b, uintptr_t addr, char *err, size_t n) {
  void *p = mmap((void *)addr, b->chunk_bytes, PROT_NONE,
                 MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    int e = errno;
    snprintf(err, n, "sim backend: unmapping %#lx: %s%s", (unsigned long)addr, strerror(e),
             map_errno_hint(e));
    return TIDAL_ERR_BACKEND;
  }
  return TIDAL_OK;
}

static tidal_status sim_map(rt_backend *b, uintptr_t addr, uint32_t phys, rt_event *ready) {
  char err[256];
  if (do_map(b, addr, phys, err, sizeof err) != TIDAL_OK)
    return rt_error(TIDAL_ERR_BACKEND, "%s", err);
  b->t_host += b->map_c;
  RT_COUNT_TIME(modelled_vmm_seconds, b->map_c);
  ready->seq = 0;
  ready->vt = b->phys_busy[phys];
  ready->handle = NULL;
  return TIDAL_OK;
}

/* One cuMemSetAccess over [addr, addr + bytes).  Measured on an H100
 * (bench/gpu/h100-2026-11-26): a set-access over a run of 8 chunks costs 8
 * times one chunk's, so the cost is per chunk (per handle: Note [vmm calls
 * in situ]). */
static double set_access_cost(const rt_backend *b, size_t bytes) {
  size_t n = (bytes + b->chunk_bytes - 1) / b->chunk_bytes;
  return b->access_c * (double)(n ? n : 1);
}

static tidal_status sim_set_access(rt_backend *b, uintptr_t addr, size_t bytes) {
  b->t_host += set_access_cost(b, bytes);
  RT_COUNT_TIME(modelled_vmm_seconds, set_access_cost(b, bytes));
  return TIDAL_OK;
}

static tidal_status sim_unmap(rt_backend *b, uintptr_t addr, uint32_t phys) {
  char err[256];
  b->t_host += b->unmap_c;
  RT_COUNT_TIME(modelled_vmm_seconds, b->unmap_c);
  if (do_unmap(b, addr, err, sizeof err) != TIDAL_OK)
    return rt_error(TIDAL_ERR_BACKEND, "%s", err);
  return TIDAL_OK;
}

/* Parking costs nothing on CUDA; here the chunk is made inaccessible so
 * that the oracle still catches a stray access to evicted memory. */
static tidal_status sim_protect(uintptr_t addr, size_t bytes, int prot) {
  if (mprotect((void *)addr, bytes, prot) != 0)
    return rt_error(TIDAL_ERR_BACKEND, "sim backend: mprotect %#lx: %s%s", (unsigned long)addr,
                    strerror(errno), map_errno_hint(errno));
  return TIDAL_OK;
}

static tidal_status sim_park(rt_backend *b, uintptr_t addr, uint32_t phys) {
  return sim_protect(addr, b->chunk_bytes, PROT_NONE);
}

static tidal_status sim_unpark(rt_backend *b, uintptr_t addr, uint32_t phys) {
  return sim_protect(addr, b->chunk_bytes, PROT_READ | PROT_WRITE);
}

static tidal_status sim_host_alloc(rt_backend *b, size_t bytes, void **p) {
  void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
  if (m == MAP_FAILED)
    return TIDAL_ERR_HOST_MEMORY;
  b->t_host += (double)bytes / b->c.pin_bytes_per_s;
  *p = m;
  return TIDAL_OK;
}

static void sim_host_free(rt_backend *b, void *p, size_t bytes) { munmap(p, bytes); }

static tidal_status enqueue(rt_backend *b, void *dst, const void *src, size_t bytes,
                            rt_event *done) {
  if (b->synchronous) {
    if (!b->no_data)
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

/* Note [one copy engine]: with one_copy_engine set, swap-outs, prefetches
 * and fault-ins share one timeline: a copy starts when every copy issued
 * before it, in either direction, has ended.  Otherwise each has its own
 * (d2h; h2d; the fault stream), and the two directions overlap fully.  The
 * H200 trace of the gpt variant at 50% (bench/gpu/h200-2026-11-27/) is
 * consistent with one: replaying its steady steps' copy issues on one
 * 53.4 GB/s engine, no copy is predicted to end more than 30 us after the
 * runtime saw it done (0 of about 2,400), and no window in which both
 * directions carry a third of the bytes or more moves more than 43 GB/s in
 * all, below one direction's bandwidth alone; with the two directions
 * overlapping, such windows would move more.  The configurations that move
 * the most bytes both ways are the ones the overlapping model
 * underpredicted most (32 MiB chunks at 50%: 59 ms modelled, 82 ms
 * measured; 81 ms on one engine).  Why the card serialises them (one
 * engine for both streams, or the host side of the link) the files do not
 * say; bench/vmm_costs times each direction alone. */
static double *engine_of(rt_backend *b, double *own) {
  return b->c.one_copy_engine > 0 ? &b->t_d2h : own;
}

/* A copy's modelled end, issued at `issued` (the host's or the worker's
 * time after the issue calls). */
static double model_d2h(rt_backend *b, size_t bytes, uint32_t phys, double issued) {
  double *engine = engine_of(b, &b->t_d2h);
  /* It runs after all compute enqueued so far (the last writer). */
  double start = max2(max2(*engine, b->t_dev), issued);
  double end = start + b->c.copy_latency_s + (double)bytes / b->c.d2h_bytes_per_s;
  *engine = end;
  if (phys != RT_PHYS_NONE)
    b->phys_busy[phys] = max2(b->phys_busy[phys], end);
  return end;
}

static double mark_time(rt_backend *b, uint64_t m);

static double model_h2d(rt_backend *b, size_t bytes, uint32_t phys, int urgent, uint64_t after_mark,
                        double issued) {
  double *engine = engine_of(b, urgent ? &b->t_fault : &b->t_h2d);
  double start = max2(*engine, issued);
  if (phys != RT_PHYS_NONE)
    start = max2(start, b->phys_busy[phys]);
  if (after_mark) /* the stream waits for the previous holder's last use */
    start = max2(start, mark_time(b, after_mark));
  double end = start + b->c.copy_latency_s + (double)bytes / b->c.h2d_bytes_per_s;
  *engine = end;
  if (phys != RT_PHYS_NONE)
    b->phys_busy[phys] = end;
  return end;
}

static tidal_status sim_copy_d2h(rt_backend *b, void *dst, uintptr_t src, size_t bytes,
                                 uint32_t phys, tidal_stream after, rt_event *done) {
  /* Issue: an event on the writer's stream, a stream wait, the copy and its
   * event. */
  b->t_host += b->c.copy_issue_s + b->c.event_record_s + b->c.stream_wait_s;
  done->vt = model_d2h(b, bytes, phys, b->t_host);
  done->handle = NULL;
  return enqueue(b, dst, (const void *)src, bytes, done);
}

static tidal_status sim_copy_h2d(rt_backend *b, uintptr_t dst, const void *src, size_t bytes,
                                 uint32_t phys, int urgent, uint64_t after_mark, rt_event *done) {
  b->t_host += b->c.copy_issue_s;
  done->vt = model_h2d(b, bytes, phys, urgent, after_mark, b->t_host);
  done->handle = NULL;
  return enqueue(b, (void *)dst, src, bytes, done);
}

/* The device pool (Note [device pool], memory/units.c): one read-write
 * mapping over the reserved range, grown in place; its pages are real only
 * once touched, as the memfd's are. */
static tidal_status sim_pool_grow(rt_backend *b, uintptr_t addr, size_t bytes) {
  void *p = mmap((void *)addr, bytes, PROT_READ | PROT_WRITE,
                 MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    return rt_error(TIDAL_ERR_DEVICE_MEMORY, "sim backend: growing the device pool by %zu bytes: %s",
                    bytes, strerror(errno));
  b->t_host += b->c.map_s + b->c.set_access_s; /* one handle: create, map, grant */
  RT_COUNT_TIME(modelled_vmm_seconds, b->c.map_s + b->c.set_access_s);
  return TIDAL_OK;
}

/* Given back: reserved again (PROT_NONE, its pages gone), so a stray use
 * faults. */
static void sim_pool_shrink(rt_backend *b, uintptr_t addr, size_t bytes) {
  mmap((void *)addr, bytes, PROT_NONE, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1,
       0);
  b->t_host += b->c.unmap_s; /* one handle: unmap, release */
  RT_COUNT_TIME(modelled_vmm_seconds, b->c.unmap_s);
}

static void sim_pool_release(rt_backend *b, uintptr_t addr, size_t reserved, size_t mapped) {
  (void)mapped;
  munmap((void *)addr, reserved);
}

/* On the compute stream: the sim's "kernels" run on the host, so the copy
 * is done now; the device timeline pays its modelled duration. */
static tidal_status sim_copy_d2d(rt_backend *b, uintptr_t dst, uintptr_t src, size_t bytes,
                                 tidal_stream s, tidal_stream after) {
  (void)s, (void)after; /* one compute timeline */
  memmove((void *)dst, (const void *)src, bytes);
  b->t_host += b->c.copy_issue_s;
  double start = max2(max2(b->t_dev + b->c.launch_gap_s, b->t_host), b->dev_wait);
  b->t_dev = start + b->c.copy_latency_s + (double)bytes / b->c.d2d_bytes_per_s;
  return TIDAL_OK;
}

static int copied(rt_backend *b, const rt_event *ev) {
  return ev->seq == 0 || atomic_load(&b->done_seq) >= ev->seq;
}

/* The copy thread has really finished ev (the host may touch its memory).
 * A copy the VMM worker runs has no sequence number here: the device front
 * waits for its command (Note [device front] in vmmq.c). */
static void wait_copied(rt_backend *b, const rt_event *ev) {
  if (copied(b, ev))
    return;
  pthread_mutex_lock(&b->mu);
  while (atomic_load(&b->done_seq) < ev->seq)
    pthread_cond_wait(&b->cv_done, &b->mu);
  pthread_mutex_unlock(&b->mu);
}

/* Done for the host once the host's modelled time has reached it (Note [sim
 * cost model]); the real copy is then awaited, which is quick. */
static int sim_event_done(rt_backend *b, const rt_event *ev) {
  b->t_host += b->c.event_query_s;
  if (ev->vt > b->t_host)
    return 0;
  wait_copied(b, ev);
  return 1;
}

/* why names the wait in the trace ("host_wait" events: where the modelled
 * host time goes). */
static void host_wait_until(rt_backend *b, double t, double *waited_s, const char *why) {
  if (t <= b->t_host)
    return;
  if (waited_s)
    *waited_s += t - b->t_host;
  RT_COUNT_TIME(modelled_host_wait_seconds, t - b->t_host);
  if (RT_TRACING())
    rt_trace("host_wait", "\"why\":\"%s\",\"us\":%.1f", why, (t - b->t_host) * 1e6);
  b->t_host = t + b->c.event_sync_s;
}

static tidal_status sim_event_sync(rt_backend *b, const rt_event *ev, double *waited_s) {
  wait_copied(b, ev);
  host_wait_until(b, ev->vt, waited_s, "event");
  return TIDAL_OK;
}

static tidal_status sim_stream_wait(rt_backend *b, tidal_stream s, const rt_event *ev,
                                    double *stall_s) {
  /* The "kernel" runs on the host right after op_begin: the data must be
   * there for real, not only on the modelled clock. */
  wait_copied(b, ev);
  b->t_host += b->c.stream_wait_s;
  /* The device would idle from when it could start the next op to ev. */
  double could = max2(max2(b->t_dev + b->c.launch_gap_s, b->t_host), b->dev_wait);
  if (ev->vt > could)
    *stall_s += ev->vt - could;
  b->dev_wait = max2(b->dev_wait, ev->vt);
  return TIDAL_OK;
}

static void sim_event_release(rt_backend *b, rt_event *ev) { (void)ev; }

static tidal_status sim_mark(rt_backend *b, tidal_stream s, uint64_t *mark) {
  b->t_host += b->c.event_record_s;
  if (b->nmarks == b->cap_marks) {
    /* Forget marks the host has passed: nothing waits on them any more. */
    size_t done = 0;
    while (done < b->nmarks && b->marks[done] <= b->t_host)
      done++;
    if (done > 0) {
      memmove(b->marks, b->marks + done, (b->nmarks - done) * sizeof *b->marks);
      b->nmarks -= done;
      b->mark_base += done;
    }
    if (b->nmarks == b->cap_marks) {
      size_t cap = b->cap_marks ? b->cap_marks * 2 : 256;
      double *n = realloc(b->marks, cap * sizeof *n);
      if (!n)
        return rt_error(TIDAL_ERR_HOST_MEMORY, "sim backend: out of host memory for marks");
      b->marks = n;
      b->cap_marks = cap;
    }
  }
  b->marks[b->nmarks] = b->t_dev; /* all compute enqueued so far ends then */
  *mark = b->mark_base + b->nmarks++;
  return TIDAL_OK;
}

static double mark_time(rt_backend *b, uint64_t m) {
  return m < b->mark_base ? 0.0 : b->marks[m - b->mark_base];
}

static int sim_mark_done(rt_backend *b, uint64_t m) {
  b->t_host += b->c.event_query_s;
  return mark_time(b, m) <= b->t_host;
}

static tidal_status sim_mark_wait(rt_backend *b, uint64_t m, double *waited_s) {
  host_wait_until(b, mark_time(b, m), waited_s, "mark");
  return TIDAL_OK;
}

static void sim_op_start(rt_backend *b, tidal_stream s, const tidal_site *site) {}

static void sim_op_end(rt_backend *b, tidal_stream s, const tidal_site *site) {
  double est = site && site->est_seconds > 0 ? site->est_seconds : 0.0;
  /* the program's launch, as measured for this site where a profile says */
  const tidal_sim_site *sc = site_costs(b, site);
  double launch = sc && sc->launch_seconds > 0 ? sc->launch_seconds : b->c.launch_s;
  b->t_host += launch;
  double ready = b->t_dev + b->c.launch_gap_s;
  double start = max2(max2(ready, b->t_host), b->dev_wait);
  if (start > ready && b->t_host > b->dev_wait) /* idle for the launch */
    RT_COUNT_TIME(modelled_launch_wait_seconds, start - ready);
  else if (start > ready) /* idle for a copy */
    RT_COUNT_TIME(modelled_copy_wait_seconds, start - ready);
  b->t_dev = start + est;
  b->dev_wait = 0;
  if (b->t_dev - b->t_host > b->c.host_ahead_s) /* the launch queue is full: the host waits */
    b->t_host = b->t_dev - b->c.host_ahead_s;
  /* Note [host-synchronous ops]: a cudaMemcpy to or from the host returns
   * once the device has run it and everything before it.  The gpt sample
   * reads its loss back that way once a step: on the H200 the host sat 2.75
   * ms in it per step at 50%, the device finishing the 2.56 ms classifier
   * launched just before (bench/gpu/h200-2026-11-27/README.md), time the
   * host could not spend on the next ops' remaps. */
  if (sc && (sc->flags & TIDAL_SIM_SITE_HOST_SYNC))
    host_wait_until(b, b->t_dev, NULL, "host-synchronous op");
  if (b->profile)
    rt_profile_add(site, est, launch, rt_base.iterations_done == 0);
}

static void sim_profile_flush(rt_backend *b) {}

static double sim_modelled_now(rt_backend *b) { return max2(b->t_host, b->t_dev); }

/* Note [device sync]: a program that calls cudaDeviceSynchronize once a
 * step (the gpt sample, to time the step; llm.c) waits for everything on
 * the device, tidal's copy streams included (they are non-blocking streams
 * of the same context: the legacy-stream cudaMemcpy of the loss does not
 * wait for them, this call does).  On the H200 the gpt variant at 50% sat
 * 2.3-2.7 ms a step there (the trace's last op to iteration end, steps
 * 4-7: bench/gpu/h200-2026-11-27/README.md), the swap-outs of the updated
 * parameters still draining; the host then starts the next step's remaps
 * that much later.  The host's clock moves to the end of the last op and
 * the last copy issued on any engine. */
static void sim_device_sync(rt_backend *b) {
  double t = max2(max2(b->t_dev, b->t_d2h), max2(b->t_h2d, b->t_fault));
  host_wait_until(b, t, NULL, "device sync");
}

/* tidal_device_synchronize: the program's work is the compute timeline
 * (faults it waited for are on it); tidal's copy engines are not waited for
 * (Note [the program's sync], pass/rewrite/rewrite.c). */
static tidal_status sim_program_sync(rt_backend *b, tidal_stream s) {
  (void)s;
  host_wait_until(b, b->t_dev, NULL, "program sync");
  return TIDAL_OK;
}

/* Time marks cost what the CUDA backend's timing events cost the host
 * (a record; a poll per query), and reading one before the device has
 * reached it is a blocking wait, as cuEventSynchronize is: the host's
 * clock jumps to the mark (Note [time marks], plan_exec.c). */
static tidal_status sim_time_mark(rt_backend *b, tidal_stream s, rt_event *mark) {
  memset(mark, 0, sizeof *mark);
  b->t_host += b->c.event_record_s;
  /* recorded after the op's stream waits, as on CUDA: an op's duration
   * leaves out its stall */
  mark->vt = max2(b->t_dev, b->dev_wait);
  return TIDAL_OK;
}

static int sim_time_ready(rt_backend *b, const rt_event *mark) {
  b->t_host += b->c.event_query_s;
  return mark->vt <= b->t_host;
}

static tidal_status sim_time_elapsed(rt_backend *b, const rt_event *a, const rt_event *e,
                                     double *s) {
  host_wait_until(b, e->vt, NULL, "timing event");
  *s = e->vt - a->vt;
  return TIDAL_OK;
}

static void sim_time_release(rt_backend *b, rt_event *mark) { (void)mark; }

/* ---- the VMM worker's half (Note [vmm worker], Note [sim cost model]) ---- */

static tidal_status sim_cmd_prepare(rt_backend *b, rt_cmd *cmd, rt_event *ev, double *vt) {
  b->t_host += b->c.vmm_enqueue_s;
  double start = max2(b->t_vmm, b->t_host);
  switch ((rt_cmd_kind)cmd->kind) {
  case RT_CMD_MAP:
    b->t_vmm = start + b->map_c;
    ev->vt = b->phys_busy[cmd->phys];
    break;
  case RT_CMD_SET_ACCESS: b->t_vmm = start + set_access_cost(b, cmd->bytes); break;
  case RT_CMD_UNMAP:
    b->t_vmm = max2(start, mark_time(b, cmd->mark)) + b->unmap_c;
    break;
  case RT_CMD_D2H:
    b->t_vmm = start + b->c.copy_issue_s + b->c.event_record_s + b->c.stream_wait_s;
    ev->vt = model_d2h(b, cmd->bytes, cmd->phys, b->t_vmm);
    break;
  case RT_CMD_H2D:
    b->t_vmm = start + b->c.copy_issue_s;
    ev->vt = model_h2d(b, cmd->bytes, cmd->phys, cmd->urgent, cmd->mark, b->t_vmm);
    break;
  }
  *vt = b->t_vmm;
  return TIDAL_OK;
}

/* On the worker thread: the mapping calls and the copies themselves, in
 * queue order (so a copy into a chunk runs after its map). */
static tidal_status sim_cmd_run(rt_backend *b, const rt_cmd *cmd, char *err, size_t n) {
  switch ((rt_cmd_kind)cmd->kind) {
  case RT_CMD_MAP: return do_map(b, cmd->addr, cmd->phys, err, n);
  case RT_CMD_SET_ACCESS: return TIDAL_OK;
  case RT_CMD_UNMAP: return do_unmap(b, cmd->addr, err, n); /* its last use ended: Note [vmm worker] */
  case RT_CMD_D2H:
    if (!b->no_data)
      memcpy(cmd->host, (const void *)cmd->addr, cmd->bytes);
    return TIDAL_OK;
  case RT_CMD_H2D:
    if (!b->no_data)
      memcpy((void *)cmd->addr, cmd->host, cmd->bytes);
    return TIDAL_OK;
  }
  snprintf(err, n, "sim backend: unknown VMM command %d", cmd->kind);
  return TIDAL_ERR_BACKEND;
}

static tidal_status sim_worker_attach(rt_backend *b, char *err, size_t n) { return TIDAL_OK; }

static void sim_worker_waited(rt_backend *b, double vt, double real_s, double *waited_s) {
  (void)real_s; /* the modelled clock only */
  host_wait_until(b, vt, waited_s, "vmm worker");
}

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
    .set_access = sim_set_access,
    .unmap = sim_unmap,
    .park = sim_park,
    .unpark = sim_unpark,
    .host_alloc = sim_host_alloc,
    .host_free = sim_host_free,
    .copy_d2h = sim_copy_d2h,
    .copy_h2d = sim_copy_h2d,
    .pool_grow = sim_pool_grow,
    .pool_shrink = sim_pool_shrink,
    .pool_release = sim_pool_release,
    .copy_d2d = sim_copy_d2d,
    .event_done = sim_event_done,
    .event_sync = sim_event_sync,
    .stream_wait = sim_stream_wait,
    .event_release = sim_event_release,
    .mark = sim_mark,
    .mark_done = sim_mark_done,
    .mark_wait = sim_mark_wait,
    .op_start = sim_op_start,
    .op_end = sim_op_end,
    .profile_flush = sim_profile_flush,
    .modelled_now = sim_modelled_now,
    .device_sync = sim_device_sync,
    .program_sync = sim_program_sync,
    .time_mark = sim_time_mark,
    .time_ready = sim_time_ready,
    .time_elapsed = sim_time_elapsed,
    .time_release = sim_time_release,
    .cmd_prepare = sim_cmd_prepare,
    .cmd_run = sim_cmd_run,
    .worker_attach = sim_worker_attach,
    .worker_waited = sim_worker_waited,
    .park_touches_mapping = 1,
    .events_modelled = 1,
};
