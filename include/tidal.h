/* tidal.h - the libtidal runtime API.
 *
 * A rewritten training program (see `tidal rewrite`) calls these functions;
 * so can a person by hand.  Device pointers returned by tidal_malloc never
 * change while the memory behind them is evicted to host memory, dropped or
 * recomputed: the runtime reserves the address range once and maps physical
 * memory in and out of it.
 *
 * Thread model: one training thread - the one that called tidal_init -
 * calls the API; a call from another thread returns TIDAL_ERR_INVALID and
 * changes nothing.  In a child process forked after tidal_init every call
 * returns TIDAL_ERR_UNSUPPORTED.  The runtime's own copy threads (sim
 * backend) and CUDA callbacks are internal.  No function here is
 * thread-safe unless its comment says so.
 *
 * Every fallible call returns a tidal_status (TIDAL_OK == 0).  On failure
 * tidal_last_error() holds a message naming the call, the pointer and the
 * bytes involved.  The library never calls exit() or abort().
 *
 * Full reference: docs/runtime-api.md.
 */
#ifndef TIDAL_H
#define TIDAL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TIDAL_VERSION_MAJOR 0
#define TIDAL_VERSION_MINOR 1

/* Statuses.  Keep tidal_status_string() in runtime/base/status.c in sync. */
typedef enum tidal_status {
  TIDAL_OK = 0,
  TIDAL_ERR_INVALID,         /* a bad argument (NULL out-pointer, zero bytes, bad mode) */
  TIDAL_ERR_NOT_INITIALIZED, /* called before tidal_init or after tidal_shutdown */
  TIDAL_ERR_ALREADY_INITIALIZED,
  TIDAL_ERR_UNKNOWN_POINTER, /* pointer is inside no live tidal allocation */
  TIDAL_ERR_DOUBLE_FREE,     /* pointer was allocated by tidal but already freed */
  TIDAL_ERR_OUT_OF_BOUNDS,   /* an access runs past the end of its allocation */
  TIDAL_ERR_BUDGET,          /* one op's own working set is larger than the budget, or the
                                budget is below one chunk (tidal_init) */
  TIDAL_ERR_DEVICE_MEMORY,   /* the device has less free memory than the budget asks */
  TIDAL_ERR_HOST_MEMORY,     /* host store or host allocation failed, nothing was lost */
  TIDAL_ERR_BACKEND,         /* the CUDA driver/runtime failed; see tidal_last_error() */
  TIDAL_ERR_RECOMPUTE,       /* a recompute closure failed or recursed without end */
  TIDAL_ERR_UNSUPPORTED,     /* e.g. a call in a child forked after tidal_init (docs/runtime-api.md) */
  TIDAL_ERR_CONFIG           /* a malformed TIDAL_* environment variable */
} tidal_status;

/* Which device backend runs.  The policy code is shared by both. */
typedef enum tidal_device {
  TIDAL_DEVICE_DEFAULT = 0, /* TIDAL_DEVICE from the environment, else cuda */
  TIDAL_DEVICE_CUDA,        /* CUDA driver virtual memory management */
  TIDAL_DEVICE_SIM          /* CPU emulation: memfd chunks, PROT_NONE when evicted */
} tidal_device;

/* An opaque stream handle: a cudaStream_t on the CUDA backend (NULL is the
 * legacy default stream), ignored by the sim backend.  Kept as void* so this
 * header does not need the CUDA runtime header. */
typedef void *tidal_stream;

/* Who decides when to swap, prefetch, drop and recompute (TIDAL_PLANNER). */
typedef enum tidal_planner {
  TIDAL_PLANNER_DEFAULT = 0, /* TIDAL_PLANNER from the environment, else runtime */
  TIDAL_PLANNER_RUNTIME,     /* record an iteration, plan from it; hints are the cold start */
  TIDAL_PLANNER_HINTS,       /* run every build-time hint; LRU eviction does the rest */
  TIDAL_PLANNER_LRU          /* ignore swap/prefetch/drop/keep hints; LRU eviction only */
} tidal_planner;
/* A parsed size (tidal_parse_size): bytes, or a percentage of something. */
typedef enum tidal_size_kind {
  TIDAL_SIZE_BYTES = 0,     /* "512M", "8GiB", "4096B" */
  TIDAL_SIZE_PEAK_PERCENT,  /* "50%": of the program's peak memory */
  TIDAL_SIZE_DEVICE_PERCENT /* "50%dev": of the device memory free at tidal_init */
} tidal_size_kind;

