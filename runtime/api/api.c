/* api.c - the public entry points of tidal.h.
 *
 * Validates arguments, resolves pointers to allocations and chunks, and
 * drives residency.c.  Every failure returns a status with a message naming
 * the call, the pointer and the bytes (tidal_last_error); nothing here
 * aborts.  Decisions:
 *  - tidal_op_begin pins all the op's chunks before restoring any, so that
 *    restoring one (or recomputing it, Note [recompute re-entrancy]) cannot
 *    evict another; the per-op flags live in the pin entries.
 *  - The op's own working set is checked against the budget up front, so
 *    an op that can never fit fails before anything is evicted for it.
 *  - Hints never fail for lack of memory: a hint that cannot be honoured is
 *    ignored (tidal_op_begin restores whatever is missing). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "api/api.h"

/* Who may call: base/thread.c (Notes [one thread] and [fork]). */

#define RT_CUDA_ROOM_BYTES ((size_t)1 << 30) /* Note [no settings] */

/* Every layer's state back to zero: before tidal_init sets it up, after a
 * failed tidal_init and after tidal_shutdown. */
static void reset_state(void) {
  memset(&rt_base, 0, sizeof rt_base);
  memset(&rt_dev, 0, sizeof rt_dev);
  memset(&rt_mem, 0, sizeof rt_mem);
  memset(&rt_pol, 0, sizeof rt_pol);
  rt_api_owner_clear();
}

#define REQUIRE_INIT(fn)                                                                           \
  do {                                                                                             \
    tidal_status st_ = rt_api_check(fn);                                                           \
    if (st_ != TIDAL_OK)                                                                           \
      return st_;                                                                                  \
  } while (0)

static const char *site_label(const tidal_site *s) {
  return s && s->label ? s->label : "(unnamed op)";
}

static tidal_status op_fail(tidal_status st) {
  if (rt_mem.rc_depth && rt_mem.rc_error == TIDAL_OK)
    rt_mem.rc_error = st; /* surfaces as the outer op's TIDAL_ERR_RECOMPUTE */
  return st;
}

/* ---- lifetime ---- */

