/* backend_cuda.c - the device backend on CUDA driver virtual memory management.
 *
 * Each allocation reserves its own address range (cuMemAddressReserve,
 * rounded up to the allocation granularity); physical chunks come from a
 * pool of cuMemCreate handles created once at tidal_init (pool size = the
 * budget) and are mapped with cuMemMap, given access with one cuMemSetAccess
 * per run of chunks (Note [access batching] in residency.c), and unmapped
 * with cuMemUnmap only when another chunk needs the memory (Note [lazy
 * unmap]: parking is free here).  The host store is cuMemHostAlloc'd
 * (pinned) memory.  Copies run on three dedicated non-blocking streams
 * (device-to-host, host-to-device for prefetches, and a highest-priority
 * host-to-device stream for faults, so that a fault does not queue behind
 * bulk prefetches) and are ordered with compute by events: a swap-out waits
 * for an event recorded on the last writer's stream; an op waits for its
 * prefetch or fault with cuStreamWaitEvent (no host synchronisation on
 * either path).  CUevents come from a free list and are recycled
 * (cuStreamWaitEvent captures an event's state when called, so re-recording
 * it later is safe).
 *
 * Note [driver loading]: the driver is opened with dlopen("libcuda.so.1")
 * at tidal_init instead of linking libcuda: a program linked with libtidal
 * must start (and run the sim backend) on machines without an NVIDIA driver,
 * such as CI; linking the toolkit's stub libcuda.so would make the loader
 * refuse to start it there.  Built with TIDAL_CUDA_DIRECT_LINK the same code
 * calls the driver directly (the tidal_cuda_link_check target does that
 * against lib64/stubs/libcuda.so, so the symbols are checked at link time).
 *
 * Note [unmap ordering]: the driver does not order cuMemUnmap after kernels
 * still using the range.  The core only unmaps memory whose last use is
 * covered by a completed mark (Note [last-use marks] in residency.c): an
 * event recorded on the compute stream, polled with cuEventQuery, so
 * nothing drains the stream.
 *
 * With the VMM worker on (Note [vmm worker] in vmmq.c), cuMemMap,
 * cuMemSetAccess, cuMemUnmap and the copies' issue (cuEventRecord,
 * cuStreamWaitEvent, cuMemcpy*Async) run on the worker thread, which makes
 * the context current first.  Events and physical handles are taken on the
 * training thread when a command is queued (cmd_prepare); the device front
 * makes every event call wait for the command that records the event
 * first (an event never recorded reads as complete: Note [device front]).
 * The worker waits for an unmap's last-use mark with cuEventSynchronize; marks_mu guards the mark list against the
 * training thread retiring that mark's event meanwhile (worker_mark).
 *
 * Note [op profile]: with TIDAL_PROFILE set, each op is bracketed by two
 * timing events (recorded at the end of tidal_op_begin and at
 * tidal_op_end, i.e. around its launch); completed pairs are read with
 * cuEventElapsedTime and summed per site (profile.c).  Without it no
 * timing event is recorded. */
#define _GNU_SOURCE
#include <cuda.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "device/device.h"

#define CU_FUNCS(X)                                                                                \
  X(cuInit) X(cuGetErrorString) X(cuDeviceGetCount) X(cuDeviceGet) X(cuCtxGetCurrent)            \
  X(cuCtxGetDevice) X(cuCtxSetCurrent) X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease)  \
  X(cuMemGetInfo) X(cuMemGetAllocationGranularity) X(cuMemAddressReserve) X(cuMemAddressFree)    \
  X(cuMemCreate) X(cuMemRelease) X(cuMemMap) X(cuMemUnmap) X(cuMemSetAccess) X(cuMemHostAlloc)   \
  X(cuMemFreeHost) X(cuStreamCreate) X(cuStreamDestroy) X(cuStreamWaitEvent)                      \
  X(cuStreamSynchronize) X(cuEventCreate) X(cuEventDestroy) X(cuEventRecord) X(cuEventQuery)     \
  X(cuEventSynchronize) X(cuMemcpyDtoHAsync) X(cuMemcpyHtoDAsync) X(cuStreamCreateWithPriority)  \
  X(cuCtxGetStreamPriorityRange) X(cuEventElapsedTime) X(cuMemcpyDtoDAsync)

#define RT_STR(x) #x
#define RT_XSTR(x) RT_STR(x) /* expands cuda.h's versioned names (cuMemGetInfo_v2) */

#ifdef TIDAL_CUDA_DIRECT_LINK
#define CU(f) f
static int load_driver(char *why, size_t n) { return 1; }
#else
static struct {
#define FIELD(f) __typeof__(&f) f;
  CU_FUNCS(FIELD)
#undef FIELD
} cu;
#define CU(f) cu.f
static void *libcuda;

static int load_driver(char *why, size_t n) {
  if (libcuda)
    return 1;
  void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    snprintf(why, n, "cannot load the NVIDIA driver (libcuda.so.1): %s", dlerror());
    return 0;
  }
#define LOAD(f)                                                                                    \
  *(void **)&cu.f = dlsym(h, RT_XSTR(f));                                                          \
  if (!cu.f) {                                                                                     \
    snprintf(why, n, "the NVIDIA driver lacks %s (driver too old?)", RT_XSTR(f));                  \
    dlclose(h);                                                                                    \
    return 0;                                                                                      \
  }
  CU_FUNCS(LOAD)
#undef LOAD
  libcuda = h;
  return 1;
}
#endif