typedef struct tidal_size {
  tidal_size_kind kind;
  uint64_t bytes; /* TIDAL_SIZE_BYTES */
  double percent; /* the percent kinds: 0 < percent <= 100 */
} tidal_size;

/* Parses a size as the tidal tool and the TIDAL_* variables write it:
 * decimal digits and a unit (B, K/KB/KiB, M/MB/MiB, G/.., T/..; every K is
 * 1024), "N%" (of the program's peak) or "N%dev" (of the device memory free
 * at tidal_init); spaces around the parts are allowed.  A bare number, a
 * fraction of a byte unit, hex, exponents, signs, nan/inf and overflow are
 * TIDAL_ERR_CONFIG with a message "'TEXT': why (hint)" in
 * tidal_last_error(); TIDAL_ERR_INVALID for a NULL out.  Thread-safe; does
 * not need tidal_init.  Syntax: docs/runtime-api.md, "Sizes". */
tidal_status tidal_parse_size(const char *text, tidal_size *out);

/* The sim backend's copy costs, as its cost model has them. */
typedef struct tidal_sim_copy_costs {
  double h2d_bytes_per_s; /* host to device, pinned */
  double d2h_bytes_per_s; /* device to host, pinned */
  double copy_latency_s;  /* per copy, issue to completion */
} tidal_sim_copy_costs;

/* Reads the sim backend's cost model as tidal_init would (the built-in
 * figures of runtime/sim_costs.txt with the file at path, NULL for none,
 * read over them) and returns its copy costs, so that a tool modelling the
 * same machine (`tidal replay --costs FILE`) uses the file's figures and
 * finds a bad file before it runs.  TIDAL_ERR_CONFIG with "PATH:LINE:
 * why" in tidal_last_error() for an unreadable file, a directory or device,
 * more than 64 KiB, a NUL or control byte, an unknown or repeated key, a
 * value that is not a plain decimal with its key's unit, out of range, or
 * followed by text (docs/runtime-design.md, "Cost model"); TIDAL_ERR_INVALID
 * for a NULL out.  Does not need tidal_init. */
tidal_status tidal_sim_copy_costs_read(const char *path, tidal_sim_copy_costs *out);