tidal_status tidal_init(const tidal_config *user) {
  if (rt_api_forked())
    return rt_api_refuse("tidal_init");
  if (rt_base.initialized)
    return rt_error(TIDAL_ERR_ALREADY_INITIALIZED, "tidal_init: already initialised");
  tidal_config cfg;
  tidal_status st;
  if (user) {
    /* An explicit config: only TIDAL_DEVICE is read, and only when it asks
     * for it - a malformed variable it does not use cannot fail it. */
    cfg = *user;
    if (cfg.device == TIDAL_DEVICE_DEFAULT) {
      cfg.device = TIDAL_DEVICE_CUDA;
      if ((st = rt_config_device_from_env(&cfg.device)) != TIDAL_OK)
        return st;
    }
  } else {
    tidal_config_default(&cfg);
    if ((st = tidal_config_from_env(&cfg)) != TIDAL_OK)
      return st;
    if (cfg.device == TIDAL_DEVICE_DEFAULT)
      cfg.device = TIDAL_DEVICE_CUDA;
  }
  if (!(cfg.budget_percent >= 0 && cfg.budget_percent <= 100)) /* NaN too */
    return rt_error(TIDAL_ERR_CONFIG, "tidal_init: budget_percent %g is not in (0, 100]",
                    cfg.budget_percent);
  if (cfg.planner == TIDAL_PLANNER_DEFAULT) {
    const char *v = getenv("TIDAL_PLANNER");
    cfg.planner = TIDAL_PLANNER_RUNTIME;
    if (v && *v && !rt_parse_planner(v, &cfg.planner))
      return rt_error(TIDAL_ERR_CONFIG, "TIDAL_PLANNER=%s: expected runtime, hints or lru", v);
  }
  if (cfg.planner < TIDAL_PLANNER_RUNTIME || cfg.planner > TIDAL_PLANNER_LRU)
    return rt_error(TIDAL_ERR_CONFIG, "tidal_init: planner %d is not a tidal_planner",
                    (int)cfg.planner);
  if (!(cfg.budget_device_percent >= 0 && cfg.budget_device_percent <= 100))
    return rt_error(TIDAL_ERR_CONFIG, "tidal_init: budget_device_percent %g is not in (0, 100]",
                    cfg.budget_device_percent);
  if (cfg.device != TIDAL_DEVICE_CUDA && cfg.device != TIDAL_DEVICE_SIM)
    return rt_error(TIDAL_ERR_CONFIG, "tidal_init: device %d is not TIDAL_DEVICE_CUDA or _SIM",
                    (int)cfg.device);
  reset_state();
  rt_base.cfg = cfg;
  rt_api_owner_set();
  /* The hooks through which lower layers take decisions from above
   * (runtime/README.md): the eviction policy here; the shared budget's in
   * rt_arbiter_join, the planner's budget_changed in rt_planner_init, the
   * trace's clock and counters in rt_trace_open, below. */
  rt_mem.evict = &rt_evict_lru; /* Note [eviction seam] */
  rt_mem.evict->init();
  rt_config_warn_unknown_env();
  rt_dev.be = cfg.device == TIDAL_DEVICE_SIM ? &rt_backend_sim_ops : &rt_backend_cuda_ops;

  size_t device_free = 0;
  if ((st = rt_dev.be->create(&cfg, &rt_dev.b, &rt_dev.granularity, &device_free)) != TIDAL_OK)
    goto fail;
  size_t chunk = cfg.chunk_bytes;
  if (!chunk)
    chunk = RT_DEFAULT_CHUNK_BYTES > rt_dev.granularity ? RT_DEFAULT_CHUNK_BYTES
                                                        : rt_dev.granularity;
  if (chunk % rt_dev.granularity || (chunk & (chunk - 1))) {
    st = rt_error(TIDAL_ERR_CONFIG,
                  "tidal_init: chunk size %zu is not a power of two multiple of the %s backend's "
                  "%zu-byte granularity",
                  chunk, rt_dev.be->name, rt_dev.granularity);
    goto fail;
  }
  size_t budget = 0;
  if ((st = rt_budget_initial(&cfg, device_free, &budget)) != TIDAL_OK)
    goto fail;
  /* Note [no settings]: with no budget at all, a card's pool is created as
   * the program uses it, never all of the free memory up front (issue 19:
   * llm.c stopped at start, cuMemCreate out of memory after 71,312 of
   * 71,314 chunks), and room stays for the CUDA context, cuBLAS/cuDNN
   * workspaces and the program's own cudaMalloc: 5% of the free memory, at
   * least 1 GiB. */
  int no_budget = !cfg.budget_bytes && cfg.budget_percent == 0 && cfg.budget_device_percent == 0;
  int lazy_pool = 0;
  if (no_budget && strcmp(rt_dev.be->name, "cuda") == 0) {
    size_t room = device_free / 20 > RT_CUDA_ROOM_BYTES ? device_free / 20 : RT_CUDA_ROOM_BYTES;
    budget = device_free > 2 * room ? device_free - room : device_free / 2;
    lazy_pool = 1;
  }
  if (budget > device_free) {
    st = rt_error(TIDAL_ERR_DEVICE_MEMORY,
                  "tidal_init: budget of %zu bytes exceeds the %zu bytes free on the device",
                  budget, device_free);
    goto fail;
  }
  if (budget / chunk == 0) {
    /* not a malformed setting: a budget that holds no whole chunk (a small
     * program at N% of its peak) - say which knob fixes it */
    st = rt_error(TIDAL_ERR_BUDGET,
                  "tidal_init: the budget of %zu bytes is below one chunk of %zu bytes: device "
                  "memory is held in whole chunks; raise TIDAL_BUDGET to at least %zu bytes or "
                  "lower TIDAL_CHUNK (a power of two multiple of the %s backend's %zu-byte "
                  "granularity)",
                  budget, chunk, chunk, rt_dev.be->name, rt_dev.granularity);
    goto fail;
  }
  if (budget / chunk > UINT32_MAX) {
    st = rt_error(TIDAL_ERR_CONFIG, "tidal_init: budget of %zu bytes is not 1..2^32 chunks of %zu",
                  budget, chunk);
    goto fail;
  }
  rt_dev.device_free = device_free;
  rt_mem.chunk_bytes = chunk;
  if ((st = rt_arbiter_join(&cfg, &budget)) != TIDAL_OK) /* budget becomes this process's share */
    goto fail;
  /* Lazy under a shared budget, and for N% of a peak not measured yet: the
   * first iteration takes device memory as it uses it, not all of it. */
  if ((st = rt_pool_init(chunk, budget,
                        lazy_pool || rt_pol.arb != NULL || rt_pol.budget_peak_percent > 0)) !=
      TIDAL_OK)
    goto fail;
  size_t ram = rt_host_ram_bytes();
  size_t host_budget = cfg.host_budget_bytes ? cfg.host_budget_bytes : ram / 2;
  if (host_budget < chunk) { /* the store would have no slot: nothing could be swapped */
    st = rt_error(TIDAL_ERR_CONFIG,
                  "tidal_init: host budget of %zu bytes is smaller than one %zu-byte chunk",
                  host_budget, chunk);
    goto fail;
  }
  if (host_budget > ram) { /* its pieces could never be allocated */
    st = rt_error(TIDAL_ERR_CONFIG,
                  "tidal_init: host budget of %zu bytes exceeds the %zu bytes of host RAM",
                  host_budget, ram);
    goto fail;
  }
  rt_host_init(chunk, host_budget);
  if (cfg.vmm_thread && (st = rt_vmmq_start()) != TIDAL_OK) /* Note [vmm worker] */
    goto fail;
  if ((st = rt_planner_init()) != TIDAL_OK)
    goto fail;
  if (cfg.trace_path) {
    int t = rt_trace_open(cfg.trace_path, rt_dev.be->name, strcmp(rt_dev.be->name, "sim") != 0,
                          rt_dev_now, rt_trace_counters);
    if (t != 0) { /* Note [trace failures and the cap] */
      st = rt_error(TIDAL_ERR_CONFIG, "TIDAL_TRACE: '%s': %s: %s", cfg.trace_path,
                    t == -1 ? "cannot open for writing" : "cannot write", strerror(errno));
      goto fail;
    }
  }
  /* written at tidal_shutdown: a path it cannot write fails now, not after the run */
  if (cfg.profile_path && (st = rt_profile_check(cfg.profile_path)) != TIDAL_OK)
    goto fail;
  /* Pinned now, not inside the first swap-out (Note [host store sizing]). */
  if (rt_host_reserve(cfg.host_reserve_bytes ? cfg.host_reserve_bytes : RT_HOST_PIECE_MIN_BYTES) !=
      TIDAL_OK)
    rt_clear_error(); /* the store grows later if it can; not fatal */
  rt_base.initialized = 1;
  rt_stats_iteration_begin(rt_resident_bytes(), rt_dev_now());
  rt_log(3, "initialised: %s backend, budget %zu bytes in %u chunks of %zu, host store %zu bytes",
         rt_dev.be->name, rt_mem.budget_bytes, rt_mem.nphys, chunk, host_budget);
  if (RT_TRACING()) {
    rt_trace("init", "\"backend\":\"%s\",\"budget\":%zu,\"chunk\":%zu,\"host_budget\":%zu",
             rt_dev.be->name, rt_mem.budget_bytes, chunk, host_budget);
    rt_trace_counters();
  }
  rt_clear_error();
  return TIDAL_OK;
fail:
  rt_planner_shutdown(); /* a trace path that fails after the planner started */
  rt_vmmq_stop();
  rt_host_destroy();
  if (rt_dev.b)
    rt_dev.be->destroy(rt_dev.b);
  rt_pool_destroy();
  rt_arbiter_leave();
  reset_state();
  return st;
}

int tidal_is_initialized(void) { return rt_base.initialized && !rt_api_forked(); }

/* What an allocation adds to this process's demand on a shared budget. */
static size_t footprint(size_t bytes) {
  size_t cb = rt_mem.chunk_bytes;
  return bytes < cb ? bytes : (bytes + cb - 1) / cb * cb;
}

/* ... once placed: an arena member adds its aligned bytes, whatever its
 * size (its chunks are shared with its neighbours: Note [arenas]). */
static size_t placed_footprint(const rt_alloc *a) {
  return a->arena || a->reloc ? a->reserved : footprint(a->bytes);
}

static tidal_status release_alloc(rt_alloc *a) {
  tidal_status st = TIDAL_OK;
  rt_mem.footprint_bytes -= placed_footprint(a);
  if (a->reloc) { /* its units, then its stable range (never mapped) */
    st = rt_units_release(a);
    rt_dev.be->release(rt_dev.b, a->base - a->guard, a->reserved + 2 * a->guard);
    rt_mem.nreloc--;
  } else if (a->slab) {
    st = rt_small_free(a);
  } else if (a->arena) {
    st = rt_arena_free(a);
  } else {
    st = rt_range_release(a);
    free(a->chunks);
  }
  free(a);
  return st;
}