struct rt_backend {
  CUdevice dev;
  CUcontext ctx;
  int retained_primary;     /* we retained the primary context: release it */
  CUmemAllocationProp prop;
  CUmemAccessDesc access;
  size_t granularity;
  size_t chunk_bytes;
  uint32_t nphys;                     /* entries of phys */
  CUmemGenericAllocationHandle *phys; /* the pool; 0 = that chunk does not exist now */
  CUstream d2h, h2d, fault;
  CUevent *free_events;     /* recycled CUevents */
  size_t nfree_events, cap_free_events;
  /* Note [last-use marks]: marks not yet known done, oldest first; mark m
   * is marks[m - mark_base]; every mark below done_upto has completed. */
  CUevent *marks;
  uint64_t mark_base, nmarks, done_upto;
  size_t cap_marks;
  /* Note [vmm worker]: guards the mark list's changes (training thread)
   * against the worker's reads; worker_mark: the mark the worker waits for
   * (not retired while it waits), 0 = none. */
  pthread_mutex_t marks_mu;
  uint64_t worker_mark;
  int marks_mu_init;
  /* Note [op profile] */
  int profile;
  struct cuda_timed {
    const tidal_site *site;
    CUevent start, end;
    double host_t0, launch_s; /* host clock at op_start; op_start .. op_end on the host */
    int cold;                 /* before the first iteration's end (Note [cold samples]) */
  } *open_ops, *timed;      /* ops begun but not ended (a stack); ended, not yet read */
  size_t nopen, cap_open, ntimed, cap_timed;
  /* The device pool of relocatable units (Note [device pool],
   * memory/devpool.c): one handle per growth step, mapped where it grew. */
  struct cuda_pool_piece {
    uintptr_t addr;
    size_t bytes;
    CUmemGenericAllocationHandle h;
  } *pool;
  size_t npool, cap_pool;
};

static tidal_status cu_fail(CUresult r, const char *what) {
  const char *s = NULL;
  if (CU(cuGetErrorString)(r, &s) != CUDA_SUCCESS || !s)
    s = "unknown error";
  return rt_error(TIDAL_ERR_BACKEND, "cuda backend: %s: %s (CUresult %d)", what, s, (int)r);
}

#define CHECK(call, what)                                                                          \
  do {                                                                                             \
    CUresult r_ = (call);                                                                          \
    if (r_ != CUDA_SUCCESS)                                                                        \
      return cu_fail(r_, what);                                                                    \
  } while (0)

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void cuda_destroy(rt_backend *b);