typedef struct tidal_config {
  tidal_device device;
  /* The device memory budget for evictable data: at most one of these three
   * is set; all 0 means all device memory free at tidal_init. */
  size_t budget_bytes;
  /* Of the program's peak, 0 < p <= 100: measured during the first
   * iteration (tidal_iteration_end), which runs limited only by the device;
   * the budget applies from then on. */
  double budget_percent;
  double budget_device_percent; /* of the device memory free at tidal_init, 0 < p <= 100 */
  size_t host_budget_bytes; /* cap on the pinned host store; 0 = 50% of host RAM */
  size_t chunk_bytes;       /* eviction unit; 0 = backend granularity (2 MiB) */
  const char *trace_path;   /* if set, a Chrome trace-event JSON file is written here */
  size_t trace_max_bytes;   /* 0 = no cap; else tracing stops (the JSON closed, a warning)
                               once the file passes this (TIDAL_TRACE_MAX) */
  int log_level;            /* 0 quiet, 1 errors, 2 warnings, 3 info, 4 debug */
  int stats;                /* nonzero: print a memory summary at tidal_shutdown (also at
                               log level 3 and above) */
  /* A budget shared with other processes on the same device (see
   * docs/runtime-api.md, "Shared budgets"); 0 = none.  budget_bytes /
   * budget_percent then cap this process's share. */
  size_t shared_budget_bytes;
  const char *shared_name;  /* names the group sharing it; NULL = one per device and user */
  /* Sim backend only. */
  size_t sim_device_bytes;       /* emulated device capacity; 0 = 16 GiB */
  double sim_h2d_bytes_per_s;    /* 0 = the cost model's (runtime/device/sim_costs.txt:
                                    54e9, an H100 on PCIe Gen5 x16, pinned) */
  double sim_d2h_bytes_per_s;    /* 0 = the cost model's (54e9) */
  double sim_copy_latency_s;     /* 0 = the cost model's (7.5e-6 per copy) */
  int sim_synchronous;           /* nonzero: copies run inline, no worker thread */
  /* Sim backend, nonzero: copies move no bytes (the modelled clock is the
   * same; the memory's contents are not kept).  For runs that need only
   * the costs (`tidal rewrite`'s figure, `tidal fit`): no host memory is
   * touched for the data, whatever the program's size. */
  int sim_no_data;
  /* Pinned at tidal_init for the host store: what the swaps need (from the
   * plan or a recorded run); 0 = 64 MiB, growing by doubling later.  Bounded
   * by host_budget_bytes. */
  size_t host_reserve_bytes;
  /* If set, per-op-site durations are written here at tidal_shutdown (CUDA:
   * measured with events; sim: modelled); `tidal replay --profile` reads it. */
  const char *profile_path;
  /* Sim backend: the cost model file (docs/runtime-design.md, "Cost model");
   * NULL = the built-in defaults (runtime/device/sim_costs.txt). */
  const char *sim_costs_path;
  /* Sim backend: multiplies the per-chunk driver-call costs (map, access,
   * unmap, events, copy issue); 0 = 1.  `tidal replay --chunk 4K` uses
   * chunk / 2 MiB so that emulating small chunks costs what 2 MiB would. */
  double sim_call_cost_scale;
  /* Sim backend: what the program's host pays at particular op sites
   * (`tidal replay` fills it from a profile and the op's library call);
   * n entries, each site's object as passed to tidal_op_begin.  Sites not
   * listed launch for the cost model's launch_s and do not wait. */
  const struct tidal_sim_site *sim_sites;
  int n_sim_sites;
  /* Sim backend: nonzero when the program waits for the device once an
   * iteration (a cudaDeviceSynchronize in its training loop): at
   * tidal_iteration_end the host waits, with 1 for every op and copy issued
   * so far, tidal's own copies included (cudaDeviceSynchronize as written),
   * with 2 for the ops only (what the rewrite makes of it:
   * tidal_device_synchronize).  `tidal replay` sets it from the source. */
  int sim_device_sync_per_iteration;
  tidal_planner planner;         /* TIDAL_PLANNER_DEFAULT: the environment, else runtime */
  int planner_feedback_off;      /* nonzero: the run-time plan does not learn from iterations */
  /* Nonzero: the driver's virtual-memory calls (map, set-access, unmap)
   * and copy issues run in order on a worker thread instead of the calling
   * thread; tidal_op_begin still returns only once its chunks are mapped
   * (docs/runtime-design.md, "The VMM worker").  0 = off (the default
   * until measured on a GPU).  TIDAL_VMM_THREAD. */
  int vmm_thread;
  /* Nonzero: every allocation stays at home, TIDAL_GROUP_RELOCATABLE is
   * ignored (A/B runs, a fallback).  TIDAL_RELOCATE=0. */
  int relocate_off;
  /* Nonzero: a prefetch hint on a relocatable tensor is issued where the
   * program calls it, never deferred to the order the tensors are needed
   * in (docs/runtime-design.md, "Prefetches in need order"; A/B runs).
   * TIDAL_PREFETCH_ORDER=0. */
  int prefetch_order_off;
} tidal_config;

/* Sim backend, one op site's host costs (tidal_config.sim_sites). */
typedef struct tidal_sim_site {
  const struct tidal_site *site;
  double launch_seconds; /* host time of the program's launch of the op (its launch call and
                            tidal_op_end), measured: a TIDAL_PROFILE's launch column;
                            0 = the cost model's launch_s */
  unsigned flags;        /* TIDAL_SIM_SITE_* */
} tidal_sim_site;

/* The call returns only once the device has run it and all work before it
 * (cudaMemcpy to or from the host): the host waits for the device. */
#define TIDAL_SIM_SITE_HOST_SYNC 1u

/* Fills *cfg with defaults (all zeros mean "backend default"). */
void tidal_config_default(tidal_config *cfg);

/* Reads TIDAL_DEVICE, TIDAL_BUDGET (a size: "8G", "50%", "50%dev"),
 * TIDAL_HOST_BUDGET, TIDAL_CHUNK, TIDAL_TRACE, TIDAL_LOG, TIDAL_STATS,
 * TIDAL_SHARED_BUDGET, TIDAL_SHARED_NAME, TIDAL_PLANNER, TIDAL_PLANNER_FEEDBACK,
 * TIDAL_HOST_RESERVE, TIDAL_PROFILE, TIDAL_SIM_COSTS, TIDAL_VMM_THREAD, TIDAL_RELOCATE into *cfg,
 * leaving fields
 * whose variable is unset untouched (TIDAL_BUDGET replaces all three budget
 * fields).  Returns TIDAL_ERR_CONFIG for a
 * malformed value, naming the variable.  Thread-safe if nobody changes the
 * environment meanwhile. */
