/* replay.c - the replay engine: one op trace, run through the real libtidal
 * API on the sim backend, once unmanaged and once under a plan.
 *
 * Design decisions:
 *  - The data oracle: an op's result is a hash of every byte it reads,
 *    seeded with (static op, dynamic index); its written ranges are filled
 *    from that hash.  Any byte that is stale, missing, dropped while live or
 *    wrongly recomputed changes the op's checksum and, through the data, the
 *    checksums of every later reader.  See Note [what the oracle catches].
 *  - Actions run where the rewritten program calls them (replay_place,
 *    from rewrite_place.c): next to their op, or before the first / after
 *    the last op of the enclosing call statement they are emitted at, with
 *    the range resolved by plan_resolve_ref at their op: the same rule the
 *    model uses and the value of the expression the rewriter emits.
 *    Actions the rewriter cannot emit do not run.
 *  - Only the ranges the loop reads before writing (plan_live_in) get initial
 *    data; the rest is first written by the ops, as in the real program.
 *  - Counters are deltas over the iterations, so the initial writes (which
 *    may exceed a budget and be evicted) do not count as the plan's work.
 *  - An op touching memory that tidal_op_begin did not make resident would
 *    raise SIGSEGV (the sim backend maps evicted chunks PROT_NONE).  The op
 *    body runs under sigsetjmp so that is reported as a failed run, not a
 *    crash.  The handler is installed only while a run is in progress.
 *  - The runtime is process-global, so one replay runs at a time; the engine
 *    pointer for recompute closures travels in the closure context.
 *
 * Note [what the oracle catches]
 * A planned swap that is not prefetched is repaired by fault-in (the
 * runtime's promise): results match, `faults` rises.  A drop of live data
 * leaves unspecified bytes: the next reader's hash differs.  A recompute
 * whose inputs changed produces different bytes: the re-run's hash differs
 * from the original's (recompute_mismatches) and so do later readers'. */
#define _POSIX_C_SOURCE 200809L
#include "replay/replay.h"

#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include "tidal.h"

/* Extra emulated device capacity beyond the trace's allocations. */
#define SIM_DEVICE_SLACK_BYTES ((uint64_t)256 << 20)
#define DEFAULT_REPLAY_CHUNK_BYTES ((uint64_t)2 << 20) /* the CUDA backend's chunk */
/* At most this many chunks over all allocations: the sim backend maps each
 * chunk separately, and the kernel allows about 65530 mappings a process
 * (vm.max_map_count).  Bigger models get bigger chunks. */
#define REPLAY_MAX_CHUNKS 24576u
#define REPLAY_MIN_CHUNK_BYTES ((uint64_t)4 << 10) /* --chunk's smallest */
#define DEFAULT_ITERATIONS 2
/* The chunk the CUDA backend evicts by default (the VMM granularity).  See
 * Note [latency per chunk]. */
#define REAL_CHUNK_BYTES ((uint64_t)2 << 20)

/* Note [latency per chunk]
 * Replay runs the runtime with the CUDA backend's 2 MiB chunks by default,
 * so that the sim pays what the GPU pays: the per-call costs of its cost
 * model (runtime/device/sim_costs.txt) are per chunk or per call.  With --chunk
 * smaller (residency closer to tensor boundaries, the plan's byte model),
 * the copy latency is scaled by chunk / 2 MiB: every byte pays the latency
 * share it would pay with 2 MiB chunks, and the per-chunk driver-call
 * costs likewise (tidal_config.sim_call_cost_scale).
 * With a measured cost file (--costs) and chunks of 2 MiB or more, the sim
 * copies at the file's bandwidths and latency, one latency per copy as on
 * the card (an 8 MiB chunk is one cudaMemcpyAsync there, not four); the
 * plan is still made with the pass's cost model, as `tidal rewrite` made
 * the card's.
 *
 * Note [budgets in chunks]
 * --budget N% is N% of the modelled unmanaged peak for the plan (bytes, as
 * `tidal rewrite` computes it).  The runtime holds whole chunks, so the
 * unmanaged run's peak is at least that; the managed run gets N% of the
 * unmanaged run's peak (runtime_budget_bytes), so that 100% holds every
 * chunk the program touches and 50% half of them, at any chunk size. */

/* Note [host costs per site]
 * When the step is paced by the host (remapping chunks between launches),
 * what each launch costs the host matters: the managed run's sites carry
 * the launch time a profile measured for the rewritten program (the
 * launch call and tidal_op_end; on the H200 7-9 us per kernel and 18-23 us
 * per cuBLAS call, against the 1.5 us cuMemsetD8Async of the cost file's
 * launch_s).  The unmanaged run stands for the original program and keeps
 * launch_s.  A call that returns only once the device has run it (a
 * cudaMemcpy to or from the host: libcalls' LIBCALL_HOST_SYNC) makes the
 * host wait in both runs (Note [host-synchronous ops], backend_sim.c). */

uint64_t replay_chunk_bytes(const tidal_trace *t, const replay_options *o) {
  uint64_t total = 0, c = o->chunk_bytes ? o->chunk_bytes : DEFAULT_REPLAY_CHUNK_BYTES;
  for (int a = 0; a < t->n_allocs; a++) total += t->allocs[a].bytes;
  while (!o->chunk_bytes && total / c > REPLAY_MAX_CHUNKS)
    c *= 2;
  /* Note [budgets in chunks], continued: a budget holds whole chunks, and
   * an op needs several at once.  When the budget is below replay's own
   * chunk (a small program at N% of its peak), the chunk becomes a
   * sixteenth of the budget, not below the runtime's smallest, 4 KiB; a
   * budget that holds a chunk keeps the chunk (the figures of larger
   * programs do not move).  An explicit --chunk above the budget is
   * refused before the run (cmd_replay.c). */
  if (!o->chunk_bytes && o->budget_bytes && !o->shared_budget_bytes && c > o->budget_bytes)
    while (c > o->budget_bytes / 16 && c > REPLAY_MIN_CHUNK_BYTES)
      c /= 2;
  return c;
}

int replay_break_parse(const char *s, replay_break *out) {
  if (strcmp(s, "skip-prefetch") == 0) { *out = REPLAY_BREAK_SKIP_PREFETCH; return 0; }
  if (strcmp(s, "drop-live") == 0) { *out = REPLAY_BREAK_DROP_LIVE; return 0; }
  if (strcmp(s, "split-no-advance") == 0) { *out = REPLAY_BREAK_SPLIT_NO_ADVANCE; return 0; }
  if (strcmp(s, "none") == 0) { *out = REPLAY_BREAK_NONE; return 0; }
  return -1;
}

void replay_options_default(replay_options *o) {
  memset(o, 0, sizeof *o);
  o->iterations = DEFAULT_ITERATIONS;
  o->planner = TIDAL_PLANNER_HINTS; /* the build-time plan's calls, nothing else */
  cost_model_default(&o->cost);
}

/* ---- the oracle's hash ---- */

static uint64_t mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}

static uint64_t hash_bytes(uint64_t h, const unsigned char *p, uint64_t n) {
  uint64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, p + i, 8);
    h = (h ^ w) * 0x100000001b3ull;
    h ^= h >> 29;
  }
  for (; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
  return mix64(h ^ n);
}

/* Fills [p, p+n) from seed; `pos` is the range's offset in its allocation,
 * so the bytes do not depend on how the range is split. */
/* Byte x of the fill is byte x % 8 of the word for x rounded down to 8, so
 * that the bytes at an offset are the same however a range is cut into
 * pieces (the runs cut the initial data differently: initial_piece). */
static unsigned char fill_byte(uint64_t seed, uint64_t x) {
  uint64_t w = mix64(seed + (x & ~(uint64_t)7) * 0x9e3779b97f4a7c15ull);
  return (unsigned char)(w >> (8 * (x & 7)));
}

static void fill_bytes(unsigned char *p, uint64_t n, uint64_t seed, uint64_t pos) {
  uint64_t i = 0;
  for (; i < n && (pos + i) % 8; i++) p[i] = fill_byte(seed, pos + i);
  for (; i + 8 <= n; i += 8)
    for (int b = 0; b < 8; b++) p[i + b] = fill_byte(seed, pos + i + b);
  for (; i < n; i++) p[i] = fill_byte(seed, pos + i);
}

/* ---- the engine ---- */

typedef struct engine {
  const tidal_trace *t;
  const plan_result *plan; /* NULL: unmanaged */
  const replay_options *o;
  replay_run *run;
  void **base;             /* per allocation: tidal_malloc's pointer */
  tidal_site *sites;       /* per trace op */
  tidal_sim_site *sim_sites; /* the sites with host costs of their own (Note [host costs
                                per site]), n_sim_sites of them */
  int n_sim_sites;
  uint64_t *sums;          /* per dynamic op: checksum (0 = not run yet) */
  const uint64_t *expect;  /* the unmanaged run's checksums, or NULL */
  int *recompute_mismatch;
  int **before, **after;   /* per trace op: (action, trace op its range is resolved at)
                              pairs to run before / after it, -1 terminated */
  int iteration;
  uint64_t chunk;          /* the runtime's chunk (piece_bytes) */
  tidal_status last_status; /* of the libtidal call a failure is about (run_fail) */
} engine;

typedef struct recompute_ctx {
  engine *e;
  int op;        /* trace op to re-run */
  int iteration; /* and the iteration it belongs to */
} recompute_ctx;

static sigjmp_buf segv_jmp;
static volatile sig_atomic_t segv_armed;

static void segv_handler(int sig) {
  if (segv_armed) siglongjmp(segv_jmp, sig);
  signal(sig, SIG_DFL);
  raise(sig);
}