tidal_status tidal_shutdown(void) {
  REQUIRE_INIT("tidal_shutdown");
  if (rt_mem.rc_depth)
    return op_fail(rt_error(TIDAL_ERR_INVALID,
                            "tidal_shutdown: called from a recompute closure (an op is "
                            "waiting for it)"));
  rt_home_release();
  tidal_status st = rt_reap(1);
  if (rt_base.cfg.stats || rt_base.cfg.log_level >= 3)
    rt_summary_print(stderr); /* before the planner goes: it says what the planner chose */
  rt_planner_shutdown();
  if (RT_TRACING())
    rt_trace("shutdown", "\"allocations\":%zu", rt_mem.nallocs);
  for (size_t i = rt_mem.nallocs; i-- > 0;) {
    tidal_status s2 = release_alloc(rt_mem.allocs[i]);
    if (st == TIDAL_OK)
      st = s2;
  }
  rt_mem.nallocs = 0;
  if (rt_base.cfg.profile_path) {
    rt_dev.be->profile_flush(rt_dev.b);
    int measured = strcmp(rt_dev.be->name, "cuda") == 0; /* CUDA events, else the sim's model */
    tidal_status s2 = rt_profile_write(rt_base.cfg.profile_path, measured);
    if (st == TIDAL_OK)
      st = s2;
  }
  rt_profile_destroy();
  rt_registry_destroy();
  rt_small_destroy();
  rt_arena_destroy_all();
  rt_recompute_destroy();
  int terr = rt_trace_close(); /* its last counters read the backend's clock */
  if (terr && st == TIDAL_OK)
    st = rt_error(TIDAL_ERR_CONFIG, "TIDAL_TRACE: '%s': writing the trace failed%s%s",
                  rt_base.cfg.trace_path ? rt_base.cfg.trace_path : "?", terr > 0 ? ": " : "",
                  terr > 0 ? strerror(terr) : "");
  rt_vmmq_stop();    /* before the host store: queued copies may read it */
  rt_pace_destroy();  /* deferred prefetches (Note [prefetch order]) */
  rt_units_destroy(); /* the device pool and the units' host store */
  rt_host_destroy();
  rt_dev.be->destroy(rt_dev.b);
  rt_annotate_destroy();
  rt_pool_destroy();
  rt_arbiter_leave(); /* after the pool: its chunks are given back first */
  rt_frames_destroy();
  rt_home_destroy();
  reset_state();
  return st;
}

tidal_status tidal_device_synchronize(void) {
  REQUIRE_INIT("tidal_device_synchronize");
  return rt_dev.be->program_sync(rt_dev.b, rt_mem.stream);
}

tidal_status tidal_host_reserve(size_t bytes) {
  REQUIRE_INIT("tidal_host_reserve");
  return rt_host_reserve(bytes);
}

tidal_status tidal_synchronize(void) {
  REQUIRE_INIT("tidal_synchronize");
  tidal_status st = rt_reap(1);
  tidal_status s2 = rt_vmmq_drain(); /* maps and unmaps too (Note [vmm worker]) */
  return st != TIDAL_OK ? st : s2;
}

/* ---- allocation ---- */

static tidal_status malloc_grouped(void **p, size_t bytes, uint32_t group) {
  if (!p)
    return rt_error(TIDAL_ERR_INVALID, "tidal_malloc: p is NULL");
  *p = NULL;
  REQUIRE_INIT("tidal_malloc");
  if (bytes == 0)
    return rt_error(TIDAL_ERR_INVALID, "tidal_malloc: zero bytes");
  size_t cb = rt_mem.chunk_bytes;
  if (bytes > SIZE_MAX - cb)
    return rt_error(TIDAL_ERR_INVALID, "tidal_malloc: %zu bytes is too large", bytes);
  rt_alloc *a = calloc(1, sizeof *a);
  if (!a)
    return rt_error(TIDAL_ERR_HOST_MEMORY, "tidal_malloc(%zu): out of host memory", bytes);
  a->bytes = bytes;
  rt_mem.footprint_bytes += footprint(bytes); /* undone by release_alloc, or below */
  if (rt_pol.arb && rt_mem.depth == 0)
    rt_arbiter_poll(0); /* the share follows demand before memory is taken for it */
  tidal_status st;
  int placed = 0;
  /* Relocatable (Note [units], memory/units.c): exact bytes in the device
   * pool, its stable range only reserved.  Home instead with
   * TIDAL_RELOCATE=0, on a backend without a pool and under a shared budget
   * (the pool's growth is not counted by the arbiter yet). */
  if ((group & TIDAL_GROUP_RELOCATABLE) && !rt_base.cfg.relocate_off && rt_dev.be->pool_grow &&
      !rt_mem.share) {
    a->reloc = 1;
    a->reserved = (bytes + cb - 1) / cb * cb;
    a->guard = cb; /* Note [guard ranges] */
    uintptr_t start;
    if ((st = rt_dev.be->reserve(rt_dev.b, a->reserved + 2 * a->guard, &start)) != TIDAL_OK)
      goto fail;
    a->base = start + a->guard;
    rt_mem.footprint_bytes = rt_mem.footprint_bytes - footprint(bytes) + a->reserved;
    if (!rt_mem.reloc_seen)
      rt_phys_trim(); /* the chunk pool's unused memory is the device pool's to take */
    rt_mem.nreloc++;
    rt_mem.reloc_seen = 1;
    group = 0; /* placed */
  }
  group &= ~TIDAL_GROUP_RELOCATABLE; /* home: as if never asked */
  if ((group & TIDAL_GROUP_ARENA) && (st = rt_arena_alloc(a, group, &placed)) != TIDAL_OK)
    goto fail;
  if (a->reloc) {
    /* placed above */
  } else if (placed) {
    /* laid out in its arena: its aligned bytes, not whole chunks */
    rt_mem.footprint_bytes = rt_mem.footprint_bytes - footprint(bytes) + a->reserved;
  } else if (bytes < cb) {
    if ((st = rt_small_alloc(a, group)) != TIDAL_OK)
      goto fail;
  } else {
    a->reserved = (bytes + cb - 1) / cb * cb;
    if (a->reserved / cb > UINT32_MAX) {
      st = rt_error(TIDAL_ERR_INVALID, "tidal_malloc: %zu bytes is too many chunks", bytes);
      goto fail;
    }
    a->nchunks = (uint32_t)(a->reserved / cb);
    a->chunks = calloc(a->nchunks, sizeof *a->chunks);
    if (!a->chunks) {
      st = rt_error(TIDAL_ERR_HOST_MEMORY, "tidal_malloc(%zu): out of host memory", bytes);
      goto fail;
    }
    if ((st = rt_dev.be->reserve(rt_dev.b, a->reserved, &a->base)) != TIDAL_OK) {
      free(a->chunks);
      goto fail;
    }
    rt_chunks_init(a, a->nchunks);
  }
  if ((st = rt_registry_insert(a)) != TIDAL_OK) {
    release_alloc(a);
    return st;
  }
  *p = (void *)a->base;
  rt_mem.allocated_bytes += a->bytes;
  if (RT_TRACING())
    rt_trace("malloc", "\"ptr\":\"%#lx\",\"bytes\":%zu", (unsigned long)a->base, bytes);
  return TIDAL_OK;
fail:
  rt_mem.footprint_bytes -= footprint(bytes);
  free(a);
  return st;
}