tidal_status tidal_config_from_env(tidal_config *cfg);

/* Sets the budget fields of *cfg from a size text ("512M", "50%",
 * "50%dev"), clearing the other two.  A program built by `tidal rewrite`
 * compiles its plan's budget in this way and then calls
 * tidal_config_from_env, so TIDAL_BUDGET overrides it.  TIDAL_ERR_CONFIG
 * (malformed, or 0 bytes), TIDAL_ERR_INVALID (NULL). Thread-safe. */
tidal_status tidal_config_set_budget(tidal_config *cfg, const char *text);

/* Starts the runtime.  cfg == NULL: defaults, then the environment.  Blocks.
 * Returns TIDAL_ERR_ALREADY_INITIALIZED, TIDAL_ERR_CONFIG, TIDAL_ERR_BACKEND,
 * TIDAL_ERR_DEVICE_MEMORY, TIDAL_ERR_HOST_MEMORY, TIDAL_ERR_UNSUPPORTED, and
 * TIDAL_ERR_BUDGET when the budget is below one chunk (TIDAL_CHUNK). */
tidal_status tidal_init(const tidal_config *cfg);

/* Frees everything tidal holds.  Blocks until copies finish.  Safe to call
 * when not initialised (returns TIDAL_ERR_NOT_INITIALIZED, does nothing). */
tidal_status tidal_shutdown(void);

/* Blocks until every swap-out and prefetch in flight has completed and
 * swapped-out chunks have released their device memory.  Not needed for
 * correctness (tidal_op_begin waits for what it needs); useful in tests and
 * before measuring.  TIDAL_ERR_NOT_INITIALIZED, TIDAL_ERR_BACKEND. */
tidal_status tidal_synchronize(void);

/* What the program's cudaDeviceSynchronize becomes in rewritten code
 * (TIDAL_CUDA_DEVICE_SYNCHRONIZE, tidal/rewrite.h): blocks until the work
 * the program enqueued has finished - the legacy default stream, which
 * waits for every blocking stream, and the stream set with
 * tidal_stream_set - but not tidal's own copies between the device and the
 * host store, which the program cannot observe (a swap-out only reads
 * memory the program has finished with).  So a step that ends in a device
 * sync does not wait for the swap-outs issued after its last ops; they
 * overlap the next step.  Work on a stream that does not block on the
 * legacy stream (cudaStreamNonBlocking) and is not the one set is not
 * waited for: the rewrite keeps cudaDeviceSynchronize in programs that
 * create such streams.  TIDAL_ERR_NOT_INITIALIZED, TIDAL_ERR_BACKEND. */
tidal_status tidal_device_synchronize(void);

/* Pins host memory for the host store now, until it holds at least `bytes`
 * (bounded by the host budget), so that no swap-out pays for pinning.
 * TIDAL_ERR_HOST_MEMORY if the host refuses (what was pinned is kept). */
tidal_status tidal_host_reserve(size_t bytes);

/* Nonzero if tidal_init succeeded and tidal_shutdown has not run. */
int tidal_is_initialized(void);

/* Drop-in for cudaMalloc: *p receives a device pointer valid until
 * tidal_free, whatever is evicted meanwhile.  Contents start undefined and
 * not resident (the first write maps memory).  Allocations smaller than a
 * chunk are packed, in allocation order, into shared chunks (slabs) that
 * are evicted and restored as one unit. */
tidal_status tidal_malloc(void **p, size_t bytes);

/* tidal_malloc, packing an allocation smaller than a chunk only with others
 * of the same nonzero `group` (group 0 is tidal_malloc's allocation order).
 * The pass gives allocations that the same ops use one group, so an op's
 * small operands share few slabs.  Same statuses as tidal_malloc. */
tidal_status tidal_malloc_grouped(void **p, size_t bytes, unsigned group);