#if defined(__GNUC__)
static void run_fail(engine *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#endif
static void run_fail(engine *e, const char *fmt, ...) {
  if (e->run->failed) return;
  e->run->failed = 1;
  e->run->status = e->last_status;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(e->run->error, sizeof e->run->error, fmt, ap);
  va_end(ap);
}

/* Access a of trace op `op` in iteration `it`: a stepped access (an input
 * sliced by the training loop's counter) touches that step's slice, as the
 * program does (unroll.c, Note [stepped accesses]). */
static void access_of(const engine *e, int op, int a, int it, tidal_access *out) {
  const trace_access *ac = &e->t->ops[op].acc[a];
  int al = e->t->tensors[ac->tensor].alloc;
  uint64_t off, bytes;
  trace_access_at(e->t, ac, it, &off, &bytes);
  out->ptr = (const unsigned char *)e->base[al] + off;
  out->bytes = (size_t)bytes;
  /* as the rewriter declares it: a write not proven to cover every byte
   * keeps the old bytes (TIDAL_WRITE would let the runtime map it fresh);
   * a periodic op's exact write is a write when it runs (Note [overwrites
   * across periodic branches], plan.c): replay runs it every iteration */
  out->mode = (tidal_mode)(ac->mode == ACCESS_WRITE && !ac->exact ? ACCESS_READWRITE : ac->mode);
  if (ac->run_exact_write) out->mode = TIDAL_WRITE;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* The median of v[1 .. n) (v[0], the cold start, alone when n is 1). */
static double median_after_first(double *v, int n) {
  if (!v || n <= 0) return 0;
  if (n == 1) return v[0];
  qsort(v + 1, (size_t)(n - 1), sizeof *v, cmp_double);
  int m = n - 1;
  return m % 2 ? v[1 + m / 2] : (v[m / 2] + v[1 + m / 2]) / 2;
}

/* Note [unknown extents]: an access whose extent the pass does not know
 * (an index read from memory: llm.c's encoder reads the rows of wte its
 * token ids name) is declared by the rewritten program as
 * TIDAL_EXTENT_UNKNOWN, from the pointer to the end of its allocation, and
 * the runtime makes all of that resident (and contiguous, for a
 * relocatable allocation: the whole parameter arena).  The trace bounds it
 * by its carved region (unroll.c), which is what the plan models and what
 * the oracle reads and writes (the op touches its region only; hashing
 * the rest would read neighbours the plan may rightly have dropped).
 * What replay declares to tidal_op_begin is what the program declares:
 * to the end of the allocation.  Before, replay declared the region: it
 * modelled llm.c cheaper than the card runs it (no whole-arena restore
 * at the encoder). */
static void declared(const engine *e, const trace_op *top, int a, tidal_access *acc) {
  const trace_access *ta = &top->acc[a];
  if (!ta->unknown_extent) return;
  int al = e->t->tensors[ta->tensor].alloc;
  size_t off = (size_t)((const unsigned char *)acc->ptr - (const unsigned char *)e->base[al]);
  size_t ab = (size_t)e->t->allocs[al].bytes;
  if (off < ab) acc->bytes = ab - off;
}

/* Hashes the bytes each read access declares into h, and fills each
 * written access from the result (positions relative to the allocation,
 * so the bytes do not depend on how the range is cut). */
static uint64_t hash_and_fill(const engine *e, const trace_op *top, const tidal_access *accp,
                              uint64_t h) {
  if (e->o->cost_only) return h; /* the seed: equal in both runs */
  for (int a = 0; a < top->n_acc; a++)
    if (accp[a].mode & TIDAL_READ) h = hash_bytes(h, tidal_at(accp[a].ptr), accp[a].bytes);
  for (int a = 0; a < top->n_acc; a++)
    if (accp[a].mode & TIDAL_WRITE)
      fill_bytes((unsigned char *)tidal_at(accp[a].ptr), accp[a].bytes, mix64(h + (uint64_t)a),
                 (uint64_t)((const unsigned char *)accp[a].ptr -
                            (const unsigned char *)e->base[e->t->tensors[top->acc[a].tensor].alloc]));
  return h;
}

/* Note [split-invariant oracle]
 * A split op (trace_op.split_count > 0) runs as pieces of
 * tidal_split_elements(count, bytes per element) elements, as the
 * rewritten program does; the unmanaged run, whose budget is the whole
 * emulated device, runs it whole.  The two must give the same checksum
 * exactly when every piece read the right bytes, so the oracle of a split
 * op works per block of trace_op.split_grain elements, the unit pieces are
 * made of (runtime/policy/split.c, Note [split size]: TIDAL_SPLIT_GRAIN for
 * a launch, one sample for a cuDNN call split over its batch, Note [batch
 * split]): block b's hash is seeded
 * with (static op, dynamic index, b) and folds in block b's bytes of every
 * read access; block b's bytes of every written access are filled from it;
 * the op's checksum is the sum of the blocks' mixed hashes, which does not
 * depend on the order or grouping of the blocks.  A block a piece read
 * stale (not restored, dropped, read before an earlier op wrote it) changes
 * its hash, its written bytes and so every later reader.  The last block
 * also covers any bytes of an access past count * element bytes, so both
 * runs hash every declared byte.  An access whose element size is 0 (not
 * elementwise) is declared whole in every piece and folded into every
 * block's seed. */
static void block_bytes(const trace_access *ta, uint64_t G, uint64_t bytes, uint64_t b,
                        uint64_t nblocks, uint64_t *from, uint64_t *to) {
  uint64_t eb = ta->split_elem_bytes, f = b * G * eb;
  uint64_t t = b + 1 == nblocks ? bytes : (b + 1) * G * eb;
  if (t > bytes) t = bytes;
  *from = f < t ? f : t;
  *to = t;
}

/* The split op's access that --break split-no-advance leaves at the first
 * piece's range: its first elementwise one; -1 when not breaking. */
static int stuck_access(const engine *e, const trace_op *top) {
  if (e->o->brk != REPLAY_BREAK_SPLIT_NO_ADVANCE) return -1;
  for (int a = 0; a < top->n_acc; a++)
    if (top->acc[a].split_elem_bytes) return a;
  return -1;
}

/* Blocks [b0, b1) of split op top (whole: its accesses as a whole): hashes
 * each block's reads, fills its writes, and returns the sum of the blocks'
 * mixed hashes (Note [split-invariant oracle]).  Access `stuck` uses blocks
 * from 0 instead of b0 (--break split-no-advance). */
static uint64_t hash_blocks(const engine *e, const trace_op *top, const tidal_access *whole,
                            uint64_t seed, uint64_t b0, uint64_t b1, int stuck) {
  uint64_t G = trace_split_grain(top), nblocks = (top->split_count + G - 1) / G, sum = 0;
  uint64_t h0 = seed; /* the accesses that are not elementwise, whole */
  if (e->o->cost_only) return seed * (b1 - b0); /* no data; linear, so pieces sum to the whole */
  /* every address through tidal_at, as the rewritten program's TIDAL_AT:
   * a relocated unit is wherever the runtime put it (a block's range is
   * inside the piece's declared access) */
  for (int a = 0; a < top->n_acc; a++)
    if (!top->acc[a].split_elem_bytes && (whole[a].mode & TIDAL_READ))
      h0 = hash_bytes(h0, tidal_at(whole[a].ptr), whole[a].bytes);
  for (uint64_t b = b0; b < b1; b++) {
    uint64_t h = mix64(h0 ^ mix64(b + 0x5b1d)), f, t;
    for (int a = 0; a < top->n_acc; a++) {
      if (!top->acc[a].split_elem_bytes || !(whole[a].mode & TIDAL_READ)) continue;
      block_bytes(&top->acc[a], G, whole[a].bytes, a == stuck ? b - b0 : b, nblocks, &f, &t);
      if (t > f) h = hash_bytes(h, tidal_at((const unsigned char *)whole[a].ptr + f), t - f);
    }
    for (int a = 0; a < top->n_acc; a++) {
      if (!(whole[a].mode & TIDAL_WRITE)) continue;
      unsigned char *p = (unsigned char *)whole[a].ptr;
      uint64_t pos = (uint64_t)(p - (unsigned char *)e->base[e->t->tensors[top->acc[a].tensor].alloc]);
      if (!top->acc[a].split_elem_bytes) { /* the same bytes from every block */
        fill_bytes(tidal_at(p), whole[a].bytes, mix64(h0 + (uint64_t)a), pos);
        continue;
      }
      block_bytes(&top->acc[a], G, whole[a].bytes, a == stuck ? b - b0 : b, nblocks, &f, &t);
      if (t > f) fill_bytes(tidal_at(p + f), t - f, mix64(h + (uint64_t)a), pos + f);
    }
    sum += mix64(h);
  }
  return sum;
}

/* hash_blocks under the SIGSEGV guard (its own function: nothing of the
 * caller's lives across the sigsetjmp); -1 if it touched memory that was
 * not resident. */
static int guarded_blocks(const engine *e, const trace_op *top, const tidal_access *whole,
                          uint64_t seed, uint64_t b0, uint64_t b1, int stuck, uint64_t *sum) {
  if (sigsetjmp(segv_jmp, 1) != 0) {
    segv_armed = 0;
    return -1;
  }
  segv_armed = 1;
  /* cost only: hash_blocks returns seed * blocks, so a split op's pieces
   * sum to the same figure in both runs however each cuts it */
  *sum += hash_blocks(e, top, whole, seed, b0, b1, stuck);
  segv_armed = 0;
  return 0;
}

/* Runs elements [o, o + l) of split op `op` (whole: its accesses as a
 * whole) as one piece: op_begin on the piece's ranges (piece: room for
 * them), the blocks' hashes, op_end.  Adds the blocks' hashes to *sum;
 * 0 on success. */
static int run_piece(engine *e, int op, const tidal_access *whole, tidal_access *piece,
                     uint64_t seed, uint64_t o, uint64_t l, uint64_t *sum) {
  const trace_op *top = &e->t->ops[op];
  uint64_t count = top->split_count, G = trace_split_grain(top);
  uint64_t nblocks = (count + G - 1) / G, b0 = o / G, b1 = (o + l + G - 1) / G;
  int stuck = stuck_access(e, top);
  for (int a = 0; a < top->n_acc; a++) {
    piece[a] = whole[a];
    if (!top->acc[a].split_elem_bytes) {
      declared(e, top, a, &piece[a]); /* Note [unknown extents] */
      continue;
    }
    uint64_t f, t, x, lag = a == stuck ? b0 : 0; /* blocks it lags behind */
    block_bytes(&top->acc[a], G, whole[a].bytes, b0 - lag, nblocks, &f, &x);
    block_bytes(&top->acc[a], G, whole[a].bytes, b1 - 1 - lag, nblocks, &x, &t);
    piece[a].ptr = (const unsigned char *)whole[a].ptr + f;
    piece[a].bytes = (size_t)(t - f);
  }
  tidal_status st = tidal_op_begin(&e->sites[op], top->n_acc, piece);
  if (st == TIDAL_ERR_BUDGET) { /* refused: the runtime's message names the op and sizes */
    e->last_status = st;
    run_fail(e, "%s", tidal_last_error());
    return -1;
  }
  if (st != TIDAL_OK) {
    e->last_status = st;
    run_fail(e, "op %d (%s): tidal_op_begin (elements %llu..%llu of %llu): %s: %s", op,
             top->label, (unsigned long long)o, (unsigned long long)(o + l),
             (unsigned long long)count, tidal_status_string(st), tidal_last_error());
    return -1;
  }
  if (guarded_blocks(e, top, whole, seed, b0, b1, stuck, sum) != 0)
    run_fail(e, "op %d (%s) touched memory that tidal_op_begin did not make resident "
             "(elements %llu..%llu of %llu)", op, top->label, (unsigned long long)o,
             (unsigned long long)(o + l), (unsigned long long)count);
  st = tidal_op_end(&e->sites[op]);
  if (st != TIDAL_OK && (e->last_status = st) != TIDAL_OK)
    run_fail(e, "op %d (%s): tidal_op_end: %s: %s", op, top->label, tidal_status_string(st),
             tidal_last_error());
  return e->run->failed ? -1 : 0;
}

/* Runs trace op `op` of iteration `it`: op_begin, read, hash, write,
 * op_end; a split op once per piece (Note [split-invariant oracle]).
 * Returns its checksum, 0 after a failure (recorded in the run); *pieces
 * (if not NULL) the op_begin/op_end pairs it took. */
static uint64_t run_op(engine *e, int op, int it, uint64_t *pieces) {
  const trace_op *top = &e->t->ops[op];
  tidal_access acc[96];
  tidal_access *accp = top->n_acc <= 32 ? acc : malloc(3 * (size_t)top->n_acc * sizeof *accp);
  if (!accp) { run_fail(e, "out of memory"); return 0; }
  for (int a = 0; a < top->n_acc; a++) access_of(e, op, a, it, &accp[a]);
  uint64_t h = 0;
  uint64_t dyn = (uint64_t)it * (uint64_t)e->t->n_ops + (uint64_t)op;
  uint64_t seed = mix64(((uint64_t)(unsigned)top->static_op << 32) ^ mix64(dyn + 1));
  if (pieces) *pieces = 1;
  if (top->split_count) {
    /* the same call the rewritten program makes (runtime/policy/split.c) */
    size_t eb = 0;
    for (int a = 0; a < top->n_acc; a++) eb += top->acc[a].split_elem_bytes;
    uint64_t count = top->split_count;
    uint64_t step = trace_split_grain(top) == 1 ? tidal_split_batch((size_t)count, eb)
                                       : tidal_split_elements((size_t)count, eb);
    if (step == 0) step = count;
    uint64_t sum = 0, n = 0;
    /* each piece is a launch over its share of the elements: the sim clock
     * charges it that share of the op's modelled duration (read at its
     * op_end), not the whole */
    double whole_s = e->sites[op].est_seconds;
    for (uint64_t o = 0; o < count && !e->run->failed; o += step, n++) {
      uint64_t l = count - o < step ? count - o : step;
      e->sites[op].est_seconds = whole_s * (double)l / (double)count;
      run_piece(e, op, accp, accp + top->n_acc, seed, o, l, &sum);
    }
    e->sites[op].est_seconds = whole_s;
    if (pieces) *pieces = n;
    h = e->run->failed ? 0 : (sum ? sum : 1); /* 0 means "not run" */
    goto out;
  }
  tidal_access *decl = accp + 2 * top->n_acc; /* Note [unknown extents] */
  for (int a = 0; a < top->n_acc; a++) {
    decl[a] = accp[a];
    declared(e, top, a, &decl[a]);
  }
  tidal_status st = tidal_op_begin(&e->sites[op], top->n_acc, decl);
  if (st == TIDAL_ERR_BUDGET) { /* refused: the runtime's message names the op and sizes */
    e->last_status = st;
    run_fail(e, "%s", tidal_last_error());
    goto out;
  }
  if (st != TIDAL_OK) {
    e->last_status = st;
    run_fail(e, "op %d (%s): tidal_op_begin: %s: %s", op, top->label, tidal_status_string(st),
             tidal_last_error());
    goto out;
  }
  int sig = sigsetjmp(segv_jmp, 1);
  if (sig == 0) {
    segv_armed = 1;
    h = hash_and_fill(e, top, accp, seed); /* cost only: the seed */
    segv_armed = 0;
  } else {
    segv_armed = 0;
    run_fail(e, "op %d (%s) touched memory that tidal_op_begin did not make resident", op,
             top->label);
    h = 0;
  }
  st = tidal_op_end(&e->sites[op]);
  if (st != TIDAL_OK && (e->last_status = st) != TIDAL_OK)
    run_fail(e, "op %d (%s): tidal_op_end: %s: %s", op, top->label, tidal_status_string(st),
             tidal_last_error());
  if (h == 0) h = 1; /* 0 means "not run" */
out:
  if (accp != acc) free(accp);
  return e->run->failed ? 0 : h;
}

static void recompute_closure(void *ctx, tidal_stream stream) {
  (void)stream;
  recompute_ctx *c = ctx;
  engine *e = c->e;
  uint64_t h = run_op(e, c->op, c->iteration, NULL); /* a split op re-runs in pieces */
  uint64_t dyn = (uint64_t)c->iteration * (uint64_t)e->t->n_ops + (uint64_t)c->op;
  e->run->recomputed_ops++;
  if (h && e->sums[dyn] && h != e->sums[dyn]) (*e->recompute_mismatch)++;
}

static void run_action(engine *e, const plan_action *pa, int op, int it) {
  int r = plan_resolve_ref(e->t, op, pa->ref_op);
  int a = r >= 0 ? plan_find_static_access(&e->t->ops[r], pa->ref_access) : -1;
  if (a < 0) return; /* the plan guarantees a match; nothing to do otherwise */
  tidal_access ac;
  access_of(e, r, a, it, &ac);
  tidal_status st = TIDAL_OK;
  const char *call = plan_kind_name(pa->kind);
  switch (pa->kind) {
  case PLAN_SWAP_OUT:
    if (e->o->brk == REPLAY_BREAK_DROP_LIVE && !pa->recomputed) {
      st = tidal_drop(ac.ptr, ac.bytes);
      call = "drop (broken plan)";
    } else {
      st = tidal_swap_out(ac.ptr, ac.bytes);
    }
    break;
  case PLAN_PREFETCH:
    if (e->o->brk == REPLAY_BREAK_SKIP_PREFETCH) return;
    st = tidal_prefetch(ac.ptr, ac.bytes);
    break;
  case PLAN_DROP: st = tidal_drop(ac.ptr, ac.bytes); break;
  case PLAN_KEEP: st = tidal_keep(ac.ptr, ac.bytes); break;
  case PLAN_RECOMPUTE: {
    recompute_ctx c = {e, r, it};
    st = tidal_recompute_register(ac.ptr, ac.bytes, recompute_closure, &c, sizeof c);
    break;
  }
  }
  if (st != TIDAL_OK) {
    e->run->hint_errors++;
    if (e->run->hint_errors == 1)
      fprintf(stderr, "tidal replay: warning: %s at op %d (%s): %s: %s\n", call, op,
              e->t->ops[op].label, tidal_status_string(st), tidal_last_error());
  }
}

/* Where the action placed at trace op i runs: i itself, or - placed at an
 * enclosing call statement - the first (BEFORE) or last (AFTER) op of that
 * call's execution: the ops next to i that run inside the call and come
 * before (after) X in program order.  A neighbour inside the call but not
 * before (after) X belongs to the next (previous) execution of the call. */
static int action_position(const engine *e, const plan_action *pa, const replay_place *pl, int i) {
  if (!pl || !pl->in_call) return i;
  const tidal_trace *t = e->t;
  int x = t->ops[i].static_op, j = i, n = e->o->n_static_ops;
  if (pa->where == PLAN_BEFORE) {
    while (j > 0) {
      int s = t->ops[j - 1].static_op;
      if (s < 0 || s >= n || !pl->in_call[s] || s >= x) break;
      j--;
    }
  } else {
    while (j + 1 < t->n_ops) {
      int s = t->ops[j + 1].static_op;
      if (s < 0 || s >= n || !pl->in_call[s] || s <= x) break;
      j++;
    }
  }
  return j;
}

typedef struct slot {
  int action; /* plan action */
  int ref_at; /* trace op it is keyed to (its range is resolved there) */
  int at;     /* trace op it runs next to */
  int after;  /* 1: after `at` */
  int level;  /* call level of its statement */
  int rank;   /* 0: recompute registration (emitted first at a statement), 1: others */
} slot;

/* The order the rewritten program makes calls that share a spot: calls
 * before a statement run outer (shallower) levels first, calls after it
 * inner levels first; at one statement, recompute registrations first (the
 * rewriter emits them first), then plan order. */
static int slot_cmp(const void *a, const void *b) {
  const slot *x = a, *y = b;
  if (x->at != y->at) return x->at - y->at;
  if (x->after != y->after) return x->after - y->after;
  if (x->level != y->level) return x->after ? y->level - x->level : x->level - y->level;
  if (x->rank != y->rank) return x->rank - y->rank;
  return x->action - y->action;
}

/* Per trace op, the plan actions run before / after it. */
static int index_actions(engine *e) {
  int N = e->t->n_ops;
  e->before = calloc((size_t)N, sizeof(int *));
  e->after = calloc((size_t)N, sizeof(int *));
  if (!e->before || !e->after) return -1;
  int na = e->plan ? e->plan->n_actions : 0;
  int *nb = calloc((size_t)N + 1, sizeof *nb), *nf = calloc((size_t)N + 1, sizeof *nf);
  slot *sl = NULL;
  int n_sl = 0, cap = 0, rc = -1;
  if (!nb || !nf) goto out;
  for (int i = 0; i < N; i++)
    for (int k = 0; k < na; k++) {
      const plan_action *pa = &e->plan->actions[k];
      const replay_place *pl = e->o->place ? &e->o->place[k] : NULL;
      if (pa->at_op != e->t->ops[i].static_op || (pl && !pl->run)) continue;
      if (n_sl == cap) {
        cap = cap ? cap * 2 : 64;
        slot *v = realloc(sl, (size_t)cap * sizeof *v);
        if (!v) goto out;
        sl = v;
      }
      slot *q = &sl[n_sl++];
      q->action = k;
      q->ref_at = i;
      q->at = action_position(e, pa, pl, i);
      q->after = pa->where != PLAN_BEFORE;
      q->level = pl ? pl->level : 0;
      q->rank = pa->kind == PLAN_RECOMPUTE ? 0 : 1;
      if (q->after) nf[q->at]++;
      else nb[q->at]++;
    }
  if (n_sl > 1) qsort(sl, (size_t)n_sl, sizeof *sl, slot_cmp);
  for (int i = 0; i < N; i++) {
    e->before[i] = malloc((size_t)(2 * nb[i] + 1) * sizeof(int));
    e->after[i] = malloc((size_t)(2 * nf[i] + 1) * sizeof(int));
    if (!e->before[i] || !e->after[i]) goto out;
    nb[i] = nf[i] = 0;
  }
  for (int q = 0; q < n_sl; q++) {
    int *list = sl[q].after ? e->after[sl[q].at] : e->before[sl[q].at];
    int *n = sl[q].after ? &nf[sl[q].at] : &nb[sl[q].at];
    list[2 * *n] = sl[q].action;
    list[2 * *n + 1] = sl[q].ref_at;
    ++*n;
  }
  for (int i = 0; i < N; i++) {
    e->before[i][2 * nb[i]] = -1;
    e->after[i][2 * nf[i]] = -1;
  }
  rc = 0;
out:
  free(nb);
  free(nf);
  free(sl);
  return rc;
}

static void engine_free(engine *e) {
  for (int i = 0; e->before && i < e->t->n_ops; i++) free(e->before[i]);
  for (int i = 0; e->after && i < e->t->n_ops; i++) free(e->after[i]);
  free(e->before);
  free(e->after);
  free(e->sites);
  free(e->sim_sites);
  free(e->base);
}

static uint64_t total_alloc_bytes(const tidal_trace *t) {
  uint64_t s = 0;
  for (int a = 0; a < t->n_allocs; a++) s += t->allocs[a].bytes;
  return s;
}

/* Note [initial data in tensors]: the live-in ranges are written before
 * the loop in pieces cut where the program's tensors begin and end, and
 * under a budget at most a quarter of it each.  A relocatable allocation's
 * units are cut by every access's ends and never merge (Note [units] in
 * runtime/memory/units.c): pieces of one chunk made llm.c's 124M
 * activations thousands of 2 MiB units that the program itself never cuts,
 * and each whole-tensor access then gathered hundreds of them. */
static uint64_t initial_piece(const engine *e, int alloc, uint64_t at, uint64_t left,
                              uint64_t budget) {
  uint64_t n = left;
  for (int k = 0; k < e->t->n_tensors; k++) {
    const trace_tensor *tt = &e->t->tensors[k];
    if (tt->alloc != alloc || !tt->bytes) continue;
    uint64_t lo = tt->offset, hi = tt->offset + tt->bytes;
    if (lo > at && lo - at < n) n = lo - at;
    if (hi > at && hi - at < n) n = hi - at;
  }
  uint64_t cap = budget / 4 / e->chunk * e->chunk;
  if (budget && n > (cap ? cap : e->chunk)) n = cap ? cap : e->chunk;
  return n;
}

/* Hash of the live-in ranges (the state the next iteration needs). */
/* The live-in ranges are written before the loop and read after it one
 * chunk at a time, not in one access: the program filled them by copies
 * the runtime could evict in between, and an input the steps slice
 * (graph/unroll.c, Note [stepped accesses]) may alone exceed the budget.
 * The bytes of a piece starting at `at`, of `left` still to go: to the
 * next chunk boundary of the allocation.  Both runs use the same chunk,
 * so they hash the same pieces. */
static uint64_t piece_bytes(const engine *e, uint64_t at, uint64_t left) {
  uint64_t n = e->chunk - at % e->chunk;
  return n < left ? n : left;
}

static uint64_t state_hash(engine *e, const plan_range *li, int n_li) {
  uint64_t h = 0x5eed;
  if (e->o->cost_only) return h;
  for (int k = 0; k < n_li && !e->run->failed; k++) {
    for (uint64_t done = 0; done < li[k].bytes && !e->run->failed;) {
      uint64_t at = li[k].offset + done, n = piece_bytes(e, at, li[k].bytes - done);
      tidal_access ac = {(const unsigned char *)e->base[li[k].alloc] + at, (size_t)n, TIDAL_READ};
      tidal_site site = {"replay: final state", "replay", 0, 0};
      tidal_status st = tidal_op_begin(&site, 1, &ac);
      if (st != TIDAL_OK) {
        run_fail(e, "final state read: %s: %s", tidal_status_string(st), tidal_last_error());
        break;
      }
      if (!e->o->cost_only) h = hash_bytes(h, tidal_at(ac.ptr), ac.bytes);
      tidal_op_end(&site);
      done += n;
    }
  }
  return h;
}

/* One run.  sums[iterations * n_ops] receives the checksums. */
static int one_run(const tidal_trace *t, const plan_result *plan, const replay_options *o,
                   uint64_t budget, uint64_t *sums, const uint64_t *expect, replay_run *run,
                   int *recompute_mismatch, const plan_range *li, int n_li,
                   uint64_t *final_state) {
  engine E;
  memset(&E, 0, sizeof E);
  memset(run, 0, sizeof *run);
  E.t = t;
  E.plan = plan;
  E.o = o;
  E.run = run;
  E.sums = sums;
  E.expect = expect;
  E.recompute_mismatch = recompute_mismatch;
  int N = t->n_ops, iters = o->iterations > 0 ? o->iterations : DEFAULT_ITERATIONS;
  int started = 0;
  struct sigaction sa, old_segv, old_bus;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = segv_handler;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, &old_segv);
  sigaction(SIGBUS, &sa, &old_bus);

  E.base = calloc((size_t)(t->n_allocs ? t->n_allocs : 1), sizeof(void *));
  E.sites = calloc((size_t)(N ? N : 1), sizeof(tidal_site));
  E.sim_sites = calloc((size_t)(N ? N : 1), sizeof(tidal_sim_site));
  if (!E.base || !E.sites || !E.sim_sites || index_actions(&E) != 0) {
    run_fail(&E, "out of memory");
    goto out;
  }
  for (int i = 0; i < N; i++) {
    E.sites[i].label = t->ops[i].label;
    E.sites[i].file = "trace";
    E.sites[i].line = t->ops[i].static_op;
    E.sites[i].est_seconds = plan_op_seconds(t, i, &o->cost);
    int so = t->ops[i].static_op; /* Note [host costs per site] */
    tidal_sim_site *ss = &E.sim_sites[E.n_sim_sites];
    ss->site = &E.sites[i];
    if (expect && o->op_launch_s && so >= 0 && so < o->n_static_ops && o->op_launch_s[so] > 0)
      ss->launch_seconds = o->op_launch_s[so];
    if (o->op_host_sync && so >= 0 && so < o->n_static_ops && o->op_host_sync[so])
      ss->flags |= TIDAL_SIM_SITE_HOST_SYNC;
    if (ss->launch_seconds > 0 || ss->flags) E.n_sim_sites++;
  }
  tidal_config cfg;
  tidal_config_default(&cfg);
  uint64_t total = total_alloc_bytes(t);
  cfg.device = TIDAL_DEVICE_SIM;
  cfg.sim_device_bytes = (size_t)(2 * total + SIM_DEVICE_SLACK_BYTES);
  /* The emulated device holds any budget it is given: a budget above what
   * the program needs is simply not binding (docs/replay.md). */
  if (budget > cfg.sim_device_bytes) cfg.sim_device_bytes = (size_t)budget;
  cfg.budget_bytes = (size_t)(budget ? budget : cfg.sim_device_bytes);
  cfg.host_budget_bytes = (size_t)(2 * total + SIM_DEVICE_SLACK_BYTES);
  cfg.chunk_bytes = (size_t)replay_chunk_bytes(t, o);
  /* Pin the host store at tidal_init for what cannot be on the device at
   * once, as a rewritten program would (Note [host store sizing]), so that
   * the iterations do not pay for pinning.  It still grows if that is short. */
  if (budget && total > budget)
    cfg.host_reserve_bytes = (size_t)(total - budget);
  cfg.sim_costs_path = o->sim_costs_path;
  if (!o->sim_costs_path || cfg.chunk_bytes < REAL_CHUNK_BYTES) {
    cfg.sim_h2d_bytes_per_s = o->cost.h2d_bytes_per_s;
    cfg.sim_d2h_bytes_per_s = o->cost.d2h_bytes_per_s;
    cfg.sim_copy_latency_s =
        o->cost.copy_latency_s * (double)cfg.chunk_bytes / (double)REAL_CHUNK_BYTES;
    if (cfg.sim_copy_latency_s <= 0) cfg.sim_copy_latency_s = 1e-12; /* 0 means "default" */
  } /* else a measured cost file's copy figures, one latency per copy (Note [latency per chunk]) */
  if (cfg.chunk_bytes < REAL_CHUNK_BYTES) /* Note [latency per chunk] */
    cfg.sim_call_cost_scale = (double)cfg.chunk_bytes / (double)REAL_CHUNK_BYTES;
  cfg.sim_sites = E.sim_sites;
  cfg.n_sim_sites = E.n_sim_sites;
  /* quiet: every failing call is reported by replay itself, with its op
   * (run_fail, the first hint error), not twice */
  cfg.log_level = 0;
  cfg.sim_no_data = o->cost_only; /* Note [one model of cost] */
  cfg.planner = o->planner;
  cfg.vmm_thread = o->vmm_thread;
  cfg.prefetch_order_off = o->prefetch_order_off;
  cfg.sim_device_sync_per_iteration = o->device_sync;
  if (expect && o->shared_budget_bytes) { /* the managed run of several programs */
    cfg.shared_budget_bytes = (size_t)o->shared_budget_bytes;
    cfg.shared_name = o->shared_name;
  }
  if (expect && o->trace_path) cfg.trace_path = o->trace_path;
  tidal_status st = tidal_init(&cfg);
  if (st != TIDAL_OK) {
    E.last_status = st;
    run_fail(&E, "tidal_init: %s: %s", tidal_status_string(st), tidal_last_error());
    goto out;
  }
  started = 1;
  for (int a = 0; a < t->n_allocs; a++) {
    /* as the rewriter emits it (Note [relocatable allocations], graph/relocatable.c) */
    unsigned group = o->pack ? o->pack[a] : 0;
    if (t->allocs[a].relocatable && !o->no_relocate)
      group |= TIDAL_GROUP_RELOCATABLE; /* wins over the packing group */
    st = tidal_malloc_grouped(&E.base[a], (size_t)t->allocs[a].bytes, group);
    if (st != TIDAL_OK) {
      E.last_status = st;
      run_fail(&E, "tidal_malloc(%s, %llu): %s: %s", t->allocs[a].name,
               (unsigned long long)t->allocs[a].bytes, tidal_status_string(st),
               tidal_last_error());
      goto out;
    }
  }
  if (cfg.trace_path) /* names and groups for the trace's memory timeline */
    for (int k = 0; k < t->n_tensors; k++) {
      static const tidal_group group_of[TRACE_NGROUPS] = {
          TIDAL_GROUP_PARAMETERS, TIDAL_GROUP_OPTIMIZER, TIDAL_GROUP_GRADIENTS,
          TIDAL_GROUP_ACTIVATIONS, TIDAL_GROUP_OTHER};
      const trace_tensor *tt = &t->tensors[k];
      int g = tt->group >= 0 && tt->group < TRACE_NGROUPS ? tt->group : TRACE_GROUP_OTHER;
      if (tt->alloc >= 0 && tt->bytes)
        tidal_annotate((unsigned char *)E.base[tt->alloc] + tt->offset, (size_t)tt->bytes,
                       tt->name, group_of[g]);
    }
  /* initial data: what the loop reads before writing (parameters, a
   * resident input the steps slice, ...), tensor by tensor (Note [initial
   * data in tensors]). */
  E.chunk = cfg.chunk_bytes;
  for (int k = 0; k < n_li; k++) {
    for (uint64_t done = 0; done < li[k].bytes;) {
      uint64_t at = li[k].offset + done;
      uint64_t n = initial_piece(&E, li[k].alloc, at, li[k].bytes - done, budget);
      tidal_access ac = {(unsigned char *)E.base[li[k].alloc] + at, (size_t)n, TIDAL_WRITE};
      tidal_site site = {"replay: initial data", "replay", 0, 0};
      st = tidal_op_begin(&site, 1, &ac);
      if (st != TIDAL_OK) {
        E.last_status = st;
        run_fail(&E, "initial write of %s: %s: %s", t->allocs[li[k].alloc].name,
                 tidal_status_string(st), tidal_last_error());
        goto out;
      }
      if (!o->cost_only)
        fill_bytes((unsigned char *)tidal_at(ac.ptr), ac.bytes, 0x1417a1ull + (uint64_t)li[k].alloc,
                   at);
      tidal_op_end(&site);
      done += n;
    }
  }
  tidal_stats s0, s1;
  tidal_stats_get(&s0);
  double *iter_s = calloc((size_t)iters, sizeof *iter_s);
  int n_iter_s = 0;
  for (int it = 0; it < iters && !run->failed; it++) {
    E.iteration = it;
    tidal_iteration_begin();
    run->split_ops = run->split_pieces = 0; /* the last iteration's */
    for (int i = 0; i < N && !run->failed; i++) {
      /* a periodic branch runs where its condition holds (Note [periodic
       * schedules], graph/interp_schedule.c); the plan calls next to its
       * ops are inside it in the rewritten program */
      if (!trace_op_runs(t, i, it)) continue;
      for (int *k = E.before[i]; *k >= 0; k += 2) run_action(&E, &plan->actions[k[0]], k[1], it);
      uint64_t pieces;
      uint64_t h = run_op(&E, i, it, &pieces);
      if (run->failed) break;
      if (pieces > 1) {
        run->split_ops++;
        run->split_pieces += pieces;
      }
      sums[(size_t)it * (size_t)N + (size_t)i] = h;
      for (int *k = E.after[i]; *k >= 0; k += 2) run_action(&E, &plan->actions[k[0]], k[1], it);
    }
    tidal_iteration_end();
    if (tidal_stats_get(&s1) == TIDAL_OK) {
      if (it == 0) run->first_modelled_s = s1.last_iteration.modelled_seconds;
      if (iter_s) iter_s[n_iter_s++] = s1.last_iteration.modelled_seconds;
    }
  }
  run->median_modelled_s = median_after_first(iter_s, n_iter_s);
  free(iter_s);
  tidal_stats_get(&s1);
  *final_state = state_hash(&E, li, n_li);
  run->peak_bytes = s1.total.peak_resident_bytes;
  tidal_stats s2; /* after the final-state read, which may take memory too */
  if (tidal_stats_get(&s2) == TIDAL_OK) run->shared_peak_bytes = s2.shared_peak_bytes;
  run->swapped_out_bytes = s1.total.swapped_out_bytes - s0.total.swapped_out_bytes;
  run->swapped_in_bytes = s1.total.swapped_in_bytes - s0.total.swapped_in_bytes;
  run->prefetched_bytes = s1.total.prefetched_bytes - s0.total.prefetched_bytes;
  run->dropped_bytes = s1.total.dropped_bytes - s0.total.dropped_bytes;
  run->faults = s1.total.faults - s0.total.faults;
  run->evictions = s1.total.evictions - s0.total.evictions;
  run->modelled_s = s1.total.modelled_seconds - s0.total.modelled_seconds;
  run->stall_s = s1.total.stall_seconds - s0.total.stall_seconds;
  run->runtime_actions[0] = s1.total.planner_swap_outs - s0.total.planner_swap_outs;
  run->runtime_actions[1] = s1.total.planner_prefetches - s0.total.planner_prefetches;
  run->runtime_actions[2] = s1.total.planner_drops - s0.total.planner_drops;
  run->runtime_actions[3] = s1.total.planner_recomputes - s0.total.planner_recomputes;
  run->hints_run = s1.total.hints_run - s0.total.hints_run;
  run->hints_skipped = s1.total.hints_skipped - s0.total.hints_skipped;
  run->plans_built = s1.total.plans_built - s0.total.plans_built;
  run->hint_iterations = s1.total.hint_iterations - s0.total.hint_iterations;
  run->prefetches_deferred = s1.total.prefetches_deferred - s0.total.prefetches_deferred;
  run->last_modelled_s = s1.last_iteration.modelled_seconds;
  run->last_stall_s = s1.last_iteration.stall_seconds;
  run->last_vmm_s = s1.last_iteration.modelled_vmm_seconds;
  run->last_host_wait_s = s1.last_iteration.modelled_host_wait_seconds;
  run->last_launch_wait_s = s1.last_iteration.modelled_launch_wait_seconds;
  run->last_copy_wait_s = s1.last_iteration.modelled_copy_wait_seconds;
  run->vmm_calls = s1.total.vmm_calls - s0.total.vmm_calls;
  run->last_vmm_calls = s1.last_iteration.vmm_calls;
  run->last_faults = s1.last_iteration.faults;
  run->last_reclaimed = s1.last_iteration.reclaimed_chunks;
  run->last_rebound = s1.last_iteration.rebound_chunks;
  run->last_swapped_out = s1.last_iteration.swapped_out_bytes;
  run->last_swapped_in = s1.last_iteration.swapped_in_bytes;
  run->budget_bytes = budget ? s1.budget_bytes : 0;
  run->last_actions[REPLAY_SWAP_OUTS] = s1.last_iteration.swap_outs;
  run->last_actions[REPLAY_PREFETCHES] = s1.last_iteration.prefetches;
  run->last_actions[REPLAY_DROPS] = s1.last_iteration.drops;
  run->last_actions[REPLAY_RECOMPUTES] = s1.last_iteration.recomputes;
  run->last_actions[REPLAY_FAULTS] = s1.last_iteration.faults;
  /* recomputed_ops counts our closures; the runtime's count must agree */
  if (s1.total.recomputes - s0.total.recomputes > run->recomputed_ops)
    run->recomputed_ops = s1.total.recomputes - s0.total.recomputes;
out:
  if (started) {
    for (int a = 0; a < t->n_allocs; a++)
      if (E.base[a]) tidal_free(E.base[a]);
    /* its trace or profile may fail to write: the run then failed too */
    tidal_status sst = tidal_shutdown();
    if (sst != TIDAL_OK)
      run_fail(&E, "tidal_shutdown: %s: %s", tidal_status_string(sst), tidal_last_error());
  }
  sigaction(SIGSEGV, &old_segv, NULL);
  sigaction(SIGBUS, &old_bus, NULL);
  engine_free(&E);
  return run->failed ? -1 : 0;
}

int replay_trace(const tidal_trace *t, const plan_result *plan, const replay_options *o,
                 replay_report *out) {
  memset(out, 0, sizeof *out);
  out->plan_budget_bytes = o->budget_bytes;
  out->budget_percent = o->budget_percent;
  out->cost_only = o->cost_only;
  out->chunk_bytes = replay_chunk_bytes(t, o);
  out->device_sync = o->device_sync;
  out->planner = o->planner;
  out->iterations = o->iterations > 0 ? o->iterations : DEFAULT_ITERATIONS;
  out->n_ops = t->n_ops;
  out->trace = t;
  out->steps = t->steps;
  for (int i = 0; i < t->n_ops; i++)
    for (int j = 0; j < t->ops[i].n_acc; j++) {
      out->stepped_accesses += t->ops[i].acc[j].stepped;
      out->unknown_extent_accesses += t->ops[i].acc[j].unknown_extent;
    }
  for (int i = 0; i < t->n_ops; i++) out->splittable_ops += t->ops[i].split_count > 0;
  out->first_mismatch = -1;
  for (int k = 0; plan && k < plan->n_actions; k++) {
    const plan_action *pa = &plan->actions[k];
    if (o->place && !o->place[k].run) out->unemitted_actions++;
    else if ((int)pa->kind >= 0 && (int)pa->kind < 5) out->actions_executed[pa->kind]++;
  }
  size_t n = (size_t)out->iterations * (size_t)(t->n_ops ? t->n_ops : 1);
  uint64_t *su = calloc(n, sizeof *su), *sm = calloc(n, sizeof *sm);
  plan_range *li = NULL;
  int n_li = 0, rc = -1;
  if (!su || !sm || plan_live_in(t, &li, &n_li) != 0) {
    snprintf(out->unmanaged.error, sizeof out->unmanaged.error, "out of memory");
    out->unmanaged.failed = 1;
    goto done;
  }
  uint64_t fu = 0, fm = 0;
  int dummy = 0;
  plan_result none;
  memset(&none, 0, sizeof none);
  replay_options ou = *o;
  ou.brk = REPLAY_BREAK_NONE;
  ou.planner = TIDAL_PLANNER_LRU; /* no budget, no hints: nothing to decide */
  one_run(t, &none, &ou, 0, su, NULL, &out->unmanaged, &dummy, li, n_li, &fu);
  if (out->unmanaged.failed) goto done;
  if (o->managed_start) o->managed_start(o->managed_start_ud);
  /* Note [budgets in chunks] */
  out->runtime_budget_bytes = o->budget_bytes;
  if (o->budget_percent > 0) {
    uint64_t b = (uint64_t)((double)out->unmanaged.peak_bytes * o->budget_percent / 100.0);
    if (b > out->runtime_budget_bytes) out->runtime_budget_bytes = b;
  }
  one_run(t, plan, o, out->runtime_budget_bytes, sm, su, &out->managed,
          &out->recompute_mismatches, li, n_li, &fm);
  rc = 0;
  if (out->managed.failed) goto done;
  for (size_t k = 0; k < n; k++)
    if (su[k] != sm[k]) {
      if (out->first_mismatch < 0) {
        out->first_mismatch = (int)k;
        snprintf(out->first_mismatch_label, sizeof out->first_mismatch_label, "%s",
                 t->ops[k % (size_t)t->n_ops].label);
      }
      out->mismatched_ops++;
    }
  out->final_state_match = fu == fm;
  out->checksums_match = out->mismatched_ops == 0 && out->final_state_match &&
                         out->recompute_mismatches == 0;
done:
  /* Note [one budget] */
  out->budget_bytes = out->managed.budget_bytes;
  if (!out->budget_bytes && out->runtime_budget_bytes) /* the run stopped before it said */
    out->budget_bytes = out->runtime_budget_bytes / out->chunk_bytes * out->chunk_bytes;
  out->budget_respected = out->budget_bytes == 0 || out->managed.peak_bytes <= out->budget_bytes;
  free(su);
  free(sm);
  free(li);
  return rc;
}

int replay_ok(const replay_report *r) {
  return !r->unmanaged.failed && !r->managed.failed && r->checksums_match &&
         r->budget_respected;
}

/* ---- output ---- */

/* JSON has no inf or nan: a number that is not finite is written as null
 * (the inputs are checked so that none arises; this keeps the output valid
 * JSON whatever happens).  Each number of one call gets its own buffer. */
typedef struct jnum_buf {
  char s[40];
} jnum_buf;

static const char *jnum(jnum_buf *b, int steady, double v) {
  if (!isfinite(v)) return "null";
  snprintf(b->s, sizeof b->s, steady ? "%.6f" : "%.9g", v);
  return b->s;
}
#define J9(b, v) jnum(&(b), 0, (v)) /* seconds */
#define J6(b, v) jnum(&(b), 1, (v)) /* ratios */

/* The length of the valid UTF-8 sequence at s, or 0: JSON text must be
 * UTF-8, so other bytes (a label from a binary file) become U+FFFD. */
static size_t utf8_len(const unsigned char *s) {
  if (s[0] < 0xc2 || s[0] > 0xf4) return 0;
  int n = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : 2;
  for (int k = 1; k < n; k++)
    if ((s[k] & 0xc0) != 0x80) return 0;
  if (n == 3 && ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f))) return 0;
  if (n == 4 && ((s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] > 0x8f))) return 0;
  return (size_t)n;
}