tidal_status tidal_malloc(void **p, size_t bytes) { return malloc_grouped(p, bytes, 0); }

tidal_status tidal_malloc_grouped(void **p, size_t bytes, unsigned group) {
  return malloc_grouped(p, bytes, (uint32_t)group);
}

/* Whether site is on *list, adding it if not: a message once per op site. */
static int seen_site(const tidal_site ***list, size_t *n, const tidal_site *site) {
  for (size_t i = 0; i < *n; i++)
    if ((*list)[i] == site)
      return 1;
  const tidal_site **w = realloc(*list, (*n + 1) * sizeof *w);
  if (w) {
    *list = w;
    (*list)[(*n)++] = site;
  }
  return 0;
}

/* The allocation containing [p, p+bytes), with the length resolved.
 *
 * Note [clamped extents]: with clamp set (an op's access), an access that
 * starts inside an allocation and runs past its end is cut at the end
 * rather than refused.  A kernel's extent is the pass's upper bound over
 * its index expressions, and a bound can be loose where the index steps
 * by a vector width: llm.c's `for (j = 0; j < 8; j += 4) ld_vec(p + j)`
 * bounds j by 7 rather than 4, 12 bytes past a float4 load's end, and on
 * the last tensor of an allocation that is past the allocation.  No
 * correct kernel touches bytes past its allocation, so the cut access
 * still covers everything the op uses.  The explicit calls (prefetch,
 * annotate, recompute) keep the error: their extents are the caller's. */
static tidal_status resolve(const char *fn, const tidal_site *site, const void *p, size_t bytes,
                            int clamp, rt_alloc **out, size_t *off, size_t *len) {
  uintptr_t u = (uintptr_t)p;
  rt_alloc *a = rt_registry_find(u);
  if (!a && (bytes == 0 || bytes == TIDAL_EXTENT_UNKNOWN) && u) {
    /* An empty access one past the end (an empty tail, p + n) is valid C. */
    rt_alloc *before = rt_registry_find(u - 1);
    if (before && u - before->base == before->bytes) {
      *out = before;
      *off = before->bytes;
      *len = 0;
      return TIDAL_OK;
    }
  }
  if (!a) {
    if (rt_registry_was_freed(u))
      return rt_error(TIDAL_ERR_UNKNOWN_POINTER, "%s%s%s: %p was freed", fn, site ? " " : "",
                      site ? site_label(site) : "", p);
    return rt_error(TIDAL_ERR_UNKNOWN_POINTER, "%s%s%s: %p (%zu bytes) is inside no tidal allocation",
                    fn, site ? " " : "", site ? site_label(site) : "", p,
                    bytes == TIDAL_EXTENT_UNKNOWN ? 0 : bytes);
  }
  size_t o = u - a->base;
  size_t l = bytes == TIDAL_EXTENT_UNKNOWN ? a->bytes - o : bytes;
  if (l > a->bytes - o && clamp) {
    RT_COUNT(extents_clamped, 1);
    if (!seen_site(&rt_mem.clamped, &rt_mem.nclamped, site))
      rt_log(3, "%s%s%s: %zu bytes at %p run %zu bytes past the end of the %zu-byte allocation; "
                "cut at its end (a loose bound; noted once per op site)",
             fn, site ? " " : "", site ? site_label(site) : "", l, p, l - (a->bytes - o), a->bytes);
    l = a->bytes - o;
  }
  if (l > a->bytes - o)
    return rt_error(TIDAL_ERR_OUT_OF_BOUNDS,
                    "%s%s%s: %zu bytes at %p run %zu bytes past the end of the %zu-byte allocation "
                    "at %#lx",
                    fn, site ? " " : "", site ? site_label(site) : "", l, p, l - (a->bytes - o),
                    a->bytes, (unsigned long)a->base);
  *out = a;
  *off = o;
  *len = l;
  return TIDAL_OK;
}

int tidal_owns(const void *p) {
  if (!p || !rt_base.initialized)
    return 0;
  const rt_alloc *a = rt_registry_find((uintptr_t)p);
  return a && a->base == (uintptr_t)p;
}

tidal_status tidal_free(void *p) {
  if (!p)
    return TIDAL_OK;
  REQUIRE_INIT("tidal_free");
  uintptr_t u = (uintptr_t)p;
  rt_alloc *a = rt_registry_find(u);
  if (!a || a->base != u) {
    if (!a && rt_registry_was_freed(u))
      return rt_error(TIDAL_ERR_DOUBLE_FREE, "tidal_free(%p): already freed", p);
    if (a)
      return rt_error(TIDAL_ERR_UNKNOWN_POINTER,
                      "tidal_free(%p): points %zu bytes into the allocation at %#lx, not at its start",
                      p, (size_t)(u - a->base), (unsigned long)a->base);
    return rt_error(TIDAL_ERR_UNKNOWN_POINTER, "tidal_free(%p): not a tidal allocation", p);
  }
  rt_home_release(); /* its holds would make it busy (Note [home residency]) */
  int busy = (a->slab && rt_small_busy(a)) || (a->arena && rt_arena_busy(a)) ||
             (a->reloc && rt_units_busy(a));
  for (uint32_t i = 0; i < a->nchunks; i++)
    busy |= a->chunks[i].pins != 0;
  if (busy)
    return rt_error(TIDAL_ERR_INVALID, "tidal_free(%p): an open op (tidal_op_begin) uses it", p);
  if (RT_TRACING())
    rt_trace("free", "\"ptr\":\"%p\"", p);
  rt_annotate_forget(a->base, a->base + a->reserved);
  rt_mem.allocated_bytes -= a->bytes;
  rt_registry_remove(a);
  return release_alloc(a);
}

/* ---- ops ---- */

/* Note [NULL accesses]: an access or hint whose pointer is NULL is empty.
 * A kernel cannot dereference NULL, and C code passes NULL for optional
 * operands (`fwd(out, in, has_bias ? b : NULL, n)`, or a wrapper's
 * parameter that is a buffer on one call path and NULL on another), which
 * the pass declares from the argument's text because it cannot know the
 * value.  Refusing them made a correct program fail in tidal_op_begin. */