/* A group with this bit set is an arena (Note [arenas], runtime/memory/arena.c):
 * its members, of any size, are laid out one after another in allocation
 * order (256-byte aligned) in one reserved range, so they share chunks at
 * their boundaries: the small partners of a tensor that is not a whole
 * number of chunks sit in its last chunk's tail (or it starts in theirs)
 * instead of in chunks of their own.  One arena holds at most
 * TIDAL_ARENA_CHUNKS chunks; a member that does not fit in the group's
 * current arena opens another, and one bigger than half of that is a plain
 * allocation.  The pass gives this bit only to allocations that the same
 * ops use and that live until the end of the step loop. */
#define TIDAL_GROUP_ARENA 0x80000000u
#define TIDAL_ARENA_CHUNKS 64u

/* A group with this bit set is relocatable (docs/runtime-design.md,
 * "Relocatable tensors"): the caller promises that every device use of an
 * address inside the allocation is an argument of an op declared with
 * tidal_op_begin and passed through tidal_at()/TIDAL_AT() between that op's
 * begin and end.  The runtime may then keep the bytes anywhere in its device
 * pool and move them with plain copies (no driver mapping call).  The
 * pointer tidal_malloc returns is a stable name: reserved and never mapped
 * while the allocation is relocated, so a stray use faults.  The other bits
 * are the packing group as for tidal_malloc_grouped; the bit wins over
 * TIDAL_GROUP_ARENA.  Ignored (the allocation stays at home) with
 * TIDAL_RELOCATE=0 and under a shared budget (docs/limitations.md). */
#define TIDAL_GROUP_RELOCATABLE 0x40000000u

/* Drop-in for cudaFree.  NULL is a no-op.  Waits for pending copies of the
 * allocation.  TIDAL_ERR_UNKNOWN_POINTER / TIDAL_ERR_DOUBLE_FREE. */
tidal_status tidal_free(void *p);

/* Whether p is the start of a live tidal allocation (what tidal_free takes):
 * 0 before tidal_init, for NULL and for any other pointer.  The rewriter's
 * TIDAL_CUDA_FREE uses it where a cudaFree's pointer is not known to be
 * tidal's (a free in a template helper, llm.c's cudaFreeCheck). */
int tidal_owns(const void *p);

typedef enum tidal_mode {
  TIDAL_READ = 1,
  TIDAL_WRITE = 2, /* every declared byte is overwritten before it is read */
  TIDAL_READWRITE = 3
} tidal_mode;

/* An access whose length the analysis could not bound: from the pointer to
 * the end of its allocation. */
#define TIDAL_EXTENT_UNKNOWN ((size_t)-1)

/* The larger of two extents: what the rewriter declares when the calls
 * reaching an op site give different ones (each argument evaluated once). */
static inline size_t tidal_size_max(size_t a, size_t b) { return a > b ? a : b; }

typedef struct tidal_access {
  const void *ptr; /* device pointer inside a tidal allocation */
  size_t bytes;    /* or TIDAL_EXTENT_UNKNOWN */
  tidal_mode mode;
} tidal_access;

/* Identity of an op site in the source; the rewriter emits one static
 * instance per site. */
typedef struct tidal_site {
  const char *label; /* "matmul_forward -> cublasSgemm" */
  const char *file;
  int line;
  double est_seconds; /* modelled duration (sim clock and policy), 0 = unknown */
} tidal_site;

/* Makes every byte of every access resident and current before the op's
 * work is enqueued on the current stream (tidal_stream_set): restores
 * evicted chunks (counted as faults when no prefetch was issued), waits for
 * in-flight prefetches with a stream wait, re-runs recompute closures, and
 * evicts least-recently-used unpinned chunks to stay under the budget.
 * The accessed chunks stay pinned until tidal_op_end(site).
 * Returns TIDAL_ERR_BUDGET (message names the site and bytes) when the op's
 * own working set exceeds the budget; TIDAL_ERR_UNKNOWN_POINTER,
 * TIDAL_ERR_OUT_OF_BOUNDS, TIDAL_ERR_INVALID, TIDAL_ERR_BACKEND. */
tidal_status tidal_op_begin(const tidal_site *site, int n, const tidal_access *acc);

/* Ends the op begun with the same site: unpins its chunks and records the
 * op's completion (an event on the current stream) so that a later swap-out
 * waits for it.  Written chunks become dirty (their host copy is stale). */