void replay_json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; s && *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') {
      fprintf(f, "\\%c", c);
    } else if (c < 0x20 || c == 0x7f) {
      fprintf(f, "\\u%04x", c);
    } else if (c < 0x80) {
      fputc(c, f);
    } else {
      size_t n = utf8_len((const unsigned char *)s);
      if (n == 0) {
        fputs("\\ufffd", f);
      } else {
        fwrite(s, 1, n, f);
        s += n - 1;
      }
    }
  }
  fputc('"', f);
}

static void json_run(FILE *f, const char *name, const replay_run *r) {
  jnum_buf b1, b2;
  fprintf(f, "  \"%s\": {\"peak_bytes\": %llu, \"swapped_out_bytes\": %llu, "
          "\"swapped_in_bytes\": %llu, \"prefetched_bytes\": %llu, \"dropped_bytes\": %llu, "
          "\"recomputed_ops\": %llu, \"faults\": %llu, \"evictions\": %llu, "
          "\"modelled_time_s\": %s, \"stall_s\": %s, \"vmm_calls\": %llu, "
          "\"split_ops\": %llu, \"split_pieces\": %llu, \"hint_errors\": %d, \"error\": ",
          name, (unsigned long long)r->peak_bytes, (unsigned long long)r->swapped_out_bytes,
          (unsigned long long)r->swapped_in_bytes, (unsigned long long)r->prefetched_bytes,
          (unsigned long long)r->dropped_bytes, (unsigned long long)r->recomputed_ops,
          (unsigned long long)r->faults, (unsigned long long)r->evictions, J9(b1, r->modelled_s),
          J9(b2, r->stall_s), (unsigned long long)r->vmm_calls, (unsigned long long)r->split_ops,
          (unsigned long long)r->split_pieces, r->hint_errors);
  if (r->failed) replay_json_string(f, r->error);
  else fputs("null", f);
  fputs("},\n", f);
}