static tidal_status cuda_create(const tidal_config *cfg, rt_backend **out, size_t *granularity,
                                size_t *device_free) {
  char why[256];
  if (!load_driver(why, sizeof why))
    return rt_error(TIDAL_ERR_BACKEND, "tidal_init: cuda backend: %s", why);
  CHECK(CU(cuInit)(0), "cuInit");
  int count = 0;
  CHECK(CU(cuDeviceGetCount)(&count), "cuDeviceGetCount");
  if (count == 0)
    return rt_error(TIDAL_ERR_BACKEND, "tidal_init: cuda backend: no CUDA device");
  rt_backend *b = calloc(1, sizeof *b);
  if (!b)
    return rt_error(TIDAL_ERR_HOST_MEMORY, "tidal_init: out of host memory");
  tidal_status st;
  CUresult r;
  /* Use the program's current context if it has one (cudart's primary
   * context once it made any runtime call), else device 0's primary. */
  if ((r = CU(cuCtxGetCurrent)(&b->ctx)) != CUDA_SUCCESS) {
    st = cu_fail(r, "cuCtxGetCurrent");
    goto fail;
  }
  /* A context can be current yet destroyed: a primary context this backend
   * (or the program) released leaves its handle current on the thread.
   * Seen on an H200 when tidal_init followed tidal_shutdown: every later
   * call failed with CUDA_ERROR_CONTEXT_IS_DESTROYED.  Treat it as none. */
  if (b->ctx && (r = CU(cuCtxGetDevice)(&b->dev)) != CUDA_SUCCESS) {
    if (r != CUDA_ERROR_CONTEXT_IS_DESTROYED) {
      st = cu_fail(r, "cuCtxGetDevice");
      goto fail;
    }
    b->ctx = NULL;
  }
  if (!b->ctx) {
    if ((r = CU(cuDeviceGet)(&b->dev, 0)) != CUDA_SUCCESS ||
        (r = CU(cuDevicePrimaryCtxRetain)(&b->ctx, b->dev)) != CUDA_SUCCESS) {
      st = cu_fail(r, "retaining device 0's primary context");
      goto fail;
    }
    b->retained_primary = 1;
    if ((r = CU(cuCtxSetCurrent)(b->ctx)) != CUDA_SUCCESS) {
      st = cu_fail(r, "cuCtxSetCurrent");
      goto fail;
    }
  }
  b->prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  b->prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  b->prop.location.id = (int)b->dev;
  b->access.location = b->prop.location;
  b->access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  if ((r = CU(cuMemGetAllocationGranularity)(&b->granularity, &b->prop,
                                             CU_MEM_ALLOC_GRANULARITY_MINIMUM)) != CUDA_SUCCESS) {
    st = cu_fail(r, "cuMemGetAllocationGranularity (virtual memory management unsupported?)");
    goto fail;
  }
  size_t free_b = 0, total_b = 0;
  if ((r = CU(cuMemGetInfo)(&free_b, &total_b)) != CUDA_SUCCESS) {
    st = cu_fail(r, "cuMemGetInfo");
    goto fail;
  }
  int least = 0, greatest = 0; /* numerically lower = higher priority */
  if ((r = CU(cuCtxGetStreamPriorityRange)(&least, &greatest)) != CUDA_SUCCESS ||
      (r = CU(cuStreamCreate)(&b->d2h, CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS ||
      (r = CU(cuStreamCreate)(&b->h2d, CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS ||
      (r = CU(cuStreamCreateWithPriority)(&b->fault, CU_STREAM_NON_BLOCKING, greatest)) !=
          CUDA_SUCCESS) {
    st = cu_fail(r, "creating the copy streams");
    goto fail;
  }
  b->mark_base = b->done_upto = 1;
  b->profile = cfg->profile_path != NULL;
  pthread_mutex_init(&b->marks_mu, NULL);
  b->marks_mu_init = 1;
  *out = b;
  *granularity = b->granularity;
  *device_free = free_b;
  return TIDAL_OK;
fail:
  cuda_destroy(b);
  return st;
}

static tidal_status cuda_pool_create(rt_backend *b, size_t chunk_bytes, uint32_t n) {
  b->chunk_bytes = chunk_bytes;
  b->phys = calloc(n ? n : 1, sizeof *b->phys);
  if (!b->phys)
    return rt_error(TIDAL_ERR_HOST_MEMORY, "tidal_init: out of host memory");
  for (uint32_t i = 0; i < n; i++) {
    CUresult r = CU(cuMemCreate)(&b->phys[i], chunk_bytes, &b->prop, 0);
    if (r != CUDA_SUCCESS) {
      cu_fail(r, "cuMemCreate");
      return rt_error(TIDAL_ERR_DEVICE_MEMORY,
                      "tidal_init: cuda backend: created %u of %u physical chunks of %zu bytes: %s",
                      i, n, chunk_bytes, tidal_last_error());
    }
    b->nphys = i + 1;
  }
  return TIDAL_OK;
}

/* The budget grew: physical chunk `phys` is created (cuMemCreate). */
static tidal_status cuda_phys_add(rt_backend *b, uint32_t phys) {
  if (phys >= b->nphys) {
    uint32_t n = b->nphys ? b->nphys : 1;
    while (n <= phys)
      n = n > UINT32_MAX / 2 ? UINT32_MAX : n * 2;
    CUmemGenericAllocationHandle *h = realloc(b->phys, (size_t)n * sizeof *h);
    if (!h)
      return rt_error(TIDAL_ERR_HOST_MEMORY, "cuda backend: out of host memory");
    memset(h + b->nphys, 0, (size_t)(n - b->nphys) * sizeof *h);
    b->phys = h;
    b->nphys = n;
  }
  CUresult r = CU(cuMemCreate)(&b->phys[phys], b->chunk_bytes, &b->prop, 0);
  if (r != CUDA_SUCCESS) {
    b->phys[phys] = 0;
    cu_fail(r, "cuMemCreate");
    return rt_error(TIDAL_ERR_DEVICE_MEMORY, "cuda backend: growing the pool: %s",
                    tidal_last_error());
  }
  return TIDAL_OK;
}

/* The budget shrank: physical chunk `phys` (unmapped) goes back to the device. */
static void cuda_phys_remove(rt_backend *b, uint32_t phys) {
  CU(cuMemRelease)(b->phys[phys]);
  b->phys[phys] = 0;
}

static void cuda_destroy(rt_backend *b) {
  if (!b)
    return;
  /* Teardown tolerates a driver already shutting down: results ignored. */
  if (b->d2h)
    CU(cuStreamSynchronize)(b->d2h);
  if (b->h2d)
    CU(cuStreamSynchronize)(b->h2d);
  if (b->fault)
    CU(cuStreamSynchronize)(b->fault);
  for (uint32_t i = 0; i < b->nphys; i++)
    if (b->phys[i])
      CU(cuMemRelease)(b->phys[i]);
  for (size_t i = 0; i < b->nfree_events; i++)
    CU(cuEventDestroy)(b->free_events[i]);
  for (uint64_t i = 0; i < b->nmarks; i++)
    CU(cuEventDestroy)(b->marks[i]);
  for (size_t i = 0; i < b->nopen; i++) {
    CU(cuEventDestroy)(b->open_ops[i].start);
  }
  for (size_t i = 0; i < b->ntimed; i++) {
    CU(cuEventDestroy)(b->timed[i].start);
    CU(cuEventDestroy)(b->timed[i].end);
  }
  if (b->d2h)
    CU(cuStreamDestroy)(b->d2h);
  if (b->h2d)
    CU(cuStreamDestroy)(b->h2d);
  if (b->fault)
    CU(cuStreamDestroy)(b->fault);
  if (b->retained_primary) {
    /* Unset it first: releasing the last reference destroys the primary
     * context, and a destroyed context left current breaks the next
     * tidal_init on this thread. */
    CUcontext cur = NULL;
    if (CU(cuCtxGetCurrent)(&cur) == CUDA_SUCCESS && cur == b->ctx)
      CU(cuCtxSetCurrent)(NULL);
    CU(cuDevicePrimaryCtxRelease)(b->dev);
  }
  if (b->marks_mu_init)
    pthread_mutex_destroy(&b->marks_mu);
  free(b->free_events);
  free(b->marks);
  free(b->open_ops);
  free(b->timed);
  free(b->phys);
  free(b->pool);
  free(b);
}

static tidal_status cuda_reserve(rt_backend *b, size_t bytes, uintptr_t *addr) {
  CUdeviceptr p = 0;
  CUresult r = CU(cuMemAddressReserve)(&p, bytes, b->granularity, 0, 0);
  if (r != CUDA_SUCCESS)
    return cu_fail(r, "cuMemAddressReserve");
  *addr = (uintptr_t)p;
  return TIDAL_OK;
}

static void cuda_release(rt_backend *b, uintptr_t addr, size_t bytes) {
  CU(cuMemAddressFree)((CUdeviceptr)addr, bytes);
}

/* Note [measured host time]: the counters the sim models
 * (modelled_vmm_seconds, modelled_host_wait_seconds) are measured here on
 * the host's clock, so that one card run's TIDAL_STATS says where its host
 * time went (issue 19: the H200's summary printed 0 for both while the
 * host spent ~55 ms a step between launches).  The training thread's VMM
 * calls only (the VMM worker's are its own thread's), and its blocking
 * waits for copies, marks and the worker.  Two clock reads a call: ~50 ns
 * against 1-75 us. */
static tidal_status cuda_map(rt_backend *b, uintptr_t addr, uint32_t phys, rt_event *ready) {
  memset(ready, 0, sizeof *ready); /* cuMemMap is synchronous: usable once access is set */
  double t0 = now_s();
  CUresult r = CU(cuMemMap)((CUdeviceptr)addr, b->chunk_bytes, 0, b->phys[phys], 0);
  RT_COUNT_TIME(modelled_vmm_seconds, now_s() - t0);
  CHECK(r, "cuMemMap");
  return TIDAL_OK;
}

static tidal_status cuda_set_access(rt_backend *b, uintptr_t addr, size_t bytes) {
  double t0 = now_s();
  CUresult r = CU(cuMemSetAccess)((CUdeviceptr)addr, bytes, &b->access, 1);
  RT_COUNT_TIME(modelled_vmm_seconds, now_s() - t0);
  CHECK(r, "cuMemSetAccess");
  return TIDAL_OK;
}

static tidal_status cuda_unmap(rt_backend *b, uintptr_t addr, uint32_t phys) {
  /* Note [unmap ordering]: the caller waited for the chunk's last use. */
  double t0 = now_s();
  CUresult r = CU(cuMemUnmap)((CUdeviceptr)addr, b->chunk_bytes);
  RT_COUNT_TIME(modelled_vmm_seconds, now_s() - t0);
  CHECK(r, "cuMemUnmap");
  return TIDAL_OK;
}

static tidal_status event_get(rt_backend *b, CUevent *ev);
static void cuda_event_release(rt_backend *b, rt_event *ev);

/* The device pool grows by one handle of `bytes` (a multiple of the
 * granularity: the pool's steps are), mapped and granted at addr. */
static tidal_status cuda_pool_grow(rt_backend *b, uintptr_t addr, size_t bytes) {
  if (b->npool == b->cap_pool) {
    size_t cap = b->cap_pool ? b->cap_pool * 2 : 16;
    struct cuda_pool_piece *n = realloc(b->pool, cap * sizeof *n);
    if (!n)
      return rt_error(TIDAL_ERR_HOST_MEMORY, "cuda backend: out of host memory for the pool");
    b->pool = n;
    b->cap_pool = cap;
  }
  double t0 = now_s();
  CUmemGenericAllocationHandle h = 0;
  CUresult r = CU(cuMemCreate)(&h, bytes, &b->prop, 0);
  if (r == CUDA_SUCCESS) {
    r = CU(cuMemMap)((CUdeviceptr)addr, bytes, 0, h, 0);
    if (r == CUDA_SUCCESS) {
      r = CU(cuMemSetAccess)((CUdeviceptr)addr, bytes, &b->access, 1);
      if (r != CUDA_SUCCESS)
        CU(cuMemUnmap)((CUdeviceptr)addr, bytes);
    }
    if (r != CUDA_SUCCESS)
      CU(cuMemRelease)(h);
  }
  RT_COUNT_TIME(modelled_vmm_seconds, now_s() - t0);
  if (r != CUDA_SUCCESS)
    return cu_fail(r, "growing the device pool (cuMemCreate, cuMemMap, cuMemSetAccess)");
  b->pool[b->npool].addr = addr;
  b->pool[b->npool].bytes = bytes;
  b->pool[b->npool].h = h;
  b->npool++;
  return TIDAL_OK;
}

/* The pieces grown at or above addr go, newest first: unmapped and released
 * (the caller waited for their last use). */
static void cuda_pool_shrink(rt_backend *b, uintptr_t addr, size_t bytes) {
  (void)bytes;
  double t0 = now_s();
  while (b->npool && b->pool[b->npool - 1].addr >= addr) {
    struct cuda_pool_piece *p = &b->pool[b->npool - 1];
    CU(cuMemUnmap)((CUdeviceptr)p->addr, p->bytes);
    CU(cuMemRelease)(p->h);
    b->npool--;
  }
  RT_COUNT_TIME(modelled_vmm_seconds, now_s() - t0);
}

static void cuda_pool_release(rt_backend *b, uintptr_t addr, size_t reserved, size_t mapped) {
  (void)mapped;
  for (size_t i = 0; i < b->npool; i++) {
    CU(cuMemUnmap)((CUdeviceptr)b->pool[i].addr, b->pool[i].bytes);
    CU(cuMemRelease)(b->pool[i].h);
  }
  b->npool = 0;
  CU(cuMemAddressFree)((CUdeviceptr)addr, reserved);
}

/* A gather's or compaction's move, on the op's stream: ordered after the
 * ops that used the source and before those that use the destination. */
static tidal_status cuda_copy_d2d(rt_backend *b, uintptr_t dst, uintptr_t src, size_t bytes,
                                  tidal_stream s, tidal_stream after) {
  if (after != s) { /* the source's last writer ran on another stream */
    CUevent ev;
    tidal_status st = event_get(b, &ev);
    if (st != TIDAL_OK)
      return st;
    CUresult r = CU(cuEventRecord)(ev, (CUstream)after);
    if (r == CUDA_SUCCESS)
      r = CU(cuStreamWaitEvent)((CUstream)s, ev, 0);
    rt_event done = {0, 0, ev, 0};
    cuda_event_release(b, &done); /* reused only after the wait is enqueued: stream order */
    CHECK(r, "ordering a device-to-device copy after its source's writer");
  }
  CHECK(CU(cuMemcpyDtoDAsync)((CUdeviceptr)dst, (CUdeviceptr)src, bytes, (CUstream)s),
        "cuMemcpyDtoDAsync");
  return TIDAL_OK;
}

/* Note [lazy unmap]: an evicted chunk keeps its memory mapped; nothing to do. */
static tidal_status cuda_park(rt_backend *b, uintptr_t addr, uint32_t phys) { return TIDAL_OK; }
static tidal_status cuda_unpark(rt_backend *b, uintptr_t addr, uint32_t phys) { return TIDAL_OK; }

static tidal_status cuda_host_alloc(rt_backend *b, size_t bytes, void **p) {
  CHECK(CU(cuMemHostAlloc)(p, bytes, CU_MEMHOSTALLOC_PORTABLE), "cuMemHostAlloc");
  return TIDAL_OK;
}

static void cuda_host_free(rt_backend *b, void *p, size_t bytes) { CU(cuMemFreeHost)(p); }

static tidal_status event_get(rt_backend *b, CUevent *ev) {
  if (b->nfree_events) {
    *ev = b->free_events[--b->nfree_events];
    return TIDAL_OK;
  }
  CHECK(CU(cuEventCreate)(ev, CU_EVENT_DISABLE_TIMING), "cuEventCreate");
  return TIDAL_OK;
}

static void cuda_event_release(rt_backend *b, rt_event *ev) {
  if (!ev->handle)
    return;
  if (b->nfree_events == b->cap_free_events) {
    size_t cap = b->cap_free_events ? b->cap_free_events * 2 : 64;
    CUevent *n = realloc(b->free_events, cap * sizeof *n);
    if (!n) {
      CU(cuEventDestroy)((CUevent)ev->handle);
      ev->handle = NULL;
      return;
    }
    b->free_events = n;
    b->cap_free_events = cap;
  }
  b->free_events[b->nfree_events++] = (CUevent)ev->handle;
  ev->handle = NULL;
}

static tidal_status cuda_copy_d2h(rt_backend *b, void *dst, uintptr_t src, size_t bytes,
                                  uint32_t phys, tidal_stream after, rt_event *done) {
  CUevent ev;
  tidal_status st = event_get(b, &ev);
  if (st != TIDAL_OK)
    return st;
  memset(done, 0, sizeof *done);
  done->handle = ev;
  /* After the last writer: everything enqueued so far on its stream. */
  CUresult r = CU(cuEventRecord)(ev, (CUstream)after);
  if (r == CUDA_SUCCESS)
    r = CU(cuStreamWaitEvent)(b->d2h, ev, 0);
  if (r == CUDA_SUCCESS)
    r = CU(cuMemcpyDtoHAsync)(dst, (CUdeviceptr)src, bytes, b->d2h);
  if (r == CUDA_SUCCESS)
    r = CU(cuEventRecord)(ev, b->d2h);
  if (r != CUDA_SUCCESS) {
    cuda_event_release(b, done);
    return cu_fail(r, "swap-out copy");
  }
  return TIDAL_OK;
}

/* Work on s after this waits for mark m (Note [stale aliases]): a stream
 * wait, not a host one.  Under marks_mu, so that marks_poll on the training
 * thread cannot recycle the mark's event meanwhile (the VMM worker calls
 * this too). */
static CUresult stream_after_mark(rt_backend *b, CUstream s, uint64_t m) {
  CUresult r = CUDA_SUCCESS;
  if (!m)
    return r;
  pthread_mutex_lock(&b->marks_mu);
  if (m >= b->done_upto && m - b->mark_base < b->nmarks)
    r = CU(cuStreamWaitEvent)(s, b->marks[m - b->mark_base], 0);
  pthread_mutex_unlock(&b->marks_mu);
  return r;
}

static tidal_status cuda_copy_h2d(rt_backend *b, uintptr_t dst, const void *src, size_t bytes,
                                  uint32_t phys, int urgent, uint64_t after_mark, rt_event *done) {
  CUstream s = urgent ? b->fault : b->h2d;
  CUevent ev;
  tidal_status st = event_get(b, &ev);
  if (st != TIDAL_OK)
    return st;
  memset(done, 0, sizeof *done);
  done->handle = ev;
  CUresult r = stream_after_mark(b, s, after_mark);
  if (r == CUDA_SUCCESS)
    r = CU(cuMemcpyHtoDAsync)((CUdeviceptr)dst, src, bytes, s);
  if (r == CUDA_SUCCESS)
    r = CU(cuEventRecord)(ev, s);
  if (r != CUDA_SUCCESS) {
    cuda_event_release(b, done);
    return cu_fail(r, "restore copy");
  }
  return TIDAL_OK;
}

static int cuda_event_done(rt_backend *b, const rt_event *ev) {
  return !ev->handle || CU(cuEventQuery)((CUevent)ev->handle) == CUDA_SUCCESS;
}

static tidal_status cuda_event_sync(rt_backend *b, const rt_event *ev, double *waited_s) {
  if (!ev->handle)
    return TIDAL_OK;
  double t0 = now_s();
  CUresult r = CU(cuEventSynchronize)((CUevent)ev->handle);
  RT_COUNT_TIME(modelled_host_wait_seconds, now_s() - t0); /* Note [measured host time] */
  CHECK(r, "cuEventSynchronize");
  if (waited_s)
    *waited_s += now_s() - t0;
  return TIDAL_OK;
}

/* tidal_device_synchronize (Note [the program's sync], pass/rewrite/rewrite.c):
 * the legacy default stream waits for every blocking stream, the calling
 * thread's per-thread default stream for a program built with
 * --default-stream per-thread, and s for the ops' stream; tidal's copy
 * streams are non-blocking, so none of these waits for them.  Not host
 * time the runtime spent: the program's own wait. */
static tidal_status cuda_program_sync(rt_backend *b, tidal_stream s) {
  (void)b;
  CHECK(CU(cuStreamSynchronize)(CU_STREAM_LEGACY), "cuStreamSynchronize (legacy default stream)");
  CHECK(CU(cuStreamSynchronize)(CU_STREAM_PER_THREAD),
        "cuStreamSynchronize (per-thread default stream)");
  if (s && (CUstream)s != CU_STREAM_LEGACY && (CUstream)s != CU_STREAM_PER_THREAD)
    CHECK(CU(cuStreamSynchronize)((CUstream)s), "cuStreamSynchronize (the ops' stream)");
  return TIDAL_OK;
}

static tidal_status cuda_stream_wait(rt_backend *b, tidal_stream s, const rt_event *ev,
                                     double *stall_s) {
  if (!ev->handle)
    return TIDAL_OK;
  CHECK(CU(cuStreamWaitEvent)((CUstream)s, (CUevent)ev->handle, 0), "cuStreamWaitEvent");
  return TIDAL_OK;
}

/* ---- marks (Note [last-use marks]) ---- */

/* Retires marks from the oldest while they are done (they complete in
 * order: all are recorded on the one compute stream). */
static void marks_poll(rt_backend *b) {
  size_t done = 0;
  pthread_mutex_lock(&b->marks_mu);
  while (done < b->nmarks && (!b->worker_mark || b->mark_base + done < b->worker_mark) &&
         CU(cuEventQuery)(b->marks[done]) == CUDA_SUCCESS)
    done++;
  if (!done) {
    pthread_mutex_unlock(&b->marks_mu);
    return;
  }
  for (size_t i = 0; i < done; i++) {
    rt_event e = {0, 0, b->marks[i], 0};
    cuda_event_release(b, &e);
  }
  memmove(b->marks, b->marks + done, (b->nmarks - done) * sizeof *b->marks);
  b->nmarks -= done;
  b->mark_base += done;
  b->done_upto = b->mark_base;
  pthread_mutex_unlock(&b->marks_mu);
}

static tidal_status cuda_mark(rt_backend *b, tidal_stream s, uint64_t *mark) {
  marks_poll(b); /* keeps the list short: usually one query */
  if (b->nmarks == b->cap_marks) {
    size_t cap = b->cap_marks ? b->cap_marks * 2 : 64;
    pthread_mutex_lock(&b->marks_mu);
    CUevent *n = realloc(b->marks, cap * sizeof *n);
    if (n) {
      b->marks = n;
      b->cap_marks = cap;
    }
    pthread_mutex_unlock(&b->marks_mu);
    if (!n)
      return rt_error(TIDAL_ERR_HOST_MEMORY, "cuda backend: out of host memory for marks");
  }
  CUevent ev;
  tidal_status st = event_get(b, &ev);
  if (st != TIDAL_OK)
    return st;
  CUresult r = CU(cuEventRecord)(ev, (CUstream)s);
  if (r != CUDA_SUCCESS) {
    rt_event e = {0, 0, ev, 0};
    cuda_event_release(b, &e);
    return cu_fail(r, "cuEventRecord (last-use mark)");
  }
  pthread_mutex_lock(&b->marks_mu);
  b->marks[b->nmarks] = ev;
  *mark = b->mark_base + b->nmarks++;
  pthread_mutex_unlock(&b->marks_mu);
  return TIDAL_OK;
}

static int cuda_mark_done(rt_backend *b, uint64_t m) {
  if (m < b->done_upto)
    return 1;
  marks_poll(b);
  return m < b->done_upto;
}

static tidal_status cuda_mark_wait(rt_backend *b, uint64_t m, double *waited_s) {
  if (m < b->done_upto)
    return TIDAL_OK;
  double t0 = now_s();
  CUresult r = CU(cuEventSynchronize)(b->marks[m - b->mark_base]);
  RT_COUNT_TIME(modelled_host_wait_seconds, now_s() - t0); /* Note [measured host time] */
  CHECK(r, "cuEventSynchronize (last-use mark)");
  if (waited_s)
    *waited_s += now_s() - t0;
  marks_poll(b);
  return TIDAL_OK;
}

/* ---- op profile (Note [op profile]) ---- */

static int timed_push(struct cuda_timed **arr, size_t *n, size_t *cap, struct cuda_timed t) {
  if (*n == *cap) {
    size_t c = *cap ? *cap * 2 : 64;
    struct cuda_timed *p = realloc(*arr, c * sizeof *p);
    if (!p)
      return 0;
    *arr = p;
    *cap = c;
  }
  (*arr)[(*n)++] = t;
  return 1;
}

/* Reads finished pairs (all of them, waiting, when wait is set). */
static void timed_harvest(rt_backend *b, int wait) {
  size_t keep = 0;
  for (size_t i = 0; i < b->ntimed; i++) {
    struct cuda_timed *t = &b->timed[i];
    if (wait)
      CU(cuEventSynchronize)(t->end);
    float ms = 0;
    CUresult r = CU(cuEventElapsedTime)(&ms, t->start, t->end);
    if (r == CUDA_ERROR_NOT_READY) {
      b->timed[keep++] = *t;
      continue;
    }
    if (r == CUDA_SUCCESS)
      rt_profile_add(t->site, (double)ms * 1e-3, t->launch_s, t->cold);
    CU(cuEventDestroy)(t->start);
    CU(cuEventDestroy)(t->end);
  }
  b->ntimed = keep;
}

static void cuda_op_start(rt_backend *b, tidal_stream s, const tidal_site *site) {
  if (!b->profile)
    return;
  struct cuda_timed t = {site, NULL, NULL, 0, 0, rt_base.iterations_done == 0};
  if (CU(cuEventCreate)(&t.start, CU_EVENT_DEFAULT) != CUDA_SUCCESS)
    return;
  CU(cuEventRecord)(t.start, (CUstream)s);
  t.host_t0 = now_s(); /* the program's launch starts when op_begin returns */
  if (!timed_push(&b->open_ops, &b->nopen, &b->cap_open, t))
    CU(cuEventDestroy)(t.start);
}

static void cuda_op_end(rt_backend *b, tidal_stream s, const tidal_site *site) {
  if (!b->profile || !b->nopen)
    return;
  struct cuda_timed t = b->open_ops[--b->nopen]; /* ops nest */
  t.launch_s = now_s() - t.host_t0;
  if (t.site != site || CU(cuEventCreate)(&t.end, CU_EVENT_DEFAULT) != CUDA_SUCCESS) {
    CU(cuEventDestroy)(t.start);
    return;
  }
  CU(cuEventRecord)(t.end, (CUstream)s);
  if (!timed_push(&b->timed, &b->ntimed, &b->cap_timed, t)) {
    CU(cuEventDestroy)(t.start);
    CU(cuEventDestroy)(t.end);
  }
  if (b->ntimed >= 256)
    timed_harvest(b, 0);
}

static void cuda_profile_flush(rt_backend *b) { timed_harvest(b, 1); }

static double cuda_modelled_now(rt_backend *b) { return 0.0; }

/* Timing marks: events created with timing enabled (the copy events are
 * not), one per mark, destroyed when released; the planner times only the
 * iterations it learns from and a sample of the others, and reads them
 * once cuEventQuery says they are done (Note [time marks], plan_exec.c). */
static tidal_status cuda_time_mark(rt_backend *b, tidal_stream s, rt_event *mark) {
  memset(mark, 0, sizeof *mark);
  CUevent ev;
  CHECK(CU(cuEventCreate)(&ev, CU_EVENT_DEFAULT), "cuEventCreate (timing)");
  CUresult r = CU(cuEventRecord)(ev, (CUstream)s);
  if (r != CUDA_SUCCESS) {
    CU(cuEventDestroy)(ev);
    return cu_fail(r, "cuEventRecord (timing)");
  }
  mark->handle = ev;
  return TIDAL_OK;
}

static int cuda_time_ready(rt_backend *b, const rt_event *mark) {
  return !mark->handle || CU(cuEventQuery)((CUevent)mark->handle) != CUDA_ERROR_NOT_READY;
}

static tidal_status cuda_time_elapsed(rt_backend *b, const rt_event *a, const rt_event *e,
                                      double *s) {
  float ms = 0;
  if (!a->handle || !e->handle)
    return TIDAL_ERR_BACKEND;
  CHECK(CU(cuEventSynchronize)((CUevent)e->handle), "cuEventSynchronize (timing)");
  CHECK(CU(cuEventElapsedTime)(&ms, (CUevent)a->handle, (CUevent)e->handle),
        "cuEventElapsedTime");
  *s = (double)ms * 1e-3;
  return TIDAL_OK;
}

static void cuda_time_release(rt_backend *b, rt_event *mark) {
  if (mark->handle)
    CU(cuEventDestroy)((CUevent)mark->handle);
  mark->handle = NULL;
}

/* ---- the VMM worker's half (Note [vmm worker]) ---- */

/* Training thread: what the worker will need that the training thread may
 * change later (the physical handle: b->phys can be reallocated), and the
 * copy's event. */
static tidal_status cuda_cmd_prepare(rt_backend *b, rt_cmd *cmd, rt_event *ev, double *vt) {
  *vt = 0;
  if (cmd->kind == RT_CMD_MAP) {
    cmd->handle = (void *)(uintptr_t)b->phys[cmd->phys];
  } else if (cmd->kind == RT_CMD_D2H || cmd->kind == RT_CMD_H2D) {
    CUevent e;
    tidal_status st = event_get(b, &e);
    if (st != TIDAL_OK)
      return st;
    cmd->handle = e;
    ev->handle = e;
  }
  return TIDAL_OK;
}

static tidal_status worker_fail(CUresult r, const char *what, char *err, size_t n) {
  const char *s = NULL;
  if (CU(cuGetErrorString)(r, &s) != CUDA_SUCCESS || !s)
    s = "unknown error";
  snprintf(err, n, "cuda backend: %s: %s (CUresult %d)", what, s, (int)r);
  return TIDAL_ERR_BACKEND;
}

/* Worker: waits for mark m (Note [last-use marks]).  While it waits, the
 * training thread's marks_poll keeps the mark's event (worker_mark). */
static CUresult worker_mark_wait(rt_backend *b, uint64_t m) {
  pthread_mutex_lock(&b->marks_mu);
  if (m < b->done_upto) {
    pthread_mutex_unlock(&b->marks_mu);
    return CUDA_SUCCESS;
  }
  CUevent ev = b->marks[m - b->mark_base];
  b->worker_mark = m;
  pthread_mutex_unlock(&b->marks_mu);
  CUresult r = CU(cuEventSynchronize)(ev);
  pthread_mutex_lock(&b->marks_mu);
  b->worker_mark = 0;
  pthread_mutex_unlock(&b->marks_mu);
  return r;
}

static tidal_status cuda_cmd_run(rt_backend *b, const rt_cmd *c, char *err, size_t n) {
  CUresult r = CUDA_SUCCESS;
  CUevent ev = (CUevent)c->handle;
  switch ((rt_cmd_kind)c->kind) {
  case RT_CMD_MAP:
    r = CU(cuMemMap)((CUdeviceptr)c->addr, b->chunk_bytes, 0,
                     (CUmemGenericAllocationHandle)(uintptr_t)c->handle, 0);
    return r == CUDA_SUCCESS ? TIDAL_OK : worker_fail(r, "cuMemMap", err, n);
  case RT_CMD_SET_ACCESS:
    r = CU(cuMemSetAccess)((CUdeviceptr)c->addr, c->bytes, &b->access, 1);
    return r == CUDA_SUCCESS ? TIDAL_OK : worker_fail(r, "cuMemSetAccess", err, n);
  case RT_CMD_UNMAP:
    /* Note [unmap ordering]: the chunk's last use first. */
    if (c->mark && (r = worker_mark_wait(b, c->mark)) != CUDA_SUCCESS)
      return worker_fail(r, "cuEventSynchronize (last-use mark)", err, n);
    r = CU(cuMemUnmap)((CUdeviceptr)c->addr, b->chunk_bytes);
    return r == CUDA_SUCCESS ? TIDAL_OK : worker_fail(r, "cuMemUnmap", err, n);
  case RT_CMD_D2H:
    /* After the last writer: everything enqueued on its stream by now. */
    r = CU(cuEventRecord)(ev, (CUstream)c->stream);
    if (r == CUDA_SUCCESS)
      r = CU(cuStreamWaitEvent)(b->d2h, ev, 0);
    if (r == CUDA_SUCCESS)
      r = CU(cuMemcpyDtoHAsync)(c->host, (CUdeviceptr)c->addr, c->bytes, b->d2h);
    if (r == CUDA_SUCCESS)
      r = CU(cuEventRecord)(ev, b->d2h);
    return r == CUDA_SUCCESS ? TIDAL_OK : worker_fail(r, "swap-out copy", err, n);
  case RT_CMD_H2D: {
    CUstream s = c->urgent ? b->fault : b->h2d;
    r = stream_after_mark(b, s, c->mark);
    if (r == CUDA_SUCCESS)
      r = CU(cuMemcpyHtoDAsync)((CUdeviceptr)c->addr, c->host, c->bytes, s);
    if (r == CUDA_SUCCESS)
      r = CU(cuEventRecord)(ev, s);
    return r == CUDA_SUCCESS ? TIDAL_OK : worker_fail(r, "restore copy", err, n);
  }
  }
  snprintf(err, n, "cuda backend: unknown VMM command %d", c->kind);
  return TIDAL_ERR_BACKEND;
}

static tidal_status cuda_worker_attach(rt_backend *b, char *err, size_t n) {
  CUresult r = CU(cuCtxSetCurrent)(b->ctx);
  return r == CUDA_SUCCESS ? TIDAL_OK : worker_fail(r, "cuCtxSetCurrent (VMM worker)", err, n);
}

static void cuda_worker_waited(rt_backend *b, double vt, double real_s, double *waited_s) {
  RT_COUNT_TIME(modelled_host_wait_seconds, real_s); /* Note [measured host time] */
  *waited_s += real_s;
}

const rt_backend_ops rt_backend_cuda_ops = {
    .name = "cuda",
    .create = cuda_create,
    .pool_create = cuda_pool_create,
    .phys_add = cuda_phys_add,
    .phys_remove = cuda_phys_remove,
    .destroy = cuda_destroy,
    .pool_grow = cuda_pool_grow,
    .pool_shrink = cuda_pool_shrink,
    .pool_release = cuda_pool_release,
    .copy_d2d = cuda_copy_d2d,
    .reserve = cuda_reserve,
    .release = cuda_release,
    .map = cuda_map,
    .set_access = cuda_set_access,
    .unmap = cuda_unmap,
    .park = cuda_park,
    .unpark = cuda_unpark,
    .host_alloc = cuda_host_alloc,
    .host_free = cuda_host_free,
    .copy_d2h = cuda_copy_d2h,
    .copy_h2d = cuda_copy_h2d,
    .event_done = cuda_event_done,
    .event_sync = cuda_event_sync,
    .stream_wait = cuda_stream_wait,
    .event_release = cuda_event_release,
    .mark = cuda_mark,
    .mark_done = cuda_mark_done,
    .mark_wait = cuda_mark_wait,
    .op_start = cuda_op_start,
    .op_end = cuda_op_end,
    .profile_flush = cuda_profile_flush,
    .modelled_now = cuda_modelled_now,
    .program_sync = cuda_program_sync,
    .time_mark = cuda_time_mark,
    .time_ready = cuda_time_ready,
    .time_elapsed = cuda_time_elapsed,
    .time_release = cuda_time_release,
    .cmd_prepare = cuda_cmd_prepare,
    .cmd_run = cuda_cmd_run,
    .worker_attach = cuda_worker_attach,
    .worker_waited = cuda_worker_waited,
    .park_touches_mapping = 0,
};