tidal_status tidal_op_end(const tidal_site *site);

/* The device address an op must use for p: valid from the enclosing op's
 * tidal_op_begin to its tidal_op_end.  p itself for memory tidal does not
 * relocate (home allocations, host pointers, NULL, non-tidal memory).  p may
 * be one past the end of a declared access; an empty access's pointer
 * resolves to itself.  A p inside a relocatable
 * allocation but outside every access of the open ops is an error (it sets
 * tidal_last_error, counts undeclared_uses, warns once per op site) and
 * returns p, whose use then faults.  Never blocks; O(log n).  Callable
 * before tidal_init (the identity). */
void *tidal_at(const void *p);

/* The allocation holding p stays at its own (stable) address from now on:
 * its address escapes what the pass sees (stored in a struct or in device
 * memory, kept by a library).  Its bytes are copied there from wherever they
 * are.  Code no op declares uses it next, so all of it is made resident now
 * (restored as a fault would: blocks for the copies in) and pinned - until
 * the next tidal_op_begin (or tidal_free, tidal_shutdown) when called
 * outside any op, until the open op's tidal_op_end when called inside one -
 * and counts as written.  Idempotent; TIDAL_OK for non-tidal memory and
 * NULL.  TIDAL_ERR_INVALID while an open op uses a relocatable allocation;
 * TIDAL_ERR_BUDGET when its chunks do not fit beside what is pinned (the
 * message says so); TIDAL_ERR_BACKEND.  Nothing is lost on failure. */
tidal_status tidal_home(const void *p);

/* Sets the stream later ops are enqueued on (stream-ordered semantics). */
void tidal_stream_set(tidal_stream stream);

/* Iteration markers (the training loop body).  Stats are kept per
 * iteration; recompute registrations expire at tidal_iteration_end. */
tidal_status tidal_iteration_begin(void);
tidal_status tidal_iteration_end(void);

/* ---- Plan calls: hints.  The runtime may ignore them; correctness never
 * depends on them (tidal_op_begin restores whatever is missing). ---- */

/* Starts copying [ptr, ptr+bytes) to the host store after its last writer
 * and releases the device memory when the copy completes.  Asynchronous.
 * If the host store is full the data stays resident (or is dropped if a
 * recompute closure is registered for it).  Nothing is ever lost. */
tidal_status tidal_swap_out(const void *ptr, size_t bytes);

/* Starts restoring [ptr, ptr+bytes) to the device.  Asynchronous; the next
 * op touching it waits with a stream wait. */
tidal_status tidal_prefetch(const void *ptr, size_t bytes);

/* Declares the contents of [ptr, ptr+bytes) dead until next written: whole
 * chunks inside the range are released without a copy.  A later read before
 * any write sees unspecified (but mapped) memory.  Partial chunks at the
 * edges are kept. */
tidal_status tidal_drop(const void *ptr, size_t bytes);

/* Re-runs the producer of [ptr, ptr+bytes) instead of copying it.  fn is
 * called with a private copy of ctx (ctx_bytes are copied now) and the
 * stream to launch on; it must itself call tidal_op_begin/op_end around its
 * launch so that its inputs are restored first (recursively).  The
 * registration lasts until the range is next written by another op or the
 * iteration ends.  The runtime may drop the range instead of swapping it. */
typedef void (*tidal_recompute_fn)(void *ctx, tidal_stream stream);
tidal_status tidal_recompute_register(const void *ptr, size_t bytes, tidal_recompute_fn fn,
                                      const void *ctx, size_t ctx_bytes);

/* ---- Split ops ---- */

/* A launch the pass proved elementwise (thread i touches only element i of
 * each pointer argument, i < count) may run as several launches over
 * consecutive pieces, each pointer advanced by the piece's offset, so that
 * an op bigger than the budget (an optimizer step over every parameter)
 * still fits.  Returns the elements one piece covers: count itself when
 * the op is not split (no budget, the op's count * bytes_per_element is at
 * most half the budget, or tidal_init has not run), else a power-of-two
 * multiple of TIDAL_SPLIT_GRAIN (so pieces of an array that starts on a
 * chunk boundary do not straddle one).  bytes_per_element is the sum over the op's pointer
 * arguments of their element sizes.  Deterministic for a given budget. */