/* 1 if periodic branch b of the trace has ops (the report lists those). */
static int branch_has_ops(const tidal_trace *t, int b) {
  if (!t->branches[b].periodic) return 0;
  for (int i = 0; i < t->n_ops; i++)
    if (t->ops[i].phase == TRACE_PERIODIC && t->ops[i].branch == b) return 1;
  return 0;
}

/* Note [periodic schedules]: which periodic branches ran in which
 * iterations, and what replay took as larger than every step. */
static void json_periodic(FILE *f, const replay_report *r) {
  const tidal_trace *t = r->trace;
  fputs("  \"periodic_branches\": [", f);
  int first = 1;
  for (int b = 0; t && b < t->n_branches; b++) {
    if (!branch_has_ops(t, b)) continue;
    const trace_branch *br = &t->branches[b];
    fprintf(f, "%s\n    {\"file\": ", first ? "" : ",");
    first = 0;
    replay_json_string(f, br->file);
    fprintf(f, ", \"line\": %u, \"cond\": ", br->line);
    replay_json_string(f, br->cond);
    fprintf(f, ", \"modelled\": %s, \"runs_in_iterations\": [", br->n_sched ? "true" : "false");
    for (int it = 0, n = 0; it < r->iterations; it++)
      if (trace_branch_runs(t, b, it)) fprintf(f, "%s%d", n++ ? ", " : "", it);
    fputs("], \"taken_as_large\": ", f);
    if (br->assumed) replay_json_string(f, br->assumed);
    else fputs("null", f);
    fputs(", \"why\": ", f);
    if (br->why) replay_json_string(f, br->why);
    else fputs("null", f);
    fputs("}", f);
  }
  fputs(first ? "],\n" : "\n  ],\n", f);
}