tidal_status tidal_op_begin(const tidal_site *site, int n, const tidal_access *acc) {
  REQUIRE_INIT("tidal_op_begin");
  if (n < 0 || (n > 0 && !acc))
    return op_fail(rt_error(TIDAL_ERR_INVALID, "tidal_op_begin %s: %d accesses at %p",
                            site_label(site), n, (const void *)acc));
  rt_home_release(); /* tidal_home's pins outside any op: the call is enqueued (Note [home
                       residency], memory/homehold.c) */
  if (rt_mem.out.n || rt_mem.in.n)
    rt_reap(0);
  if (rt_mem.npace && rt_mem.depth == 0) { /* Note [prefetch order] */
    tidal_status ps = rt_pace_pump();
    if (ps != TIDAL_OK)
      return op_fail(ps);
  }
  if (rt_pol.arb && rt_mem.depth == 0)
    rt_arbiter_poll(0); /* a changed shared budget applies between ops */
  /* the run-time plan's actions for this point (top-level ops only) */
  tidal_status st = rt_mem.depth == 0 ? rt_planner_op_enter(site, n, acc) : TIDAL_OK;
  if (st == TIDAL_OK)
    st = rt_frame_reserve();
  if (st != TIDAL_OK) {
    rt_planner_op_failed();
    return op_fail(st);
  }
  /* Relocatable accesses, for the gather (Note [units], memory/units.c). */
  rt_alloc *rloc_local[8], **rloc_a = rloc_local;
  size_t rloc_local_off[16], *rloc_off = rloc_local_off, *rloc_len = rloc_local_off + 8;
  int nrloc = 0;
  if (rt_mem.nreloc && n > 8) {
    rloc_a = malloc((size_t)n * (sizeof *rloc_a + 2 * sizeof *rloc_off));
    if (!rloc_a) {
      rt_planner_op_failed();
      return op_fail(rt_error(TIDAL_ERR_HOST_MEMORY, "tidal_op_begin: out of host memory"));
    }
    rloc_off = (size_t *)(rloc_a + n);
    rloc_len = rloc_off + n;
  }
  rt_frame *f = &rt_mem.frames[rt_mem.depth++];
  f->site = site;
  f->begun = 0;
  f->empty_start = rt_mem.nempty;
  f->stream = rt_mem.stream;
  f->pin_start = rt_mem.npinned;
  uint64_t stamp = ++rt_mem.op_stamp;
  f->stamp = stamp;
  size_t cb = rt_mem.chunk_bytes;

  /* 1. Resolve and pin every declared chunk. */
  for (int i = 0; i < n; i++) {
    const tidal_access *x = &acc[i];
    if (x->mode < TIDAL_READ || x->mode > TIDAL_READWRITE) {
      st = rt_error(TIDAL_ERR_INVALID, "tidal_op_begin %s: access %d has bad mode %d",
                    site_label(site), i, (int)x->mode);
      goto fail;
    }
    rt_alloc *a = NULL;
    size_t off = 0, len = 0;
    if (!x->ptr)
      continue; /* Note [NULL accesses] */
    if ((st = resolve("tidal_op_begin", site, x->ptr, x->bytes, 1, &a, &off, &len)) != TIDAL_OK)
      goto fail;
    if (len == 0) {
      if (a->reloc && (st = rt_frame_note_empty((uintptr_t)x->ptr)) != TIDAL_OK)
        goto fail; /* tidal_at(p) of an empty access: no error (nothing to resolve) */
      continue;
    }
    if (a->reloc) { /* its units, split and made to measure */
      if ((st = rt_units_declare(a, off, len, x->mode, stamp)) != TIDAL_OK)
        goto fail;
      rloc_a[nrloc] = a;
      rloc_off[nrloc] = off;
      rloc_len[nrloc++] = len;
      continue;
    }
    if (a->arena)
      rt_arena_range(&a, &off, &len, 0); /* the arena's chunks (Note [arenas]) */
    if (a->slab) { /* a packed member: its slab's chunk, whose other members stay */
      a->idle = 0; /* in use again: earlier hints on it are moot */
      uint32_t flags = RT_PIN_NEED_DATA | ((x->mode & TIDAL_WRITE) ? RT_PIN_WRITTEN : 0u);
      if ((st = rt_frame_pin(&a->slab->chunk, stamp, flags)) != TIDAL_OK)
        goto fail;
      continue;
    }
    size_t c0 = off / cb, c1 = (off + len - 1) / cb;
    for (size_t ci = c0; ci <= c1; ci++) {
      rt_chunk *c = &a->chunks[ci];
      size_t cs = ci * cb, ce = cs + rt_chunk_len(c);
      uint32_t flags = 0;
      /* A write that covers only part of a chunk must keep the rest. */
      if ((x->mode & TIDAL_READ) || off > cs || off + len < ce)
        flags |= RT_PIN_NEED_DATA;
      if (x->mode & TIDAL_WRITE)
        flags |= RT_PIN_WRITTEN;
      if ((st = rt_frame_pin(c, stamp, flags)) != TIDAL_OK)
        goto fail;
    }
  }
  f->pin_end = rt_mem.npinned;
  size_t ws = (f->pin_end - f->pin_start) * cb, ws_exact = 0;
  if (nrloc) { /* units count their exact bytes (Note [units]) */
    ws = 0;
    for (size_t i = f->pin_start; i < f->pin_end; i++) {
      rt_chunk *c = rt_mem.pinned[i].c;
      if (c->unit)
        ws_exact += rt_chunk_len(c);
      else
        ws += cb;
    }
    if (ws <= rt_mem.budget_bytes && ws + ws_exact > rt_mem.budget_exact) {
      st = rt_error(TIDAL_ERR_BUDGET,
                    "tidal_op_begin %s (%s:%d): the op's working set of %zu bytes (%zu in whole "
                    "chunks, %zu of relocatable tensors) exceeds the %zu-byte budget",
                    site_label(site), site && site->file ? site->file : "?", site ? site->line : 0,
                    ws + ws_exact, ws, ws_exact, rt_mem.budget_exact);
      goto fail;
    }
  }
  if (ws > rt_mem.budget_bytes && rt_pol.arb)
    (void)rt_arbiter_need(ws); /* a shared budget: the others make room (Note [shared budget]) */
  if (ws > rt_mem.budget_bytes) {
    st = rt_error(TIDAL_ERR_BUDGET,
                  "tidal_op_begin %s (%s:%d): the op's working set of %zu bytes (whole chunks, "
                  "small allocations' slabs included) exceeds the %zu-byte budget",
                  site_label(site), site && site->file ? site->file : "?", site ? site->line : 0, ws,
                  rt_mem.budget_bytes);
    goto fail;
  }
  rt_planner_op_pinned(f->pin_start, f->pin_end);

  /* 2a. Registrations this op overwrites end here (may run closures). */
  if (rt_mem.rcs) {
    for (int i = 0; i < n; i++) {
      if (!(acc[i].mode & TIDAL_WRITE))
        continue;
      rt_alloc *a = rt_registry_find((uintptr_t)acc[i].ptr);
      if (!a) /* an empty access one past the end */
        continue;
      uintptr_t lo = (uintptr_t)acc[i].ptr;
      uintptr_t hi = acc[i].bytes == TIDAL_EXTENT_UNKNOWN ? a->base + a->bytes : lo + acc[i].bytes;
      if (hi > lo && (st = rt_recompute_overwrite(lo, hi, stamp)) != TIDAL_OK)
        goto fail;
      f = &rt_mem.frames[rt_mem.depth - 1]; /* nested ops may have moved the stack */
    }
  }

  /* Groups of units with no block yet are restored straight into one span
   * (Note [placed in advance], memory/units.c). */
  if (nrloc && (st = rt_units_gather(rloc_a, rloc_off, rloc_len, nrloc, stamp, 1)) != TIDAL_OK)
    goto fail;

  /* 2b. Restore: chunks whose data the op needs first (they may recurse
   * into recompute closures, which push frames and may read chunks this op
   * only writes), then write-only ones (Note [write-only restore]). */
  for (int pass = 0; pass < 2; pass++)
    for (size_t i = f->pin_start; i < f->pin_end; i++) {
      rt_pin_entry e = rt_mem.pinned[i];
      int need = (e.flags & RT_PIN_NEED_DATA) != 0;
      if (need != (pass == 0))
        continue;
      st = rt_chunk_restore(e.c, need);
      f = &rt_mem.frames[rt_mem.depth - 1]; /* nested ops may have moved the stack */
      if (st != TIDAL_OK)
        goto fail;
    }

  /* Access for the chunks mapped above, one call per run (Note [access
   * batching]) */
  if ((st = rt_access_flush()) != TIDAL_OK)
    goto fail;
  /* The program launches the op when this returns: its chunks' queued
   * driver commands must have run (Note [vmm worker]). */
  if ((st = rt_chunks_ready(f->pin_start, f->pin_end)) != TIDAL_OK)
    goto fail;
  /* Accesses that overlap get their units contiguous (Note [units]). */
  if (nrloc && (st = rt_units_gather(rloc_a, rloc_off, rloc_len, nrloc, stamp, 0)) != TIDAL_OK)
    goto fail;
  if (rloc_a != rloc_local)
    free(rloc_a);

  /* 3. Nothing can fail any more: every chunk this op mapped fresh stays
   * (a read of an unmapped or dropped chunk is marked too; a mark left
   * behind would let a later failed op unmap it, data and host copy
   * included).  Written chunks: the host copy goes stale, other closures
   * expire. */
  for (size_t i = f->pin_start; i < f->pin_end; i++) {
    rt_pin_entry e = rt_mem.pinned[i];
    rt_chunk *c = e.c;
    c->fresh_from = 0;
    if (!(e.flags & RT_PIN_WRITTEN))
      continue;
    if (c->rc && !c->rc->running)
      rt_recompute_detach(c);
    c->in_place = (e.flags & RT_PIN_NEED_DATA) != 0; /* Note [self-reading closures] */
    if (c->host_slot >= 0)
      rt_chunk_free_host(c);
    c->state = RT_DIRTY;
    c->writer = rt_mem.stream;
  }
  f->begun = 1;
  rt_units_fix(f->pin_start, f->pin_end, 1); /* tidal_at hands out their addresses now */
  rt_dev.be->op_start(rt_dev.b, rt_mem.stream, site);
  rt_planner_op_ready();
  if (RT_TRACING())
    rt_trace_op_begin(site);
  return TIDAL_OK;
fail:
  if (rloc_a != rloc_local)
    free(rloc_a);
  if (rt_mem.nreloc)
    rt_units_unplace(f->pin_start, rt_mem.npinned); /* places not taken by a restore */
  for (size_t i = f->pin_start; i < rt_mem.npinned; i++)
    rt_chunk_unrestore(rt_mem.pinned[i].c); /* a failed begin loses nothing */
  rt_frame_unwind();
  rt_planner_op_failed();
  return op_fail(st);
}