#define TIDAL_SPLIT_GRAIN ((size_t)65536)
size_t tidal_split_elements(size_t count, size_t bytes_per_element);
/* The same rule for a given budget in bytes (0: none), without the
 * runtime: what the build-time planner models. */
size_t tidal_split_elements_at(size_t count, size_t bytes_per_element, size_t budget);
/* The rule for pieces of whole grains of `grain` elements each (0 taken
 * as 1): tidal_split_elements_at is grain TIDAL_SPLIT_GRAIN. */
size_t tidal_split_at(size_t count, size_t bytes_per_element, size_t grain, size_t budget);
/* The same rule over a batch of n samples, a sample a grain: the samples
 * one piece of a cuDNN call covers (include/tidal/cudnn.h; n when it runs
 * whole).  bytes_per_sample is the sum over the call's tensors of one
 * sample's bytes. */
size_t tidal_split_batch(size_t n, size_t bytes_per_sample);

/* Asks that [ptr, ptr+bytes) stay resident until the iteration ends. */
tidal_status tidal_keep(const void *ptr, size_t bytes);

/* What a range of memory is to training.  Only observation uses it: the
 * trace's "resident by group" counter, which `tidal report` stacks. */
typedef enum tidal_group {
  TIDAL_GROUP_OTHER = 0,
  TIDAL_GROUP_PARAMETERS = 1,
  TIDAL_GROUP_OPTIMIZER = 2,   /* optimizer state (moments, master weights) */
  TIDAL_GROUP_GRADIENTS = 3,
  TIDAL_GROUP_ACTIVATIONS = 4,
  TIDAL_NGROUPS = 5
} tidal_group;

/* Names [ptr, ptr + bytes) (inside one tidal allocation) and gives it a
 * group.  Annotating the same range again replaces the name and group;
 * tidal_free forgets the annotations inside the freed allocation.
 * TIDAL_ERR_UNKNOWN_POINTER, TIDAL_ERR_OUT_OF_BOUNDS, TIDAL_ERR_INVALID. */
tidal_status tidal_annotate(const void *ptr, size_t bytes, const char *name, tidal_group group);

/* ---- Observation ---- */