static void text_periodic(FILE *f, const replay_report *r) {
  const tidal_trace *t = r->trace;
  for (int b = 0; t && b < t->n_branches; b++) {
    if (!branch_has_ops(t, b)) continue;
    const trace_branch *br = &t->branches[b];
    const char *base = strrchr(br->file, '/');
    fprintf(f, "  periodic: %s:%u `%s`: ", base ? base + 1 : br->file, br->line, br->cond);
    if (!br->n_sched) {
      fprintf(f, "every iteration (%s)\n", br->why ? br->why : "not modelled");
      continue;
    }
    int n = 0;
    for (int it = 0; it < r->iterations; it++)
      if (trace_branch_runs(t, b, it)) fprintf(f, "%s%d", n++ ? ", " : "in iteration(s) ", it);
    if (!n) fputs("in no iteration", f);
    fprintf(f, " of %d", r->iterations);
    if (br->assumed)
      fprintf(f, " (taken as larger than every replayed step: %s; --bind to set)", br->assumed);
    fputc('\n', f);
  }
}

void replay_print_json(FILE *f, const replay_report *r, const plan_result *plan,
                       const char *mode_name) {
  const replay_run *m = &r->managed;
  fprintf(f, "{\n  \"plan\": ");
  replay_json_string(f, mode_name);
  fprintf(f, ",\n  \"iterations\": %d,\n  \"ops_per_iteration\": %d,\n", r->iterations, r->n_ops);
  fprintf(f, "  \"stepped_accesses\": %d,\n  \"steps\": %lld,\n", r->stepped_accesses,
          (long long)r->steps);
  fprintf(f, "  \"splittable_ops\": %d,\n  \"split_ops\": %llu,\n  \"split_pieces\": %llu,\n",
          r->splittable_ops, (unsigned long long)m->split_ops,
          (unsigned long long)m->split_pieces);
  json_periodic(f, r);
  fprintf(f, "  \"unknown_extent_accesses\": %d,\n", r->unknown_extent_accesses);
  /* Note [one budget]: budget_bytes is the run's (the runtime's, whole chunks) */
  fprintf(f, "  \"budget_bytes\": %llu,\n", (unsigned long long)r->budget_bytes);
  fprintf(f, "  \"budget_met\": %s,\n", r->budget_bytes && r->budget_respected && !m->failed
                                               ? "true" : r->budget_bytes ? "false" : "null");
  fprintf(f, "  \"plan_budget_bytes\": %llu,\n", (unsigned long long)r->plan_budget_bytes);
  fprintf(f, "  \"refused\": %s,\n  \"refusal\": ", replay_refused(r) ? "true" : "false");
  if (replay_refused(r)) replay_json_string(f, m->error);
  else fputs("null", f);
  fprintf(f, ",\n  \"cost_only\": %s,\n", r->cost_only ? "true" : "false");
  fprintf(f, "  \"runtime_budget_bytes\": %llu,\n", (unsigned long long)r->runtime_budget_bytes);
  fprintf(f, "  \"chunk_bytes\": %llu,\n", (unsigned long long)r->chunk_bytes);
  fprintf(f, "  \"vmm_calls_per_iteration\": %llu,\n", (unsigned long long)m->last_vmm_calls);
  fprintf(f, "  \"peak_unmanaged_bytes\": %llu,\n", (unsigned long long)r->unmanaged.peak_bytes);
  fprintf(f, "  \"peak_managed_bytes\": %llu,\n", (unsigned long long)m->peak_bytes);
  fprintf(f, "  \"checksums_match\": %s,\n", r->checksums_match ? "true" : "false");
  fprintf(f, "  \"mismatched_ops\": %d,\n", r->mismatched_ops);
  fprintf(f, "  \"first_mismatch\": ");
  if (r->first_mismatch >= 0) replay_json_string(f, r->first_mismatch_label);
  else fputs("null", f);
  fprintf(f, ",\n  \"final_state_match\": %s,\n", r->final_state_match ? "true" : "false");
  fprintf(f, "  \"recompute_mismatches\": %d,\n", r->recompute_mismatches);
  fprintf(f, "  \"budget_respected\": %s,\n", r->budget_respected ? "true" : "false");
  fprintf(f, "  \"swapped_out_bytes\": %llu,\n", (unsigned long long)m->swapped_out_bytes);
  fprintf(f, "  \"prefetched_bytes\": %llu,\n", (unsigned long long)m->prefetched_bytes);
  fprintf(f, "  \"dropped_bytes\": %llu,\n", (unsigned long long)m->dropped_bytes);
  fprintf(f, "  \"recomputed_ops\": %llu,\n", (unsigned long long)m->recomputed_ops);
  fprintf(f, "  \"faults\": %llu,\n", (unsigned long long)m->faults);
  jnum_buf b1, b2, b3, b4;
  fprintf(f, "  \"modelled_time_unmanaged_s\": %s,\n", J9(b1, r->unmanaged.modelled_s));
  fprintf(f, "  \"modelled_time_managed_s\": %s,\n", J9(b1, m->modelled_s));
  double ov = r->unmanaged.modelled_s > 0 ? m->modelled_s / r->unmanaged.modelled_s - 1 : 0;
  fprintf(f, "  \"modelled_overhead\": %s,\n", J6(b1, ov));
  if (plan) {
    fprintf(f, "  \"plan_peak_before_bytes\": %llu,\n  \"plan_peak_after_bytes\": %llu,\n"
            "  \"plan_budget_met\": %s,\n  \"plan_actions\": %d,\n",
            (unsigned long long)plan->peak_before, (unsigned long long)plan->peak_after,
            plan->budget_met ? "true" : "false", plan->n_actions);
    fprintf(f, "  \"unemitted_actions\": %d,\n", r->unemitted_actions);
    fprintf(f, "  \"actions_executed\": {\"swap_out\": %d, \"prefetch\": %d, \"drop\": %d, "
            "\"recompute\": %d, \"keep\": %d},\n", r->actions_executed[PLAN_SWAP_OUT],
            r->actions_executed[PLAN_PREFETCH], r->actions_executed[PLAN_DROP],
            r->actions_executed[PLAN_RECOMPUTE], r->actions_executed[PLAN_KEEP]);
    fprintf(f, "  \"plan_notes\": [");
    for (int k = 0; k < plan->n_notes; k++) {
      if (k) fputs(", ", f);
      replay_json_string(f, plan->notes[k]);
    }
    fputs("],\n", f);
  }
  {
    double su = r->unmanaged.last_modelled_s, sm = m->last_modelled_s;
    fprintf(f, "  \"runtime_planner\": \"%s\",\n", replay_planner_name(r->planner));
    fprintf(f, "  \"runtime_actions\": {\"swap_out\": %llu, \"prefetch\": %llu, \"drop\": %llu, "
            "\"recompute\": %llu, \"total\": %llu},\n",
            (unsigned long long)m->runtime_actions[0], (unsigned long long)m->runtime_actions[1],
            (unsigned long long)m->runtime_actions[2], (unsigned long long)m->runtime_actions[3],
            (unsigned long long)(m->runtime_actions[0] + m->runtime_actions[1] +
                                 m->runtime_actions[2] + m->runtime_actions[3]));
    fprintf(f, "  \"hints_run\": %llu,\n  \"hints_skipped\": %llu,\n  \"plans_built\": %llu,\n",
            (unsigned long long)m->hints_run, (unsigned long long)m->hints_skipped,
            (unsigned long long)m->plans_built);
    fprintf(f, "  \"hint_iterations\": %llu,\n", (unsigned long long)m->hint_iterations);
    fprintf(f, "  \"prefetches_deferred\": %llu,\n", (unsigned long long)m->prefetches_deferred);
    fprintf(f, "  \"modelled_time_steady_unmanaged_s\": %s,\n", J9(b1, su));
    fprintf(f, "  \"modelled_time_steady_managed_s\": %s,\n", J9(b1, sm));
    fprintf(f, "  \"modelled_overhead_steady\": %s,\n", J6(b1, su > 0 ? sm / su - 1 : 0));
    double mu = r->unmanaged.median_modelled_s, mm = m->median_modelled_s;
    fprintf(f, "  \"modelled_time_median_unmanaged_s\": %s,\n", J9(b1, mu));
    fprintf(f, "  \"modelled_time_median_managed_s\": %s,\n", J9(b1, mm));
    fprintf(f, "  \"modelled_overhead_median\": %s,\n", J6(b1, mu > 0 ? mm / mu - 1 : 0));
    fprintf(f, "  \"modelled_time_first_unmanaged_s\": %s,\n", J9(b1, r->unmanaged.first_modelled_s));
    fprintf(f, "  \"modelled_time_first_managed_s\": %s,\n", J9(b1, m->first_modelled_s));
    fprintf(f, "  \"modelled_overhead_first\": %s,\n", J6(b1, replay_overhead_first(r)));
    fprintf(f, "  \"steady_actions\": {\"swap_out\": %llu, \"prefetch\": %llu, \"drop\": %llu, "
            "\"recompute\": %llu, \"fault\": %llu},\n",
            (unsigned long long)m->last_actions[REPLAY_SWAP_OUTS],
            (unsigned long long)m->last_actions[REPLAY_PREFETCHES],
            (unsigned long long)m->last_actions[REPLAY_DROPS],
            (unsigned long long)m->last_actions[REPLAY_RECOMPUTES],
            (unsigned long long)m->last_actions[REPLAY_FAULTS]);
    /* where the steady iteration's time goes (docs/replay.md) */
    fprintf(f,
            "  \"steady_breakdown\": {\"host_vmm_s\": %s, \"host_wait_s\": %s, "
            "\"device_wait_launch_s\": %s, \"device_wait_copies_s\": %s, \"vmm_calls\": "
            "%llu, \"faults\": %llu, \"reclaimed\": %llu, \"rebound\": %llu, "
            "\"swapped_out_bytes\": %llu, \"swapped_in_bytes\": %llu},\n",
            J9(b1, m->last_vmm_s), J9(b2, m->last_host_wait_s), J9(b3, m->last_launch_wait_s),
            J9(b4, m->last_copy_wait_s),
            (unsigned long long)m->last_vmm_calls, (unsigned long long)m->last_faults,
            (unsigned long long)m->last_reclaimed, (unsigned long long)m->last_rebound,
            (unsigned long long)m->last_swapped_out, (unsigned long long)m->last_swapped_in);
  }
  json_run(f, "unmanaged", &r->unmanaged);
  json_run(f, "managed", m);
  fprintf(f, "  \"device_sync_per_iteration\": %s,\n", r->device_sync ? "true" : "false");
  /* Note [the program's sync]: false when the rewrite makes it
   * tidal_device_synchronize, which does not wait for tidal's copies */
  fprintf(f, "  \"device_sync_waits_for_copies\": %s,\n", r->device_sync == 1 ? "true" : "false");
  fprintf(f, "  \"ok\": %s\n}\n", replay_ok(r) ? "true" : "false");
}