tidal_status tidal_op_end(const tidal_site *site) {
  REQUIRE_INIT("tidal_op_end");
  if (rt_mem.depth == 0)
    return op_fail(rt_error(TIDAL_ERR_INVALID, "tidal_op_end %s: no op is open", site_label(site)));
  /* Inside a recompute closure only the closure's own ops may end: the op
   * that needed its output is still in its tidal_op_begin. */
  if (rt_mem.depth <= rt_mem.rc_floor)
    return op_fail(rt_error(TIDAL_ERR_INVALID,
                            "tidal_op_end %s: no op is open in this recompute closure",
                            site_label(site)));
  rt_frame *f = &rt_mem.frames[rt_mem.depth - 1];
  if (f->site != site)
    return op_fail(rt_error(TIDAL_ERR_INVALID,
                            "tidal_op_end %s: the open op is %s (ops must nest)", site_label(site),
                            site_label(f->site)));
  tidal_stream s = f->stream;
  rt_note_op_end(f->pin_start, rt_mem.npinned, s);
  rt_frame_unwind();
  rt_dev.be->op_end(rt_dev.b, s, site);
  if (rt_mem.dpool_mapped && rt_mem.depth == 0 && rt_physical_bytes() > rt_physical_limit())
    rt_phys_settle(); /* memory created past the bound for this op (Note [physical bound]) */
  rt_planner_op_exit(s);
  if (RT_TRACING())
    rt_trace_op_end(site);
  return TIDAL_OK;
}

void tidal_stream_set(tidal_stream stream) {
  if (rt_base.initialized && !rt_api_is_owner()) { /* no status to return */
    (void)rt_api_refuse("tidal_stream_set");
    return;
  }
  rt_mem.stream = stream;
}

tidal_status tidal_iteration_begin(void) {
  REQUIRE_INIT("tidal_iteration_begin");
  rt_pol.in_iteration = 1;
  rt_planner_iteration_begin();
  if (RT_TRACING())
    rt_trace_iteration(1);
  return TIDAL_OK;
}