typedef struct tidal_counters {
  uint64_t peak_resident_bytes; /* device bytes mapped, high-water mark */
  uint64_t swapped_out_bytes;   /* device -> host */
  uint64_t swapped_in_bytes;    /* host -> device (prefetch and fault-in) */
  uint64_t prefetched_bytes;    /* of swapped_in_bytes, restored by a prefetch */
  uint64_t dropped_bytes;       /* released without a copy */
  uint64_t drops;
  uint64_t recomputes;          /* closures re-run */
  uint64_t faults;              /* chunks restored synchronously by op_begin */
  uint64_t evictions;           /* chunks evicted by budget pressure (LRU) */
  double stall_seconds;         /* time the compute stream waited for data */
  double modelled_seconds;      /* sim backend: virtual clock advanced */
  /* Where the time goes: the host's time in map/unmap/set-access calls
   * (not the VMM worker's) and the host blocked waiting for the device, a
   * copy or the VMM worker (sim: modelled; CUDA: measured on the host's
   * clock), and, sim only (0 on CUDA), the compute stream idle before an
   * op: because the host had not launched it yet, or waiting for its
   * copies (stall_seconds sums each wait's own delay, so it can count one
   * idle span twice). */
  double modelled_vmm_seconds;
  double modelled_host_wait_seconds;
  double modelled_launch_wait_seconds;
  double modelled_copy_wait_seconds;
  uint64_t vmm_calls;           /* map + unmap + set-access driver calls */
  uint64_t reclaimed_chunks;    /* evicted chunks taken back from memory that still
                                   held them: no copy, no driver call */
  uint64_t rebound_chunks;      /* chunks given memory that was still mapped at their
                                   address from an earlier use: no driver call */
  /* The run-time planner (TIDAL_PLANNER=runtime): chunks it acted on by
   * kind, the build-time hints it ran or skipped, plans built, iterations
   * run on a plan and iterations that left it (their ops differed). */
  uint64_t planner_swap_outs;
  uint64_t planner_prefetches;
  uint64_t planner_drops;
  uint64_t planner_recomputes;  /* chunks released to their recompute closure */
  uint64_t hints_run;
  uint64_t hints_skipped;
  uint64_t plans_built;
  uint64_t plan_iterations;
  uint64_t off_plan_iterations;
  /* Iteration ends at which the planner blocked the host until the device
   * had run the iteration, to read its ops' durations: only to plan from a
   * new record (the first iteration, a changed steady state); in steady
   * state the durations are read later, once ready (Note [time marks]). */
  uint64_t timing_waits;
  /* Chunk copies started: device -> host (swap-outs, whether a hint, LRU
   * eviction or the run-time planner asked) and host -> device by a prefetch
   * (fault-ins are `faults`).  With `drops`, `recomputes` and `faults`,
   * one per action event of the trace (TIDAL_TRACE; docs/runtime-api.md,
   * "Trace"). */
  uint64_t swap_outs;
  uint64_t prefetches;
  /* Relocatable allocations (docs/runtime-design.md, "Relocatable
   * tensors"): bytes of their units moved by swap-out, prefetch, fault-in
   * or gather; bytes copied device to device (gathers, compaction,
   * tidal_home); pool compactions; gathers (accesses whose units were made
   * contiguous); tidal_at calls outside every open op's accesses; pool
   * growth steps (each a few driver calls on CUDA, never per move). */
  uint64_t relocated_bytes;
  uint64_t d2d_bytes;
  uint64_t compactions;
  uint64_t gathers;
  uint64_t undeclared_uses;
  uint64_t pool_grows;
  /* Device memory created: the chunk pool's physical chunks (free and
   * parked ones too) plus the device pool's mapped bytes, high-water mark.
   * Once relocatable allocations exist it stays within the budget plus one
   * growth step of the device pool (docs/runtime-design.md, "Physical
   * memory"); pool_shrinks: steps of the device pool given back, and
   * physical_overruns: times an op's own memory pinned in the way made it
   * create more than that (given back after the op). */
  uint64_t peak_physical_bytes;
  uint64_t pool_shrinks;
  uint64_t physical_overruns;
  /* Op accesses that ran past their allocation's end and were cut there
   * (a loose bound from the pass; runtime-api.md, tidal_op_begin). */
  uint64_t extents_clamped;
  /* Device-to-device copies (d2d_bytes is their bytes): each costs a fixed
   * time on the device, so gathers and compaction copy runs of adjacent
   * units at once. */
  uint64_t d2d_copies;
  /* The run-time planner: iterations that ran the build-time hints as
   * written instead of its plan (their trial, or because they measured
   * faster; docs/runtime-design.md, "Run-time planning"). */
  uint64_t hint_iterations;
  /* Prefetch hints on relocatable tensors whose use lay far ahead, held
   * back and issued in the order the tensors are needed in
   * (docs/runtime-design.md, "Prefetches in need order"). */
  uint64_t prefetches_deferred;
} tidal_counters;

typedef struct tidal_stats {
  uint64_t budget_bytes;
  uint64_t resident_bytes; /* now */
  uint64_t iterations;     /* completed tidal_iteration_end calls */
  tidal_counters total;
  tidal_counters last_iteration; /* the last completed iteration */
  uint64_t shared_budget_bytes;  /* a budget shared with other processes: its total, else 0 */
  uint64_t shared_peak_bytes;    /* the most device memory they all held at once, so far */
  uint64_t chunk_bytes;          /* the eviction unit this run uses (TIDAL_CHUNK, or the
                                    backend's default): sizes that depend on it read it here */
  uint64_t physical_bytes;       /* device memory created now (peak_physical_bytes) */
  uint64_t physical_limit_bytes; /* the bound it keeps once relocatable allocations exist
                                    (the budget plus one device-pool growth step), else 0 */
} tidal_stats;

tidal_status tidal_stats_get(tidal_stats *out);

/* A static, human-readable name for a status ("TIDAL_ERR_BUDGET: ..."). */
const char *tidal_status_string(tidal_status status);

/* The message of the last failing call on this thread ("" if none). */
const char *tidal_last_error(void);

#ifdef __cplusplus
}
/* TIDAL_AT(p): tidal_at keeping p's type (an array decays to a pointer). */
template <typename T> static inline T *tidal_at_typed(T *p) {
  return static_cast<T *>(tidal_at(static_cast<const void *>(p)));
}
#define TIDAL_AT(p) tidal_at_typed(p)
#else
#define TIDAL_AT(p) ((__typeof__(&*(p)))tidal_at((const void *)(p)))
#endif
#endif /* TIDAL_H */