static void mib(char *buf, size_t n, uint64_t b) {
  snprintf(buf, n, "%.2f MiB", (double)b / (1024.0 * 1024.0));
}

const char *replay_planner_name(tidal_planner p) {
  static const char *const pn[] = {"default", "runtime", "hints", "lru"};
  return (int)p >= 0 && (int)p < 4 ? pn[p] : "?";
}

int replay_refused(const replay_report *r) {
  return r->managed.failed && r->managed.status == TIDAL_ERR_BUDGET;
}

double replay_overhead_steady(const replay_report *r) {
  double su = r->unmanaged.last_modelled_s, sm = r->managed.last_modelled_s;
  return su > 0 ? sm / su - 1 : 0;
}

double replay_overhead_first(const replay_report *r) {
  double su = r->unmanaged.first_modelled_s, sm = r->managed.first_modelled_s;
  return su > 0 ? sm / su - 1 : 0;
}

/* "50% of the unmanaged run's peak of 36.00 MiB in 2.00 MiB chunks" or
 * "as given": where the run's budget comes from. */
static void budget_origin(char *buf, size_t n, const replay_report *r) {
  char a[32], b[32];
  mib(a, sizeof a, r->unmanaged.peak_bytes);
  mib(b, sizeof b, r->chunk_bytes);
  if (r->budget_percent > 0)
    snprintf(buf, n, "%g%% of the unmanaged run's peak of %s, in whole %s chunks",
             r->budget_percent, a, b);
  else
    snprintf(buf, n, "as given, in whole %s chunks", b);
}