tidal_status tidal_iteration_end(void) {
  REQUIRE_INIT("tidal_iteration_end");
  if (rt_pol.arb)
    rt_arbiter_poll(1); /* who is still alive, and the division again */
  /* the program's cudaDeviceSynchronize, on the sim's clocks (Note [device
   * sync], backend_sim.c) */
  if (rt_base.cfg.sim_device_sync_per_iteration && rt_dev.be->device_sync) { /* sim only */
    if (rt_base.cfg.sim_device_sync_per_iteration == 2) /* tidal_device_synchronize */
      (void)rt_dev.be->program_sync(rt_dev.b, rt_mem.stream);
    else
      rt_dev.be->device_sync(rt_dev.b);
  }
  rt_planner_iteration_end(); /* plans, or learns from this iteration */
  rt_recompute_iteration_end();
  rt_mem.evict->iteration_end(); /* tidal_keep requests expire */
  rt_pol.in_iteration = 0;
  if (RT_TRACING() && strcmp(rt_dev.be->name, "cuda") == 0) /* Note [measured host time] */
    rt_trace("host_time", "\"vmm_s\":%.9f,\"wait_s\":%.9f,\"vmm_calls\":%llu",
             rt_base.cur.modelled_vmm_seconds, rt_base.cur.modelled_host_wait_seconds,
             (unsigned long long)rt_base.cur.vmm_calls);
  if (RT_TRACING())
    rt_trace_iteration(0);
  rt_stats_iteration_end(rt_resident_bytes(), rt_dev_now());
  rt_budget_iteration_end();
  return TIDAL_OK;
}

/* ---- plan calls ---- */

typedef tidal_status (*chunk_fn)(rt_chunk *c);

/* Resolves [p, p+bytes) of a plan call; *len = 0 if there is nothing to
 * do (empty, a packed small allocation, or the run-time planner skips the
 * hint: Note [hints under a plan]). */
static tidal_status hint_range(const char *name, const void *p, size_t bytes, int kind,
                               rt_alloc **a, size_t *off, size_t *len) {
  REQUIRE_INIT(name);
  *len = 0;
  if (!p)
    return TIDAL_OK; /* Note [NULL accesses] */
  tidal_status st = resolve(name, NULL, p, bytes, 0, a, off, len);
  if (st != TIDAL_OK)
    return st;
  if (!rt_planner_hint(kind, *a, *off, *len)) { /* Note [hints under a plan] */
    *len = 0;
    return TIDAL_OK;
  }
  if (rt_mem.out.n || rt_mem.in.n)
    rt_reap(0);
  if (*len && (*a)->slab) { /* a packed small allocation: its slab (Note [hints on packed
                              allocations]) */
    tidal_status s2 = rt_small_hint(*a, *off, *len, kind);
    *len = 0;
    return s2;
  }
  if (*len && (*a)->arena)
    rt_arena_range(a, off, len, 1); /* the arena's chunks (Note [arenas]) */
  if (!(*a)->nchunks && !(*a)->reloc)
    *len = 0;
  return TIDAL_OK;
}

/* The chunks a hint on [off, off + len) of a acts on: a's chunks, or a
 * relocatable allocation's units that overlap it (*cs, n of them, points into
 * a->units or is a malloc'd array the caller frees when *owned). */
static tidal_status hint_units(rt_alloc *a, size_t off, size_t len, rt_chunk ***cs, size_t *n) {
  size_t first, end;
  rt_units_range(a, off, len, &first, &end);
  *n = end - first;
  *cs = NULL;
  if (!*n)
    return TIDAL_OK;
  *cs = malloc(*n * sizeof **cs);
  if (!*cs)
    return rt_error(TIDAL_ERR_HOST_MEMORY, "hint on %#lx: out of host memory",
                    (unsigned long)(a->base + off));
  for (size_t k = 0; k < *n; k++)
    (*cs)[k] = &a->units[first + k]->c;
  return TIDAL_OK;
}

/* Applies fn to every chunk of [p, p+bytes) touches. */
static tidal_status for_chunks(const char *name, const void *p, size_t bytes, int kind,
                               chunk_fn fn) {
  rt_alloc *a = NULL;
  size_t off = 0, len = 0;
  tidal_status st = hint_range(name, p, bytes, kind, &a, &off, &len);
  if (st != TIDAL_OK || len == 0)
    return st;
  if (a->reloc) {
    rt_chunk **cs;
    size_t n;
    if ((st = hint_units(a, off, len, &cs, &n)) != TIDAL_OK)
      return st;
    for (size_t k = 0; k < n && st == TIDAL_OK; k++)
      st = fn(cs[k]);
    free(cs);
    return st;
  }
  size_t cb = rt_mem.chunk_bytes;
  for (size_t ci = off / cb; ci <= (off + len - 1) / cb; ci++)
    if ((st = fn(&a->chunks[ci])) != TIDAL_OK)
      return st;
  return TIDAL_OK;
}

/* One unit of an eviction hint on bytes [lo, hi) of it. */
static tidal_status evict_one(rt_chunk *c, size_t lo, size_t hi, int drop) {
  if (c->pins)
    return TIDAL_OK; /* in use by an open op: the hint is moot */
  int whole = lo == 0 && hi >= rt_chunk_len(c);
  if (!whole && (hi > UINT32_MAX || !rt_chunk_hint(c, (uint32_t)lo, (uint32_t)hi, drop)))
    return TIDAL_OK; /* part of it (hint offsets are 32-bit: a part of a huge unit waits) */
  if (drop && (whole || c->hint_drop_only))
    return rt_chunk_drop(c);
  return rt_chunk_swap_out(c, 0);
}

/* tidal_swap_out and tidal_drop: a chunk is evicted only once hints cover
 * all of it (Note [partial-chunk hints]): a hint never evicts bytes of a
 * neighbour that is still live. */
static tidal_status evict_hint(const char *name, const void *p, size_t bytes, int drop) {
  rt_alloc *a = NULL;
  size_t off = 0, len = 0;
  tidal_status st =
      hint_range(name, p, bytes, drop ? RT_HINT_DROP : RT_HINT_SWAP, &a, &off, &len);
  if (st != TIDAL_OK || len == 0)
    return st;
  if (a->reloc) { /* units: a part of one is remembered (Note [partial-chunk hints]) */
    rt_chunk **cs;
    size_t n;
    if ((st = hint_units(a, off, len, &cs, &n)) != TIDAL_OK)
      return st;
    for (size_t k = 0; k < n && st == TIDAL_OK; k++) {
      const rt_unit *u = rt_unit_ofc(cs[k]);
      size_t lo = off > u->lo ? off - u->lo : 0, hi = off + len - u->lo;
      if (hi > u->hi - u->lo)
        hi = u->hi - u->lo;
      if (hi > lo)
        st = evict_one(cs[k], lo, hi, drop);
    }
    free(cs);
    return st;
  }
  size_t cb = rt_mem.chunk_bytes;
  for (size_t ci = off / cb; ci <= (off + len - 1) / cb; ci++) {
    rt_chunk *c = &a->chunks[ci];
    size_t cs = ci * cb, lo = off > cs ? off - cs : 0, hi = off + len - cs;
    if (hi > cb)
      hi = cb;
    if (c->pins)
      continue; /* in use by an open op: the hint is moot */
    if (!rt_chunk_hint(c, (uint32_t)lo, (uint32_t)hi, drop))
      continue;
    int whole = lo == 0 && hi >= rt_chunk_len(c);
    if (drop && (whole || c->hint_drop_only))
      st = rt_chunk_drop(c);
    else
      st = rt_chunk_swap_out(c, 0);
    if (st != TIDAL_OK)
      return st;
  }
  return TIDAL_OK;
}