void replay_print_text(FILE *f, const replay_report *r, const plan_result *plan,
                       const char *mode_name) {
  char a[32], b[32], c[32], why[160];
  const replay_run *m = &r->managed;
  fprintf(f, "replay: %d iterations x %d ops, plan %s, run-time planner %s\n", r->iterations,
          r->n_ops, mode_name, replay_planner_name(r->planner));
  /* Note [which planner]: replay and a compiled program differ here */
  if (r->planner == TIDAL_PLANNER_HINTS)
    fprintf(f, "  planner: the build-time plan's calls, LRU eviction for the rest (what this "
            "replay proves); a compiled program's default is the run-time planner, which also "
            "decides at run time (--runtime-planner runtime replays that)\n");
  if (r->stepped_accesses) {
    if (r->steps > 0)
      fprintf(f, "  stepped: %d accesses move with the training loop's counter (%lld steps); "
              "iteration k runs step k\n", r->stepped_accesses, (long long)r->steps);
    else
      fprintf(f, "  stepped: %d accesses move with the training loop's counter (steps unknown); "
              "iteration k runs step k\n", r->stepped_accesses);
  }
  if (r->splittable_ops)
    fprintf(f, "  split: %d ops per iteration may run in pieces; %llu did, as %llu "
            "pieces (last iteration)\n", r->splittable_ops, (unsigned long long)m->split_ops,
            (unsigned long long)m->split_pieces);
  text_periodic(f, r);
  if (r->unknown_extent_accesses) /* Note [unknown extents] */
    fprintf(f, "  unknown extents: %d accesses per iteration declared to the end of their "
            "allocation (TIDAL_EXTENT_UNKNOWN), as the rewritten program declares them; the plan "
            "and the data oracle use their carved region\n", r->unknown_extent_accesses);
  /* Note [one budget]: one figure, said met or exceeded */
  mib(b, sizeof b, r->unmanaged.peak_bytes);
  mib(c, sizeof c, m->peak_bytes);
  if (r->budget_bytes) {
    mib(a, sizeof a, r->budget_bytes);
    budget_origin(why, sizeof why, r);
    fprintf(f, "  budget %s (%s): %s; peak unmanaged %s, managed %s\n", a, why,
            replay_refused(r) ? "REFUSED by the runtime"
            : r->budget_respected ? "met" : "EXCEEDED", b, c);
  } else {
    fprintf(f, "  budget none; peak unmanaged %s, managed %s\n", b, c);
  }
  if (plan) {
    mib(a, sizeof a, plan->peak_before);
    mib(b, sizeof b, plan->peak_after);
    mib(c, sizeof c, r->plan_budget_bytes);
    if (r->plan_budget_bytes)
      fprintf(f, "  plan: %d actions; its byte model (no chunks): peak %s -> %s, aiming at %s%s\n",
              plan->n_actions, a, b, c, plan->budget_met ? "" : " (not reached)");
    else
      fprintf(f, "  plan: %d actions; its byte model (no chunks): peak %s -> %s\n",
              plan->n_actions, a, b);
    fprintf(f, "  plan calls run: %d swap_out, %d prefetch, %d drop, %d recompute, %d keep (call "
            "sites); %d planned actions not emittable by rewrite (not run)\n",
            r->actions_executed[PLAN_SWAP_OUT], r->actions_executed[PLAN_PREFETCH],
            r->actions_executed[PLAN_DROP], r->actions_executed[PLAN_RECOMPUTE],
            r->actions_executed[PLAN_KEEP], r->unemitted_actions);
    for (int k = 0; k < plan->n_notes; k++) fprintf(f, "  note: %s\n", plan->notes[k]);
  }
  if (r->planner == TIDAL_PLANNER_RUNTIME)
    fprintf(f, "  run-time planner: %llu swap_out, %llu prefetch, %llu drop, %llu recompute "
            "(chunks, all iterations); hints run %llu, skipped %llu\n",
            (unsigned long long)m->runtime_actions[0], (unsigned long long)m->runtime_actions[1],
            (unsigned long long)m->runtime_actions[2], (unsigned long long)m->runtime_actions[3],
            (unsigned long long)m->hints_run, (unsigned long long)m->hints_skipped);
  if (r->planner == TIDAL_PLANNER_RUNTIME && m->hint_iterations) /* Note [the hints as a candidate] */
    fprintf(f, "  run-time planner: %llu iterations ran the build-time hints as written (its trial "
            "of them is 2; more: it measured them faster than its plan and kept them)\n",
            (unsigned long long)m->hint_iterations);
  if (m->prefetches_deferred) /* Note [prefetch order], runtime/memory/pace.c */
    fprintf(f, "  prefetch order: %llu prefetch hints held back and issued in the order their "
            "tensors are needed in (TIDAL_PREFETCH_ORDER=0 issues them where called)\n",
            (unsigned long long)m->prefetches_deferred);
  if (!r->unmanaged.failed && !m->failed) {
    /* the same counts the trace's events and the timeline's marks give */
    const uint64_t *la = m->last_actions;
    fprintf(f, "  steady iteration (the last): %llu swap-outs, %llu prefetches, %llu drops, %llu "
            "recomputes, %llu faults (chunks; one trace event each); %llu VMM calls\n",
            (unsigned long long)la[REPLAY_SWAP_OUTS], (unsigned long long)la[REPLAY_PREFETCHES],
            (unsigned long long)la[REPLAY_DROPS], (unsigned long long)la[REPLAY_RECOMPUTES],
            (unsigned long long)la[REPLAY_FAULTS], (unsigned long long)m->last_vmm_calls);
    mib(a, sizeof a, m->swapped_out_bytes);
    mib(b, sizeof b, m->prefetched_bytes);
    mib(c, sizeof c, m->dropped_bytes);
    fprintf(f, "  all %d iterations: swapped out %s, prefetched %s, dropped %s, recomputed %llu "
            "ops, faults %llu\n", r->iterations, a, b, c, (unsigned long long)m->recomputed_ops,
            (unsigned long long)m->faults);
    /* Note [steady headline]: the last iteration is the figure; the first
     * (the cold start) is shown beside it, never summed into it */
    fprintf(f, "  modelled overhead %+.1f%% in the steady state (%.3f ms -> %.3f ms per "
            "iteration); first iteration %+.1f%% (%.3f ms -> %.3f ms)\n",
            100 * replay_overhead_steady(r), r->unmanaged.last_modelled_s * 1e3,
            m->last_modelled_s * 1e3, 100 * replay_overhead_first(r),
            r->unmanaged.first_modelled_s * 1e3, m->first_modelled_s * 1e3);
  }
  if (r->unmanaged.failed) fprintf(f, "  unmanaged run failed: %s\n", r->unmanaged.error);
  if (replay_refused(r))
    fprintf(f, "  refused by the runtime (TIDAL_ERR_BUDGET): %s\n", m->error);
  else if (m->failed)
    fprintf(f, "  managed run failed: %s\n", m->error);
  if (!r->unmanaged.failed && !m->failed) {
    if (r->cost_only)
      fprintf(f, "  checksums not compared (cost only)\n");
    else if (r->checksums_match)
      fprintf(f, "  checksums match (%d ops x %d iterations, final state)\n", r->n_ops,
              r->iterations);
    else
      fprintf(f, "  CHECKSUMS DIFFER: %d ops, first at %s (iteration %d); final state %s; "
              "%d bad recomputes\n", r->mismatched_ops,
              r->first_mismatch >= 0 ? r->first_mismatch_label : "-",
              r->first_mismatch >= 0 ? r->first_mismatch / (r->n_ops ? r->n_ops : 1) : -1,
              r->final_state_match ? "matches" : "differs", r->recompute_mismatches);
  }
}