tidal_status tidal_swap_out(const void *ptr, size_t bytes) {
  return evict_hint("tidal_swap_out", ptr, bytes, 0);
}

tidal_status tidal_drop(const void *ptr, size_t bytes) {
  return evict_hint("tidal_drop", ptr, bytes, 1);
}

tidal_status tidal_prefetch(const void *ptr, size_t bytes) {
  rt_alloc *a = NULL;
  size_t off = 0, len = 0;
  tidal_status st = hint_range("tidal_prefetch", ptr, bytes, RT_HINT_PREFETCH, &a, &off, &len);
  if (st != TIDAL_OK || len == 0)
    return st;
  if (a->reloc) { /* its units (Note [prefetch batches]: one batch) */
    rt_chunk **cs;
    size_t n;
    if ((st = hint_units(a, off, len, &cs, &n)) != TIDAL_OK)
      return st;
    /* Note [prefetch order]: not while a run-time plan steers - it placed
     * its prefetches itself, and gates the hints to them */
    n = rt_pace_defer(cs, n, !rt_planner_steering());
    if (n)
      st = rt_prefetch_chunks(cs, n);
    free(cs);
    return st;
  }
  size_t cb = rt_mem.chunk_bytes, c1 = (off + len - 1) / cb;
  rt_chunk *batch[64];
  for (size_t ci = off / cb; ci <= c1;) { /* Note [prefetch batches] */
    size_t n = 0;
    while (ci <= c1 && n < 64)
      batch[n++] = &a->chunks[ci++];
    if ((st = rt_prefetch_chunks(batch, n)) != TIDAL_OK)
      return st;
  }
  return TIDAL_OK;
}

static tidal_status keep_chunk(rt_chunk *c) {
  rt_mem.evict->keep(c); /* the eviction policy's to honour */
  return TIDAL_OK;
}

tidal_status tidal_keep(const void *ptr, size_t bytes) {
  return for_chunks("tidal_keep", ptr, bytes, RT_HINT_KEEP, keep_chunk);
}

/* ---- relocatable allocations (Note [units], memory/units.c) ---- */

void *tidal_at(const void *p) {
  if (!rt_base.initialized || !p || !rt_mem.nreloc)
    return (void *)p; /* nothing relocates: the identity */
  int undeclared = 0;
  void *r = rt_units_at((uintptr_t)p, &undeclared);
  if (!undeclared)
    return r;
  for (size_t i = 0; i < rt_mem.nempty; i++)
    if (rt_mem.empty[i] == (uintptr_t)p)
      return r; /* an empty access of an open op: never dereferenced */
  const tidal_site *site = rt_mem.depth ? rt_mem.frames[rt_mem.depth - 1].site : NULL;
  RT_COUNT(undeclared_uses, 1);
  rt_set_error("tidal_at(%p)%s%s: inside a relocatable allocation but outside every access of "
               "the open ops; its stable address is returned and faults if used",
               p, site ? " in " : " outside any op", site ? site_label(site) : "");
  if (seen_site(&rt_mem.warned, &rt_mem.nwarned, site))
    return r;
  rt_log(2, "%s (warned once per op site)", tidal_last_error());
  return r;
}

tidal_status tidal_home(const void *p) {
  REQUIRE_INIT("tidal_home");
  if (!p)
    return TIDAL_OK;
  rt_alloc *a = rt_registry_find((uintptr_t)p);
  if (!a)
    return TIDAL_OK; /* not tidal's */
  tidal_status st;
  if (a->reloc) {
    if (rt_units_busy(a))
      return rt_error(TIDAL_ERR_INVALID, "tidal_home(%p): an open op (tidal_op_begin) uses it", p);
    st = rt_units_home(a);
    if (!a->reloc) /* chunked now: its footprint as a home allocation's */
      rt_mem.footprint_bytes = rt_mem.footprint_bytes - a->reserved + footprint(a->bytes);
    if (st != TIDAL_OK)
      return st;
    if (RT_TRACING())
      rt_trace("home", "\"ptr\":\"%#lx\",\"bytes\":%zu", (unsigned long)a->base, a->bytes);
  }
  /* Resident and pinned until the next op takes the pins (Note [home
   * residency], memory/homehold.c): what reaches it is not instrumented. */
  size_t units = 0, need = rt_home_need_bytes(a), held = rt_home_pinned_bytes(&units);
  if (!need)
    return TIDAL_OK; /* pinned already */
  if (need + held > rt_mem.budget_bytes && rt_pol.arb)
    (void)rt_arbiter_need(need + held); /* a shared budget: the others make room */
  held += units; /* units and chunks share the exact budget (Note [units]) */
  if (need + held - units > rt_mem.budget_bytes || (units && need + held > rt_mem.budget_exact))
    return rt_error(TIDAL_ERR_BUDGET,
                    "tidal_home(%p): the %zu-byte allocation at %#lx must be resident, all of "
                    "it (code the pass does not instrument uses it): its %zu bytes in whole "
                    "chunks and the %zu bytes pinned by %s exceed the %zu-byte budget",
                    p, a->bytes, (unsigned long)a->base, need, held,
                    rt_mem.depth ? "the open ops" : "earlier tidal_home calls since the last op",
                    rt_mem.budget_bytes);
  st = rt_home_hold(a);
  if (st == TIDAL_ERR_BUDGET)
    return rt_error(TIDAL_ERR_BUDGET,
                    "tidal_home(%p): the %zu-byte allocation at %#lx must be resident (code the "
                    "pass does not instrument uses it) but does not fit: %s",
                    p, a->bytes, (unsigned long)a->base, tidal_last_error());
  return st;
}

tidal_status tidal_recompute_register(const void *ptr, size_t bytes, tidal_recompute_fn fn,
                                      const void *ctx, size_t ctx_bytes) {
  REQUIRE_INIT("tidal_recompute_register");
  if (!fn || (ctx_bytes && !ctx))
    return rt_error(TIDAL_ERR_INVALID, "tidal_recompute_register(%p): fn or ctx is NULL", ptr);
  rt_alloc *a = NULL;
  size_t off = 0, len = 0;
  tidal_status st = resolve("tidal_recompute_register", NULL, ptr, bytes, 0, &a, &off, &len);
  if (st != TIDAL_OK)
    return st;
  rt_planner_hint(RT_HINT_RECOMPUTE, a, off, len); /* recorded; always runs */
  return rt_recompute_register(a->base + off, a->base + off + len, fn, ctx, ctx_bytes);
}
