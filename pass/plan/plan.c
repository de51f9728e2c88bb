/* plan.c - the static planner: from one iteration's op trace to swap-out,
 * prefetch, drop, recompute and keep actions keyed to static ops.
 *
 * Design (see plan.h for the contract, docs/replay.md for the prose):
 *  - Memory is modelled as disjoint byte segments of each allocation, cut at
 *    every tensor and access boundary, so overlapping tensors (aliases,
 *    partial accesses) are handled without special cases.
 *  - An eviction candidate is a group: every dynamic instance of one static
 *    access (static op + static access) that is followed by an idle span.
 *    A decision is taken per group because the rewriter emits one call per
 *    source site.  See Note [groups are static].
 *  - Drops are free and taken whenever legal for every instance of a group.
 *    Swaps and recomputes are then chosen greedily, the best bytes-per-second
 *    of overhead first among groups idle across the modelled peak, or a
 *    swapped group's prefetch is issued later (Note [late prefetch]), until
 *    the modelled peak fits the budget or nothing is left to evict.
 *  - Idle spans are cyclic: state idle across the iteration boundary
 *    (optimizer moments, parameters after the update) is a candidate like
 *    any other; its prefetch sits before the next use in the same program.
 *  - auto makes the mixed, swap-only and recompute-only plans and keeps the
 *    best (Note [auto picks the best plan]).
 *  - Everything is deterministic: ties are broken by op order.
 *  - An elementwise op too big for the budget runs in pieces (Note [split
 *    ops in the model]).
 *
 * Note [groups are static]
 * A call placed after `matmul_forward(acts.fch + l*BTC4, ...)` runs for every
 * layer l.  So a drop is legal only if it is legal for every instance, and a
 * recompute registration only if re-running every instance of the producer,
 * at any time until its output is next written, gives the same bytes.  Swaps
 * and prefetches are always legal (hints; the runtime restores what is
 * missing), so for them only the cost is summed over the instances.
 *
 * Note [split ops in the model]
 * A launch the pass proved elementwise (trace_op.split_count) runs in
 * pieces when its working set exceeds half the budget (runtime/policy/split.c,
 * Note [split size]: pieces of at most a quarter of the budget, a power of
 * two of grains); split_piece_elements asks the runtime's own rule
 * (tidal_split_elements_at) on the plan's budget.  At such an op the model holds, of the
 * op's elementwise accesses, two pieces (the one op_begin pins and the next
 * one's prefetch), not the whole ranges, and counts those ranges not
 * resident after it: the runtime brought them in piece by piece and evicted
 * the earlier pieces as it went, by its LRU, which also writes back what the
 * later ops need.  So the plan does not swap or recompute what such an op
 * touches last (the runtime already moved it; a drop stays free and is
 * still taken), prefetches nothing for it (a prefetch of the whole range
 * cannot fit; op_begin restores each piece), and never registers it as a
 * recompute producer (re-running it inside another op's op_begin would need
 * its pieces on top of that op's pinned data).  Its pieces' own copies are
 * the runtime's business and not in the plan's overhead. */
#include "plan/plan.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tidal.h" /* tidal_split_elements_at */

/* Shortest idle span, in ops, worth a swap or a recompute by default. */
#define DEFAULT_MIN_IDLE_OPS 4
/* Per plan call overhead charged in the cost comparison (a host call). */
#define PLAN_CALL_OVERHEAD_S 1e-6

int plan_mode_parse(const char *s, plan_mode *out) {
  static const char *names[] = {"auto", "swap", "recompute", "none"};
  for (int i = 0; i < 4; i++)
    if (strcmp(s, names[i]) == 0) {
      *out = (plan_mode)i;
      return 0;
    }
  return -1;
}

const char *plan_mode_name(plan_mode m) {
  switch (m) {
  case PLAN_MODE_AUTO: return "auto";
  case PLAN_MODE_SWAP: return "swap";
  case PLAN_MODE_RECOMPUTE: return "recompute";
  case PLAN_MODE_NONE: return "none";
  }
  return "?";
}

const char *plan_kind_name(plan_kind k) {
  switch (k) {
  case PLAN_SWAP_OUT: return "swap_out";
  case PLAN_PREFETCH: return "prefetch";
  case PLAN_DROP: return "drop";
  case PLAN_RECOMPUTE: return "recompute";
  case PLAN_KEEP: return "keep";
  }
  return "?";
}

void plan_options_default(plan_options *o) {
  memset(o, 0, sizeof *o);
  o->mode = PLAN_MODE_AUTO;
  cost_model_default(&o->cost);
}

double plan_op_seconds(const tidal_trace *t, int i, const cost_model *m) {
  const trace_op *op = &t->ops[i];
  if (m->op_seconds && op->static_op >= 0 && op->static_op < m->n_op_seconds &&
      m->op_seconds[op->static_op] >= 0)
    return m->op_seconds[op->static_op]; /* measured (--profile) */
  uint64_t bytes = 0;
  for (int a = 0; a < op->n_acc; a++) bytes += op->acc[a].bytes;
  return cost_op_seconds(m, op->flops, bytes);
}

/* ---- segments ---- */

typedef struct segmap {
  int n_segs;
  uint64_t *seg_bytes;  /* per segment */
  int *alloc_first;     /* first segment of each allocation */
  int *alloc_n;         /* segments per allocation */
  uint64_t **cuts;      /* per allocation: alloc_n+1 sorted cut offsets */
  int *acc_base;        /* per op: index of its first access in s0/s1 */
  int *s0, *s1;         /* per (op, access): segment range [s0, s1) */
  int *first_seg_alloc; /* per segment: its allocation */
  unsigned char *live_in; /* per segment: read before written in an iteration */
} segmap;

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static uint64_t clamp_end(uint64_t off, uint64_t bytes, uint64_t limit) {
  if (off > limit) return limit;
  return bytes > limit - off ? limit : off + bytes;
}

/* Index of the segment starting at or containing `off` within allocation a. */
static int seg_find(const segmap *m, int a, uint64_t off) {
  int lo = 0, hi = m->alloc_n[a]; /* cuts[a][lo] <= off < cuts[a][hi] */
  const uint64_t *c = m->cuts[a];
  while (hi - lo > 1) {
    int mid = (lo + hi) / 2;
    if (c[mid] <= off) lo = mid; else hi = mid;
  }
  return m->alloc_first[a] + lo;
}

static void segmap_free(segmap *m) {
  free(m->seg_bytes); free(m->alloc_first); free(m->alloc_n);
  free(m->acc_base); free(m->s0); free(m->s1); free(m->first_seg_alloc); free(m->live_in);
  m->seg_bytes = NULL;
}

static void segmap_destroy(segmap *m, uint64_t **cuts, int n_allocs);

/* Note [live-in past periodic writes]
 * A segment is live-in when the iteration reads it before overwriting it:
 * the replay fills it before the loop and its final-state check hashes it.
 * A periodic op (an evaluation under `if (step % N == 0)`) writes as a
 * readwrite in the trace, since on most steps it does not run; but when
 * its write is exact (trace_access.run_exact_write) the path on which it
 * runs overwrites the segment, and the path on which it does not goes on
 * to the next access: the segment is live-in only if that next
 * unconditional access does more than overwrite it, as the plan's
 * deadness decides (Note [overwrites across periodic branches]); reads by
 * later ops of the same branch read what it wrote (another branch's may
 * run without it: they decide).  Counting the
 * periodic write as a read made the final-state check hash activations the
 * plan rightly dropped after backward when the evaluation runs first in
 * the loop (llm.c's `step % val_loss_every == 0`): every op agreed and the
 * final state differed.  A segment only periodic writes touch is not
 * live-in. */
static int segmap_build(const tidal_trace *t, segmap *m, uint64_t ***cuts_out) {
  memset(m, 0, sizeof *m);
  int na = t->n_allocs;
  uint64_t **cuts = calloc((size_t)(na ? na : 1), sizeof *cuts);
  int *ncut = calloc((size_t)(na ? na : 1), sizeof *ncut);
  int n_acc_total = 0;
  for (int i = 0; i < t->n_ops; i++) n_acc_total += t->ops[i].n_acc;
  /* Upper bound on cut points per allocation: 2 + 2*(tensors + accesses). */
  size_t cap = 2 + 2 * (size_t)(t->n_tensors + n_acc_total);
  int ok = cuts && ncut;
  for (int a = 0; ok && a < na; a++) {
    cuts[a] = malloc(cap * sizeof **cuts);
    if (!cuts[a]) { ok = 0; break; }
    cuts[a][ncut[a]++] = 0;
    cuts[a][ncut[a]++] = t->allocs[a].bytes;
  }
  for (int k = 0; ok && k < t->n_tensors; k++) {
    const trace_tensor *tt = &t->tensors[k];
    if (tt->alloc < 0 || tt->alloc >= na) continue;
    uint64_t lim = t->allocs[tt->alloc].bytes;
    cuts[tt->alloc][ncut[tt->alloc]++] = clamp_end(tt->offset, 0, lim);
    cuts[tt->alloc][ncut[tt->alloc]++] = clamp_end(tt->offset, tt->bytes, lim);
  }
  for (int i = 0; ok && i < t->n_ops; i++)
    for (int j = 0; j < t->ops[i].n_acc; j++) {
      const trace_access *ac = &t->ops[i].acc[j];
      int a = t->tensors[ac->tensor].alloc;
      uint64_t lim = t->allocs[a].bytes;
      cuts[a][ncut[a]++] = clamp_end(ac->offset, 0, lim);
      cuts[a][ncut[a]++] = clamp_end(ac->offset, ac->bytes, lim);
    }
  m->alloc_first = calloc((size_t)(na ? na : 1), sizeof(int));
  m->alloc_n = calloc((size_t)(na ? na : 1), sizeof(int));
  if (!ok || !m->alloc_first || !m->alloc_n) goto fail;
  int total = 0;
  for (int a = 0; a < na; a++) {
    qsort(cuts[a], (size_t)ncut[a], sizeof **cuts, cmp_u64);
    int u = 0;
    for (int c = 0; c < ncut[a]; c++)
      if (u == 0 || cuts[a][c] != cuts[a][u - 1]) cuts[a][u++] = cuts[a][c];
    ncut[a] = u;
    m->alloc_first[a] = total;
    m->alloc_n[a] = u > 1 ? u - 1 : 0;
    total += m->alloc_n[a];
  }
  m->n_segs = total;
  m->seg_bytes = calloc((size_t)(total ? total : 1), sizeof(uint64_t));
  m->first_seg_alloc = calloc((size_t)(total ? total : 1), sizeof(int));
  m->acc_base = calloc((size_t)(t->n_ops ? t->n_ops : 1), sizeof(int));
  m->s0 = calloc((size_t)(n_acc_total ? n_acc_total : 1), sizeof(int));
  m->s1 = calloc((size_t)(n_acc_total ? n_acc_total : 1), sizeof(int));
  if (!m->seg_bytes || !m->first_seg_alloc || !m->acc_base || !m->s0 || !m->s1) goto fail;
  m->cuts = cuts;
  for (int a = 0; a < na; a++)
    for (int s = 0; s < m->alloc_n[a]; s++) {
      m->seg_bytes[m->alloc_first[a] + s] = cuts[a][s + 1] - cuts[a][s];
      m->first_seg_alloc[m->alloc_first[a] + s] = a;
    }
  int base = 0;
  for (int i = 0; i < t->n_ops; i++) {
    m->acc_base[i] = base;
    for (int j = 0; j < t->ops[i].n_acc; j++) {
      const trace_access *ac = &t->ops[i].acc[j];
      int a = t->tensors[ac->tensor].alloc;
      uint64_t lim = t->allocs[a].bytes;
      uint64_t b = clamp_end(ac->offset, 0, lim), e = clamp_end(ac->offset, ac->bytes, lim);
      if (e <= b || m->alloc_n[a] == 0) {
        m->s0[base + j] = m->s1[base + j] = 0;
      } else {
        m->s0[base + j] = seg_find(m, a, b);
        m->s1[base + j] = seg_find(m, a, e - 1) + 1;
      }
    }
    base += t->ops[i].n_acc;
  }
  free(ncut);
  *cuts_out = cuts;
  /* live-in: the first op touching a segment does more than overwrite it,
   * passing over periodic exact writes (Note [live-in past periodic writes]) */
  m->live_in = calloc((size_t)(total ? total : 1), 1);
  unsigned char *seen = calloc((size_t)(total ? total : 1), 1);
  int *passed_by = calloc((size_t)(total ? total : 1), sizeof *passed_by); /* PASSED: the branch */
  if (!m->live_in || !seen || !passed_by) {
    free(seen);
    free(passed_by);
    segmap_destroy(m, cuts, na);
    return -1;
  }
  enum { UNSEEN = 0, TOUCHED, DECIDED, PASSED };
  for (int i = 0; i < t->n_ops; i++) {
    const trace_op *op = &t->ops[i];
    /* its reads and inexact writes first: an op that also writes the bytes
     * it reads (`f(x, x)`) reads them before */
    for (int j = 0; j < op->n_acc; j++) {
      if (op->acc[j].run_exact_write) continue;
      for (int s = m->s0[m->acc_base[i] + j]; s < m->s1[m->acc_base[i] + j]; s++) {
        if (seen[s] == DECIDED) continue; /* decided by an earlier op */
        if (seen[s] == PASSED && op->phase == TRACE_PERIODIC && op->branch == passed_by[s])
          continue; /* reads what its own branch wrote */
        seen[s] = TOUCHED;
        if (op->acc[j].mode != ACCESS_WRITE || !op->acc[j].exact) m->live_in[s] = 1;
      }
    }
    for (int j = 0; j < op->n_acc; j++) {
      if (!op->acc[j].run_exact_write) continue;
      for (int s = m->s0[m->acc_base[i] + j]; s < m->s1[m->acc_base[i] + j]; s++)
        if (seen[s] == UNSEEN || seen[s] == PASSED) {
          seen[s] = PASSED;
          passed_by[s] = op->branch;
        }
    }
    for (int j = 0; j < op->n_acc; j++)
      for (int s = m->s0[m->acc_base[i] + j]; s < m->s1[m->acc_base[i] + j]; s++)
        if (seen[s] == TOUCHED) seen[s] = DECIDED;
  }
  free(seen);
  free(passed_by);
  return 0;
fail:
  for (int a = 0; cuts && a < na; a++) free(cuts[a]);
  free(cuts);
  free(ncut);
  segmap_free(m);
  return -1;
}

static void segmap_destroy(segmap *m, uint64_t **cuts, int n_allocs) {
  for (int a = 0; cuts && a < n_allocs; a++) free(cuts[a]);
  free(cuts);
  segmap_free(m);
}

#define S0(m, i, j) ((m)->s0[(m)->acc_base[i] + (j)])
#define S1(m, i, j) ((m)->s1[(m)->acc_base[i] + (j)])

static int ranges_overlap(int a0, int a1, int b0, int b1) { return a0 < b1 && b0 < a1; }

int plan_find_static_access(const trace_op *op, int static_access) {
  for (int j = 0; j < op->n_acc; j++)
    if (op->acc[j].static_access == static_access) return j;
  return -1;
}

/* The instance of static op `ref_op` that an action placed at dynamic op i
 * refers to: the first one at or after i in i's scope, else the last one
 * before it in that scope.  -1 if the scope has none. */
int plan_resolve_ref(const tidal_trace *t, int i, int ref_op) {
  if (t->ops[i].static_op == ref_op) return i;
  int scope = t->ops[i].scope;
  for (int k = i; k < t->n_ops; k++)
    if (t->ops[k].static_op == ref_op && t->ops[k].scope == scope) return k;
  for (int k = i - 1; k >= 0; k--)
    if (t->ops[k].static_op == ref_op && t->ops[k].scope == scope) return k;
  return -1;
}

/* ---- split ops ---- */

/* Elements per piece of split op i under `budget`: the rule of
 * tidal_split_elements (runtime/policy/split.c, Note [split size]) on the plan's
 * budget; the op's split_count when it runs whole. */
static uint64_t split_piece_elements(const trace_op *op, uint64_t budget) {
  uint64_t eb = 0;
  for (int a = 0; a < op->n_acc; a++) eb += op->acc[a].split_elem_bytes;
  if (!op->split_count) return 0;
  return tidal_split_elements_at((size_t)op->split_count, (size_t)eb, (size_t)budget);
}

/* Per trace op: the bytes of its elementwise accesses a split op holds at
 * once under `budget` (two pieces, Note [split ops in the model]); 0 for an
 * op that runs whole.  NULL when no op splits (or out of memory: the model
 * then holds every op whole, which only overestimates). */
static uint64_t *split_needs(const tidal_trace *t, uint64_t budget) {
  uint64_t *need = NULL;
  for (int i = 0; i < t->n_ops; i++) {
    const trace_op *op = &t->ops[i];
    uint64_t piece = split_piece_elements(op, budget);
    if (piece >= op->split_count) continue;
    if (!need && !(need = calloc((size_t)t->n_ops, sizeof *need))) return NULL;
    uint64_t b = 0;
    for (int a = 0; a < op->n_acc; a++) {
      uint64_t eb = op->acc[a].split_elem_bytes, two = 2 * piece * eb;
      if (eb) b += op->acc[a].bytes < two ? op->acc[a].bytes : two;
    }
    need[i] = b ? b : 1;
  }
  return need;
}

/* ---- residency simulation ---- */

typedef struct sim_action {
  const plan_action *a;
  int *ref_dyn; /* per trace op: resolved instance of a->ref_op, or -1 */
} sim_action;

/* Simulates two iterations; returns the peak resident bytes (and, if
 * peak_at != NULL, the dynamic index 0..2N-1 where it was first reached).
 * split: per op, split_needs (NULL: every op runs whole). */
static uint64_t simulate(const tidal_trace *t, const segmap *m, const plan_action *acts,
                         int n_acts, const uint64_t *split, int *peak_at) {
  unsigned char *res = calloc((size_t)(m->n_segs ? m->n_segs : 1), 1);
  /* recompute_src[s]: producer op whose re-run restores segment s (-1: none). */
  int *recomp = malloc((size_t)(m->n_segs ? m->n_segs : 1) * sizeof(int));
  if (!res || !recomp) { free(res); free(recomp); return UINT64_MAX; }
  for (int s = 0; s < m->n_segs; s++) recomp[s] = -1;
  uint64_t cur = 0, peak = 0;
  int at = 0;
  /* before the loop, only what the loop reads before writing holds data */
  for (int s = 0; s < m->n_segs; s++)
    if (m->live_in[s]) { res[s] = 1; cur += m->seg_bytes[s]; }
  int N = t->n_ops;
  for (int g = 0; g < 2 * N; g++) {
    int i = g % N;
    const trace_op *op = &t->ops[i];
    /* before-actions: prefetches */
    for (int k = 0; k < n_acts; k++) {
      const plan_action *pa = &acts[k];
      if (pa->at_op != op->static_op || pa->where != PLAN_BEFORE || pa->kind != PLAN_PREFETCH)
        continue;
      int r = plan_resolve_ref(t, i, pa->ref_op);
      int j = r >= 0 ? plan_find_static_access(&t->ops[r], pa->ref_access) : -1;
      if (j < 0) continue;
      for (int s = S0(m, r, j); s < S1(m, r, j); s++)
        if (!res[s]) { res[s] = 1; cur += m->seg_bytes[s]; }
    }
    /* the op: its accesses become resident; recomputed segments bring the
     * producer's other accesses back too (its closure touches them) */
    uint64_t pieces = split ? split[i] : 0;
    for (int j = 0; j < op->n_acc; j++)
      for (int s = S0(m, i, j); s < S1(m, i, j); s++) {
        if (!res[s] && recomp[s] >= 0) {
          int p = recomp[s];
          for (int q = 0; q < t->ops[p].n_acc; q++)
            for (int u = S0(m, p, q); u < S1(m, p, q); u++)
              if (!res[u]) { res[u] = 1; cur += m->seg_bytes[u]; }
        }
        if (!res[s]) { res[s] = 1; cur += m->seg_bytes[s]; }
      }
    /* a split op holds two pieces of its elementwise ranges, which the
     * runtime evicts behind it (Note [split ops in the model]); a segment
     * another access of the op needs whole stays */
    if (pieces) {
      for (int j = 0; j < op->n_acc; j++)
        if (op->acc[j].split_elem_bytes)
          for (int s = S0(m, i, j); s < S1(m, i, j); s++)
            if (res[s]) { res[s] = 0; cur -= m->seg_bytes[s]; }
      for (int j = 0; j < op->n_acc; j++)
        if (!op->acc[j].split_elem_bytes)
          for (int s = S0(m, i, j); s < S1(m, i, j); s++)
            if (!res[s]) { res[s] = 1; cur += m->seg_bytes[s]; }
    }
    for (int j = 0; j < op->n_acc; j++)
      if (op->acc[j].mode & ACCESS_WRITE)
        for (int s = S0(m, i, j); s < S1(m, i, j); s++) recomp[s] = -1;
    /* the peak that counts is the steady state's (second iteration): the
     * first starts with live-in data that is only evicted after its use */
    if (g >= N && cur + pieces > peak) { peak = cur + pieces; at = g; }
    /* after-actions */
    for (int k = 0; k < n_acts; k++) {
      const plan_action *pa = &acts[k];
      if (pa->at_op != op->static_op || pa->where != PLAN_AFTER) continue;
      if (pa->kind == PLAN_KEEP || pa->kind == PLAN_PREFETCH) continue;
      int r = plan_resolve_ref(t, i, pa->ref_op);
      int j = r >= 0 ? plan_find_static_access(&t->ops[r], pa->ref_access) : -1;
      if (j < 0) continue;
      for (int s = S0(m, r, j); s < S1(m, r, j); s++) {
        if (pa->kind == PLAN_RECOMPUTE) {
          recomp[s] = r;
          continue;
        }
        if (res[s]) { res[s] = 0; cur -= m->seg_bytes[s]; }
      }
    }
    if (i == N - 1) /* registrations expire with the iteration */
      for (int s = 0; s < m->n_segs; s++) recomp[s] = -1;
  }
  free(res);
  free(recomp);
  if (peak_at) *peak_at = at;
  return peak;
}

int plan_live_in(const tidal_trace *t, plan_range **out, int *n) {
  segmap m;
  uint64_t **cuts;
  *out = NULL;
  *n = 0;
  if (segmap_build(t, &m, &cuts) != 0) return -1;
  int cap = 0, rc = 0;
  for (int a = 0; a < t->n_allocs && rc == 0; a++)
    for (int s = 0; s < m.alloc_n[a]; s++) {
      int g = m.alloc_first[a] + s;
      if (!m.live_in[g]) continue;
      if (*n > 0 && (*out)[*n - 1].alloc == a &&
          (*out)[*n - 1].offset + (*out)[*n - 1].bytes == cuts[a][s]) {
        (*out)[*n - 1].bytes += m.seg_bytes[g]; /* merge adjacent segments */
        continue;
      }
      if (*n == cap) {
        cap = cap ? 2 * cap : 16;
        plan_range *r = realloc(*out, (size_t)cap * sizeof *r);
        if (!r) { rc = -1; break; }
        *out = r;
      }
      (*out)[*n].alloc = a;
      (*out)[*n].offset = cuts[a][s];
      (*out)[*n].bytes = m.seg_bytes[g];
      (*n)++;
    }
  segmap_destroy(&m, cuts, t->n_allocs);
  if (rc != 0) { free(*out); *out = NULL; *n = 0; }
  return rc;
}

uint64_t plan_modelled_peak(const tidal_trace *t, const plan_action *actions, int n) {
  segmap m;
  uint64_t **cuts;
  if (segmap_build(t, &m, &cuts) != 0) return UINT64_MAX;
  uint64_t p = simulate(t, &m, actions, n, NULL, NULL);
  segmap_destroy(&m, cuts, t->n_allocs);
  return p;
}

/* ---- candidates ---- */

typedef enum method { M_NONE = 0, M_DROP, M_SWAP, M_RECOMPUTE, M_KEEP } method;

typedef struct inst {
  int i;          /* op of the last use (iteration 0) */
  int acc;        /* its access index */
  int j;          /* next use, as a dynamic index in (i, i+N] */
  int producer;   /* last writer of the range before i in this iteration, -1 */
} inst;

typedef struct group {
  int static_op, static_access;
  int n;          /* instances */
  inst *in;
  uint64_t bytes; /* summed over instances */
  int max_idle;
  int drop_ok;
  int recompute_ok;
  const char *no_recompute; /* why not, when a reason is worth telling */
  int prod_static_op, prod_static_access;
  double swap_cost, recompute_cost; /* swap_cost at pf_scale */
  double pf_scale; /* fraction of the copy-in time the prefetch tries to hide
                      (1: all; 0: issued right before the use); lowered when an
                      early prefetch holds memory at the peak (Note [late prefetch]) */
  method chosen;
  int considered;
  int at_split;   /* an instance's last use is a split op: the runtime moved it
                     (Note [split ops in the model]); only a drop is planned */
  int short_drop; /* dead across an idle span shorter than min_idle: only a
                     budget-driven drop (Note [short drops]) */
} group;

typedef struct planner {
  const tidal_trace *t;
  const plan_options *o;
  segmap m;
  uint64_t **cuts;
  double *op_s;     /* per op: modelled duration */
  uint64_t *split;  /* per op: split_needs under the budget, or NULL (none splits) */
  int n_groups;
  group *groups;
  /* output being built */
  plan_action *acts;
  int n_acts, cap_acts;
  char **notes;
  int n_notes, cap_notes;
  int oom;
} planner;

static char *xstrdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

#if defined(__GNUC__)
static void add_note(planner *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#endif

static void add_note(planner *p, const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  for (int k = 0; k < p->n_notes; k++)
    if (strcmp(p->notes[k], buf) == 0) return;
  if (p->n_notes == p->cap_notes) {
    int cap = p->cap_notes ? 2 * p->cap_notes : 8;
    char **n = realloc(p->notes, (size_t)cap * sizeof *n);
    if (!n) { p->oom = 1; return; }
    p->notes = n;
    p->cap_notes = cap;
  }
  char *s = xstrdup(buf);
  if (!s) { p->oom = 1; return; }
  p->notes[p->n_notes++] = s;
}

/* Does op k touch any segment in [s0, s1)?  *modes gets the OR of the modes
 * of the touching accesses, *all_exact_writes whether every touching access
 * is an exact write. */
static int op_touches(const planner *p, int k, int s0, int s1, unsigned *modes,
                      int *all_exact_writes) {
  const trace_op *op = &p->t->ops[k];
  int hit = 0;
  unsigned md = 0;
  int aew = 1;
  for (int j = 0; j < op->n_acc; j++) {
    if (!ranges_overlap(S0(&p->m, k, j), S1(&p->m, k, j), s0, s1)) continue;
    hit = 1;
    md |= (unsigned)op->acc[j].mode;
    if (op->acc[j].mode != ACCESS_WRITE || !op->acc[j].exact) aew = 0;
  }
  if (modes) *modes = md;
  if (all_exact_writes) *all_exact_writes = aew;
  return hit;
}

/* Next dynamic op in (i, i+N] touching [s0, s1). */
static int next_touch(const planner *p, int i, int s0, int s1) {
  int N = p->t->n_ops;
  for (int g = i + 1; g <= i + N; g++)
    if (op_touches(p, g % N, s0, s1, NULL, NULL)) return g;
  return i + N;
}

/* Note [overwrites across periodic branches]
 * An op under a periodic branch (`if ((step + 1) % eval_every == 0)
 * evaluate(...)`) runs on some steps only, so its write cannot make what
 * came before dead by itself (unroll.c): on the other steps the old bytes
 * are still what the next reader gets.  But data is dead when on every
 * path the first access to it overwrites every byte before reading, and a
 * branch either runs or does not: when a periodic op's accesses to a byte
 * are all exact writes (trace_access.run_exact_write), the path on which it
 * runs has its data dead there, and the path on which it does not goes on
 * to the next access; the branch's later ops read only what it wrote or do
 * not run.  So the scan for the next access passes over such a write and
 * over later ops of the same branch, and the data is dead when the first
 * unconditional access is an exact write too (an evaluation that re-runs
 * the forward pass into the training activations, cuBLAS with beta = 0:
 * the activations are dropped after backward, whether the next forward is
 * the evaluation's or the next step's; before, they were swapped out and
 * prefetched every step).  A periodic read, or a write that keeps some old
 * bytes (declared readwrite), before that is a use: not dead. */
static int periodic_exact_write(const planner *p, int k, int s0, int s1) {
  const trace_op *op = &p->t->ops[k];
  for (int j = 0; j < op->n_acc; j++)
    if (ranges_overlap(S0(&p->m, k, j), S1(&p->m, k, j), s0, s1) && !op->acc[j].run_exact_write)
      return 0;
  return 1;
}

#define DEAD_MAX_BRANCHES 16 /* periodic branches passed in one scan; more: not dead */

/* Every byte of [s0, s1) is next touched, after i, by an exact write only:
 * the contents are dead and can be dropped (periodic ops: Note [overwrites
 * across periodic branches]). */
static int dead_after(const planner *p, int i, int s0, int s1) {
  int N = p->t->n_ops;
  for (int s = s0; s < s1; s++) {
    int found = 0, passed[DEAD_MAX_BRANCHES], n_passed = 0;
    for (int g = i + 1; g <= i + N && !found; g++) {
      unsigned md;
      int aew, k = g % N;
      if (!op_touches(p, k, s, s + 1, &md, &aew)) continue;
      const trace_op *op = &p->t->ops[k];
      if (op->phase == TRACE_PERIODIC && g < i + N) {
        int seen = 0;
        for (int q = 0; q < n_passed && !seen; q++) seen = passed[q] == op->branch;
        if (seen) continue; /* reads its own branch's write, or does not run */
        if (!periodic_exact_write(p, k, s, s + 1) || n_passed == DEAD_MAX_BRANCHES) return 0;
        passed[n_passed++] = op->branch;
        continue; /* the steps it does not run on go on to the next access */
      }
      if (!aew) return 0;
      found = 1;
    }
    if (!found) return 0;
  }
  return 1;
}

/* Is any segment of [s0, s1) written by an op in the dynamic range (a, b),
 * other than op `except`? */
static int written_between(const planner *p, int a, int b, int s0, int s1, int except) {
  int N = p->t->n_ops;
  for (int g = a + 1; g < b; g++) {
    int k = g % N;
    if (k == except) continue;
    unsigned md;
    if (op_touches(p, k, s0, s1, &md, NULL) && (md & ACCESS_WRITE)) return 1;
  }
  return 0;
}

/* Can static access `sa` of producer instance `pi` be recomputed, for the
 * whole life of a registration made right after it (until its range is next
 * written by another op, or the iteration ends)?  *why explains a refusal
 * worth reporting. */
static int recompute_safe(const planner *p, int pi, int sa, const char **why) {
  const tidal_trace *t = p->t;
  const trace_op *op = &t->ops[pi];
  int j = plan_find_static_access(op, sa);
  if (j < 0) return 0;
  if (op->flags & KERNEL_RNG) {
    *why = "producer uses RNG state: never recomputed";
    return 0;
  }
  if (op->flags & KERNEL_NONDETERMINISTIC) {
    *why = "producer is nondeterministic: never recomputed";
    return 0;
  }
  if (op->flags & KERNEL_INPLACE) {
    *why = "producer updates a buffer in place: re-running it is not idempotent";
    return 0;
  }
  if (p->split && p->split[pi]) { /* Note [split ops in the model] */
    *why = "producer runs split: never recomputed";
    return 0;
  }
  if (op->acc[j].mode != ACCESS_WRITE || !op->acc[j].exact) return 0;
  /* Note [aliased update]: a read-only and a write-only parameter given
   * the same buffer (llm.c's `gelu_backward(dl_bt4c, l_fch, dl_bt4c, N)`)
   * update it in place although neither parameter is READWRITE.  A re-run
   * would read what the first run wrote, and once the output is dropped
   * it needs its own output: the runtime's "needs its own output (a
   * cycle)". */
  for (int q = 0; q < op->n_acc; q++) {
    if (!(op->acc[q].mode & ACCESS_READ)) continue;
    for (int w = 0; w < op->n_acc; w++)
      if (w != q && (op->acc[w].mode & ACCESS_WRITE) &&
          ranges_overlap(S0(&p->m, pi, q), S1(&p->m, pi, q), S0(&p->m, pi, w),
                         S1(&p->m, pi, w))) {
        *why = "producer reads a buffer it writes (aliased arguments): re-running it is not "
               "idempotent";
        return 0;
      }
  }
  int s0 = S0(&p->m, pi, j), s1 = S1(&p->m, pi, j);
  /* registration ends when another op writes the range, or at iteration end */
  int stop = t->n_ops;
  for (int g = pi + 1; g < t->n_ops; g++) {
    unsigned md;
    if (op_touches(p, g, s0, s1, &md, NULL) && (md & ACCESS_WRITE)) { stop = g; break; }
  }
  /* only a touch can trigger the closure: its last chance is the last op
   * touching the range before the registration ends */
  int end = pi;
  for (int g = pi + 1; g < stop; g++)
    if (op_touches(p, g, s0, s1, NULL, NULL)) end = g;
  for (int q = 0; q < op->n_acc; q++) {
    if (op->acc[q].mode == ACCESS_READWRITE) {
      *why = "producer updates a buffer in place: re-running it is not idempotent";
      return 0;
    }
    if (q == j) continue;
    /* its inputs must still hold the same bytes, and its other outputs must
     * not have been rewritten since (a re-run would clobber them) */
    if (written_between(p, pi, end, S0(&p->m, pi, q), S1(&p->m, pi, q), pi)) {
      *why = "an input of the producer is overwritten before the re-use";
      return 0;
    }
    /* nor dropped: a drop declares bytes dead that the re-run would read */
    for (int k = 0; k < p->n_groups; k++) {
      const group *gr = &p->groups[k];
      if (!gr->drop_ok) continue;
      for (int n = 0; n < gr->n; n++) {
        const inst *in = &gr->in[n];
        if (in->i < pi || in->i >= end) continue;
        if (ranges_overlap(S0(&p->m, in->i, in->acc), S1(&p->m, in->i, in->acc),
                           S0(&p->m, pi, q), S1(&p->m, pi, q))) {
          *why = "an input of the producer is dropped before the re-use";
          return 0;
        }
      }
    }
  }
  return 1;
}

/* Latest op in the scope of next use `jn` (a dynamic index) and after the
 * eviction at i, early enough that the compute in between hides `scale` of
 * a copy of `bytes` (scale 0: the use itself).  Returns the dynamic index
 * (== jn when nothing earlier fits) and the hidden seconds in *hidden. */
static int prefetch_point(const planner *p, int i, int jn, uint64_t bytes, double scale,
                          double *hidden) {
  const tidal_trace *t = p->t;
  int N = t->n_ops;
  const trace_op *use = &t->ops[jn % N];
  double need = cost_h2d_seconds(&p->o->cost, bytes) * scale, acc = 0;
  int best = jn;
  double best_acc = 0;
  if (need <= 0 || (p->split && p->split[jn % N])) { /* a split use: no prefetch */
    *hidden = 0;
    return jn;
  }
  /* any op may lie in between; only ops of the use's scope (same iteration)
   * may carry the call, since only there is its pointer expression valid */
  for (int g = jn - 1; g > i && (g >= N) == (jn >= N); g--) {
    acc += p->op_s[g % N];
    if (t->ops[g % N].scope != use->scope) continue;
    best = g;
    best_acc = acc;
    if (acc >= need) break;
  }
  *hidden = best_acc;
  return best;
}

/* Bytes of instance `in`'s evicted range. */
static uint64_t inst_bytes(const planner *p, const inst *in) {
  uint64_t b = 0;
  for (int s = S0(&p->m, in->i, in->acc); s < S1(&p->m, in->i, in->acc); s++)
    b += p->m.seg_bytes[s];
  return b;
}

/* Swap cost of one instance: the exposed part of the copy back (what the
 * compute between the prefetch and the use does not hide) and the calls. */
static double inst_swap_cost(const planner *p, const inst *in, double scale) {
  double hidden;
  uint64_t bytes = inst_bytes(p, in);
  (void)prefetch_point(p, in->i, in->j, bytes, scale, &hidden);
  double in_s = cost_h2d_seconds(&p->o->cost, bytes);
  return (in_s > hidden ? in_s - hidden : 0) + 2 * PLAN_CALL_OVERHEAD_S;
}

static double group_swap_cost(const planner *p, const group *gr, double scale) {
  double c = 0;
  for (int k = 0; k < gr->n; k++) c += inst_swap_cost(p, &gr->in[k], scale);
  return c;
}

static int build_groups(planner *p) {
  const tidal_trace *t = p->t;
  int N = t->n_ops;
  int min_idle = p->o->min_idle_ops > 0 ? p->o->min_idle_ops : DEFAULT_MIN_IDLE_OPS;
  for (int i = 0; i < N; i++) {
    const trace_op *op = &t->ops[i];
    for (int a = 0; a < op->n_acc; a++) {
      int s0 = S0(&p->m, i, a), s1 = S1(&p->m, i, a);
      if (s1 <= s0) continue;
      int j = next_touch(p, i, s0, s1);
      int idle = j - i - 1;
      /* find or create the group */
      group *gr = NULL;
      for (int k = 0; k < p->n_groups; k++)
        if (p->groups[k].static_op == op->static_op &&
            p->groups[k].static_access == op->acc[a].static_access) {
          gr = &p->groups[k];
          break;
        }
      if (!gr) {
        group *ng = realloc(p->groups, (size_t)(p->n_groups + 1) * sizeof *ng);
        if (!ng) return -1;
        p->groups = ng;
        gr = &p->groups[p->n_groups++];
        memset(gr, 0, sizeof *gr);
        gr->static_op = op->static_op;
        gr->static_access = op->acc[a].static_access;
        gr->drop_ok = 1;
        gr->recompute_ok = 1;
        gr->prod_static_op = -1;
        gr->pf_scale = 1.0;
      }
      inst *ni = realloc(gr->in, (size_t)(gr->n + 1) * sizeof *ni);
      if (!ni) return -1;
      gr->in = ni;
      inst *in = &gr->in[gr->n++];
      in->i = i;
      in->acc = a;
      in->j = j;
      in->producer = -1;
      if (p->split && p->split[i]) gr->at_split = 1;
      uint64_t bytes = 0;
      for (int s = s0; s < s1; s++) bytes += p->m.seg_bytes[s];
      gr->bytes += bytes;
      if (idle > gr->max_idle) gr->max_idle = idle;
      if (!dead_after(p, i, s0, s1)) gr->drop_ok = 0;
      /* producer: the last op at or before i (this iteration) writing it */
      for (int k = i; k >= 0; k--) {
        unsigned md;
        if (op_touches(p, k, s0, s1, &md, NULL) && (md & ACCESS_WRITE)) {
          in->producer = k;
          break;
        }
      }
      gr->swap_cost += inst_swap_cost(p, in, 1.0);
      /* recompute legality for this instance (an RNG producer is reported
       * even when an earlier instance already ruled recompute out) */
      if (!gr->recompute_ok && (in->producer < 0 ||
                                !(t->ops[in->producer].flags & (KERNEL_RNG | KERNEL_NONDETERMINISTIC))))
        continue;
      int pr = in->producer;
      if (pr >= 0 && (t->ops[pr].flags & KERNEL_RNG)) {
        gr->recompute_ok = 0;
        gr->no_recompute = "producer uses RNG state: never recomputed";
        continue;
      }
      if (pr >= 0 && (t->ops[pr].flags & KERNEL_NONDETERMINISTIC)) {
        gr->recompute_ok = 0;
        gr->no_recompute = "producer is nondeterministic: never recomputed";
        continue;
      }
      if (pr < 0 || j >= N) { gr->recompute_ok = 0; continue; }
      int pa = -1;
      for (int q = 0; q < t->ops[pr].n_acc; q++)
        if ((t->ops[pr].acc[q].mode & ACCESS_WRITE) && S0(&p->m, pr, q) <= s0 &&
            S1(&p->m, pr, q) >= s1) {
          pa = q;
          break;
        }
      if (pa < 0) { gr->recompute_ok = 0; continue; }
      int psa = t->ops[pr].acc[pa].static_access;
      if (gr->prod_static_op == -1 && gr->n == 1) {
        gr->prod_static_op = t->ops[pr].static_op;
        gr->prod_static_access = psa;
      } else if (gr->prod_static_op != t->ops[pr].static_op ||
                 gr->prod_static_access != psa) {
        gr->recompute_ok = 0;
        continue;
      }
      gr->recompute_cost += p->op_s[pr] + PLAN_CALL_OVERHEAD_S;
    }
  }
  /* recompute: every instance of the producer must be safe (Note [groups are
   * static]); drops and swaps need an idle span worth the call */
  /* Note [short drops]: data dead across a short span (a cuDNN workspace
   * between two convolutions at the peak) costs no copy to drop, only the
   * unmap and the fresh map: not worth it when the budget does not bind,
   * so not a free drop, but a candidate of the budget loop, where holding
   * it may be what exceeds the budget. */
  for (int k = 0; k < p->n_groups; k++) {
    group *gr = &p->groups[k];
    if (gr->max_idle < min_idle) {
      gr->short_drop = gr->drop_ok && gr->max_idle >= 1;
      gr->drop_ok = 0;
      gr->recompute_ok = 0;
      if (!gr->short_drop) gr->considered = -1; /* not a candidate */
    }
  }
  /* (drops are settled first: recompute_safe checks against them) */
  for (int k = 0; k < p->n_groups; k++) {
    group *gr = &p->groups[k];
    if (gr->considered == -1) continue;
    if (gr->recompute_ok && gr->prod_static_op >= 0) {
      for (int pi = 0; pi < N; pi++) {
        if (t->ops[pi].static_op != gr->prod_static_op) continue;
        const char *why = NULL;
        if (!recompute_safe(p, pi, gr->prod_static_access, &why)) {
          gr->recompute_ok = 0;
          gr->no_recompute = why;
          break;
        }
      }
    } else {
      gr->recompute_ok = 0;
    }
  }
  return 0;
}

/* ---- emitting actions ---- */

static void fmt_bytes(char *buf, size_t n, uint64_t b) {
  if (b >= (1ull << 30)) snprintf(buf, n, "%.1f GiB", (double)b / (1ull << 30));
  else if (b >= (1ull << 20)) snprintf(buf, n, "%.1f MiB", (double)b / (1ull << 20));
  else if (b >= (1ull << 10)) snprintf(buf, n, "%.1f KiB", (double)b / (1ull << 10));
  else snprintf(buf, n, "%llu B", (unsigned long long)b);
}

static plan_action *push_action(planner *p, plan_kind kind, int at_op, plan_where where,
                                int ref_op, int ref_access, const char *tensor, uint64_t bytes,
                                int idle, const char *reason) {
  for (int k = 0; k < p->n_acts; k++) {
    plan_action *a = &p->acts[k];
    if (a->kind == kind && a->at_op == at_op && a->where == where && a->ref_op == ref_op &&
        a->ref_access == ref_access)
      return a; /* two groups wanting the same call: emit it once */
  }
  if (p->n_acts == p->cap_acts) {
    int cap = p->cap_acts ? 2 * p->cap_acts : 16;
    plan_action *n = realloc(p->acts, (size_t)cap * sizeof *n);
    if (!n) { p->oom = 1; return NULL; }
    p->acts = n;
    p->cap_acts = cap;
  }
  plan_action *a = &p->acts[p->n_acts];
  memset(a, 0, sizeof *a);
  a->kind = kind;
  a->at_op = at_op;
  a->where = where;
  a->ref_op = ref_op;
  a->ref_access = ref_access;
  a->tensor = xstrdup(tensor);
  a->reason = xstrdup(reason);
  a->bytes = bytes;
  a->idle_ops = idle;
  if (!a->tensor || !a->reason) {
    free(a->tensor);
    free(a->reason);
    p->oom = 1;
    return NULL;
  }
  p->n_acts++;
  for (int i = 0; i < p->t->n_ops; i++)
    if (p->t->ops[i].static_op == at_op) a->instances++;
  return a;
}

static const char *gap_story(const planner *p, const inst *in) {
  const tidal_trace *t = p->t;
  int N = t->n_ops;
  int from = in->producer >= 0 ? t->ops[in->producer].phase : t->ops[in->i].phase;
  int to = t->ops[in->j % N].phase;
  if (in->j >= N) return "state carried to the next iteration";
  if (from == TRACE_FORWARD && to == TRACE_BACKWARD) return "written in forward, read in backward";
  return "idle between uses";
}

/* Emits the actions of one group under its chosen method. */
static void emit_group(planner *p, group *gr) {
  const tidal_trace *t = p->t;
  int N = t->n_ops;
  const inst *first = &gr->in[0];
  /* describe with the instance that has the longest idle span */
  for (int k = 0; k < gr->n; k++)
    if (gr->in[k].j - gr->in[k].i > first->j - first->i) first = &gr->in[k];
  const trace_access *ac = &t->ops[first->i].acc[first->acc];
  const char *tname = t->tensors[ac->tensor].name;
  uint64_t bytes = ac->bytes;
  int idle = first->j - first->i - 1;
  char sz[32], reason[400];
  fmt_bytes(sz, sizeof sz, bytes);
  const char *story = gap_story(p, first);
  if (gr->chosen == M_DROP) {
    snprintf(reason, sizeof reason, "%s; idle %d ops; %s; next access overwrites every byte: "
             "dropped, never copied", story, idle, sz);
    push_action(p, PLAN_DROP, gr->static_op, PLAN_AFTER, gr->static_op, gr->static_access,
                tname, bytes, idle, reason);
    return;
  }
  if (gr->chosen == M_KEEP) {
    snprintf(reason, sizeof reason, "%s; idle %d ops; %s; live across the peak but not "
             "recomputable (%s): kept resident", story, idle, sz,
             gr->no_recompute ? gr->no_recompute : "no single idempotent producer");
    push_action(p, PLAN_KEEP, gr->static_op, PLAN_AFTER, gr->static_op, gr->static_access,
                tname, bytes, idle, reason);
    return;
  }
  if (gr->chosen == M_RECOMPUTE) {
    const trace_op *prod = &t->ops[first->producer];
    snprintf(reason, sizeof reason, "%s; idle %d ops; %s; re-running %s costs %.1f us, "
             "cheaper than moving it", story, idle, sz, prod->label,
             p->op_s[first->producer] * 1e6);
    push_action(p, PLAN_RECOMPUTE, gr->prod_static_op, PLAN_AFTER, gr->prod_static_op,
                gr->prod_static_access, tname, bytes, idle, reason);
    plan_action *so = push_action(p, PLAN_SWAP_OUT, gr->static_op, PLAN_AFTER, gr->static_op,
                                  gr->static_access, tname, bytes, idle, reason);
    if (so) so->recomputed = 1;
    return;
  }
  /* swap: out after the last use, a prefetch per distinct (point, next use) */
  double hidden;
  int pf = prefetch_point(p, first->i, first->j, bytes, gr->pf_scale, &hidden);
  int hidden_ops = first->j - pf;
  if (gr->no_recompute)
    snprintf(reason, sizeof reason, "%s; idle %d ops; %s; swap hides behind %d ops of compute "
             "(%s)", story, idle, sz, hidden_ops, gr->no_recompute);
  else
    snprintf(reason, sizeof reason, "%s; idle %d ops; %s; swap hides behind %d ops of compute",
             story, idle, sz, hidden_ops);
  push_action(p, PLAN_SWAP_OUT, gr->static_op, PLAN_AFTER, gr->static_op, gr->static_access,
              tname, bytes, idle, reason);
  for (int k = 0; k < gr->n; k++) {
    const inst *in = &gr->in[k];
    const trace_op *use = &t->ops[in->j % N];
    /* the next use's access that overlaps the evicted range most */
    int s0 = S0(&p->m, in->i, in->acc), s1 = S1(&p->m, in->i, in->acc);
    int best = -1;
    uint64_t best_b = 0;
    for (int q = 0; q < use->n_acc; q++) {
      int u0 = S0(&p->m, in->j % N, q), u1 = S1(&p->m, in->j % N, q);
      uint64_t ob = 0;
      for (int s = (u0 > s0 ? u0 : s0); s < (u1 < s1 ? u1 : s1); s++) ob += p->m.seg_bytes[s];
      if (ob > best_b) { best_b = ob; best = q; }
    }
    if (best < 0) continue;
    const trace_access *ua = &use->acc[best];
    /* an exact write maps fresh memory: nothing to fetch; a write not proven
     * exact is declared readwrite (the old bytes it skips must survive), so
     * the runtime restores the range and the plan prefetches it */
    if (ua->mode == ACCESS_WRITE && ua->exact) continue;
    /* a split use restores each piece in its op_begin (Note [split ops in
     * the model]) */
    if (p->split && p->split[in->j % N]) continue;
    int at = prefetch_point(p, in->i, in->j, ua->bytes, gr->pf_scale, &hidden);
    const trace_op *atop = &t->ops[at % N];
    char r2[400], sz2[32];
    fmt_bytes(sz2, sizeof sz2, ua->bytes);
    snprintf(r2, sizeof r2, "next use by %s; %s; issued %d ops ahead (%.1f us of compute hides "
             "a %.1f us copy)", use->label, sz2, in->j - at, hidden * 1e6,
             cost_h2d_seconds(&p->o->cost, ua->bytes) * 1e6);
    push_action(p, PLAN_PREFETCH, atop->static_op, PLAN_BEFORE, use->static_op,
                ua->static_access, t->tensors[ua->tensor].name, ua->bytes, idle, r2);
  }
}

static int action_cmp(const void *x, const void *y) {
  const plan_action *a = x, *b = y;
  if (a->at_op != b->at_op) return a->at_op < b->at_op ? -1 : 1;
  if (a->where != b->where) return a->where < b->where ? -1 : 1;
  if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
  if (a->ref_op != b->ref_op) return a->ref_op < b->ref_op ? -1 : 1;
  return a->ref_access - b->ref_access;
}

static void clear_actions(planner *p) {
  for (int k = 0; k < p->n_acts; k++) {
    free(p->acts[k].tensor);
    free(p->acts[k].reason);
  }
  p->n_acts = 0;
}

static void emit_all(planner *p) {
  clear_actions(p);
  for (int k = 0; k < p->n_groups; k++)
    if (p->groups[k].chosen != M_NONE) emit_group(p, &p->groups[k]);
}

/* Does an instance of gr keep its range evicted across dynamic op g (of the
 * two simulated iterations)? */
static int group_spans(const planner *p, const group *gr, int g) {
  int N = p->t->n_ops;
  for (int k = 0; k < gr->n; k++)
    for (int it = 0; it < 2; it++) {
      int a = gr->in[k].i + it * N, b = gr->in[k].j + it * N;
      if (a < g && g < b) return 1;
    }
  return 0;
}

/* Note [late prefetch]
 * A prefetch issued early enough to hide its copy keeps the range resident
 * from the prefetch to the use.  Where the next use's scope offers no
 * nearby op (a use after a layer loop, the optimizer's state fetched across
 * the whole backward pass) that window can span the peak, and no eviction
 * can help: the data is resident because the plan brought it back.  So a
 * swapped group has a pf_scale, the fraction of its copy time the prefetch
 * tries to hide; the greedy loop may lower it (halving, then 0: right before
 * the use), paying the copy time no longer hidden, exactly like an
 * eviction.  Options are compared by bytes freed at the peak per second of
 * modelled overhead. */
#define PF_SCALE_MIN 0.0625 /* below this, the prefetch goes right before the use */

static double lower_scale(double s) { return s / 2 >= PF_SCALE_MIN ? s / 2 : 0; }

/* For a swapped group whose prefetched range is held across dynamic op g:
 * the largest lower pf_scale that moves at least one such prefetch past g
 * (-1 if none), the bytes that frees at g in *freed. */
static double delay_scale(const planner *p, const group *gr, int g, uint64_t *freed) {
  int N = p->t->n_ops;
  double best = -1, h;
  *freed = 0;
  if (gr->chosen != M_SWAP || gr->pf_scale <= 0) return -1;
  for (int k = 0; k < gr->n; k++)
    for (int it = 0; it < 2; it++) {
      const inst *in = &gr->in[k];
      uint64_t b = inst_bytes(p, in);
      int pf = prefetch_point(p, in->i, in->j, b, gr->pf_scale, &h) + it * N;
      if (!(pf <= g && g < in->j + it * N)) continue;
      double sc = gr->pf_scale;
      do sc = lower_scale(sc);
      while (sc > 0 && prefetch_point(p, in->i, in->j, b, sc, &h) + it * N <= g);
      if (sc > best) best = sc;
    }
  if (best < 0) return -1;
  for (int k = 0; k < gr->n; k++)
    for (int it = 0; it < 2; it++) {
      const inst *in = &gr->in[k];
      uint64_t b = inst_bytes(p, in);
      int pf = prefetch_point(p, in->i, in->j, b, gr->pf_scale, &h) + it * N;
      int pf2 = prefetch_point(p, in->i, in->j, b, best, &h) + it * N;
      if (pf <= g && g < in->j + it * N && pf2 > g) *freed += b;
    }
  return best;
}

/* The plan of one mode (auto here: per candidate the cheaper method). */
static int plan_make_mode(const tidal_trace *t, const plan_options *o, plan_mode mode,
                          plan_result *out) {
  planner P;
  memset(&P, 0, sizeof P);
  P.t = t;
  P.o = o;
  int rc = -1;
  if (segmap_build(t, &P.m, &P.cuts) != 0) return -1;
  P.op_s = calloc((size_t)(t->n_ops ? t->n_ops : 1), sizeof(double));
  if (!P.op_s) goto out;
  double compute = 0;
  for (int i = 0; i < t->n_ops; i++) {
    P.op_s[i] = plan_op_seconds(t, i, &o->cost);
    compute += P.op_s[i];
  }
  uint64_t peak_before = simulate(t, &P.m, NULL, 0, NULL, NULL); /* as the program runs now */
  P.split = split_needs(t, o->budget_bytes);
  for (int i = 0; P.split && i < t->n_ops; i++) {
    if (!P.split[i]) continue;
    const trace_op *op = &t->ops[i];
    uint64_t eb = 0, piece = split_piece_elements(op, o->budget_bytes);
    for (int a = 0; a < op->n_acc; a++) eb += op->acc[a].split_elem_bytes;
    char whole[32], part[32];
    fmt_bytes(whole, sizeof whole, op->split_count * eb);
    fmt_bytes(part, sizeof part, piece * eb);
    add_note(&P, "%s runs split: %llu elements (%s) in pieces of %llu (%s); the runtime moves "
             "the pieces; never recomputed", op->label, (unsigned long long)op->split_count,
             whole, (unsigned long long)piece, part);
  }
  if (mode != PLAN_MODE_NONE && t->n_ops > 0) {
    if (build_groups(&P) != 0) goto out;
    /* free first: every legal drop */
    for (int k = 0; k < P.n_groups; k++) {
      if (t->n_unresolved > 0) P.groups[k].drop_ok = 0; /* Note below */
      if (P.groups[k].drop_ok) P.groups[k].chosen = M_DROP;
    }
    /* Note [no drops beside unresolved accesses]: an access the graph could
     * not attribute may read any tensor; if it read a dropped one it would
     * see garbage (the runtime maps dropped memory fresh).  Swaps and
     * recomputes stay safe: the runtime restores what a declared access
     * touches.  So unresolved accesses turn drops off, and say so. */
    if (t->n_unresolved > 0)
      add_note(&P, "no drops planned: %d access(es) per iteration could not be attributed to "
                   "a tensor, and one of them might read dropped data",
               t->n_unresolved);
    emit_all(&P);
    /* then the cheapest evictions idle across the peak, until it fits */
    while (o->budget_bytes > 0 && !P.oom) {
      int at;
      uint64_t peak = simulate(t, &P.m, P.acts, P.n_acts, P.split, &at);
      if (peak <= o->budget_bytes) break;
      int best = -1;
      method best_m = M_NONE;
      double best_score = -1, best_scale = -1;
      for (int k = 0; k < P.n_groups; k++) {
        group *gr = &P.groups[k];
        if (gr->chosen != M_NONE || gr->considered) continue;
        if (!group_spans(&P, gr, at)) continue;
        if (gr->at_split && !gr->short_drop) continue; /* Note [split ops in the model] */
        method m = M_NONE;
        double cost = 0;
        int can_swap = (mode == PLAN_MODE_AUTO || mode == PLAN_MODE_SWAP) && !gr->short_drop;
        int can_rec = (mode == PLAN_MODE_AUTO || mode == PLAN_MODE_RECOMPUTE) &&
                      gr->recompute_ok;
        if (gr->short_drop && t->n_unresolved == 0) {
          m = M_DROP; /* Note [short drops]: the two calls are its whole cost */
          cost = 2 * PLAN_CALL_OVERHEAD_S;
        }
        if (can_swap) { m = M_SWAP; cost = gr->swap_cost; }
        if (can_rec && (m == M_NONE || gr->recompute_cost < cost)) {
          m = M_RECOMPUTE;
          cost = gr->recompute_cost;
        }
        if (m == M_NONE) {
          /* recompute-only and not recomputable: say so, keep it resident */
          if (mode == PLAN_MODE_RECOMPUTE) {
            gr->chosen = M_KEEP;
            gr->considered = 1;
            const trace_access *ac = &t->ops[gr->in[0].i].acc[gr->in[0].acc];
            char sz[32];
            fmt_bytes(sz, sizeof sz, ac->bytes);
            add_note(&P, "%s (%s): %s; kept resident", t->tensors[ac->tensor].name, sz,
                     gr->no_recompute ? gr->no_recompute : "no single idempotent producer");
            emit_group(&P, gr);
          }
          continue;
        }
        double score = (double)gr->bytes / (cost + 1e-9);
        if (score > best_score) { best_score = score; best = k; best_m = m; best_scale = -1; }
      }
      /* or a prefetch issued later (Note [late prefetch]) */
      for (int k = 0; k < P.n_groups; k++) {
        group *gr = &P.groups[k];
        uint64_t freed;
        double sc = delay_scale(&P, gr, at, &freed);
        if (sc < 0 || freed == 0) continue;
        double extra = group_swap_cost(&P, gr, sc) - gr->swap_cost;
        double score = (double)freed / ((extra > 0 ? extra : 0) + 1e-9);
        if (score > best_score) { best_score = score; best = k; best_m = M_SWAP; best_scale = sc; }
      }
      if (best < 0) {
        const trace_op *op = &t->ops[at % t->n_ops];
        char sz[32], bz[32];
        fmt_bytes(sz, sizeof sz, peak);
        fmt_bytes(bz, sizeof bz, o->budget_bytes);
        add_note(&P, "modelled peak %s at %s (op %d) exceeds the budget %s: nothing left "
                 "that the %s plan may evict there", sz, op->label, at % t->n_ops, bz,
                 plan_mode_name(mode));
        break;
      }
      if (best_scale >= 0) {
        P.groups[best].pf_scale = best_scale;
        P.groups[best].swap_cost = group_swap_cost(&P, &P.groups[best], best_scale);
      }
      P.groups[best].chosen = best_m;
      P.groups[best].considered = 1;
      emit_all(&P);
    }
  }
  if (P.oom) goto out;
  if (P.n_acts > 1) qsort(P.acts, (size_t)P.n_acts, sizeof *P.acts, action_cmp);
  memset(out, 0, sizeof *out);
  out->peak_before = peak_before;
  out->peak_after = simulate(t, &P.m, P.acts, P.n_acts, P.split, NULL);
  out->budget_bytes = o->budget_bytes;
  out->budget_met = o->budget_bytes == 0 || out->peak_after <= o->budget_bytes;
  out->modelled_compute_s = compute;
  for (int k = 0; k < P.n_groups; k++) {
    const group *gr = &P.groups[k];
    if (gr->chosen == M_NONE || gr->chosen == M_KEEP) continue;
    out->evicted_bytes += gr->bytes;
    if (gr->chosen == M_DROP) out->dropped_bytes += gr->bytes;
    if (gr->chosen == M_SWAP) {
      out->swapped_bytes += gr->bytes;
      out->modelled_overhead_s += gr->swap_cost;
    }
    if (gr->chosen == M_RECOMPUTE) {
      out->recomputed_bytes += gr->bytes;
      out->modelled_overhead_s += gr->recompute_cost;
    }
  }
  /* recompute refusals worth telling even when the swap was taken */
  for (int k = 0; k < P.n_groups; k++) {
    const group *gr = &P.groups[k];
    if (gr->considered != 1 || !gr->no_recompute || gr->chosen == M_RECOMPUTE) continue;
    const inst *in = &gr->in[0];
    const trace_access *ac = &t->ops[in->i].acc[in->acc];
    if (mode != PLAN_MODE_RECOMPUTE)
      add_note(&P, "%s: %s", t->tensors[ac->tensor].name, gr->no_recompute);
  }
  if (P.oom) goto out;
  out->actions = P.acts;
  out->n_actions = P.n_acts;
  out->notes = P.notes;
  out->n_notes = P.n_notes;
  P.acts = NULL;
  P.n_acts = 0;
  P.notes = NULL;
  P.n_notes = 0;
  rc = 0;
out:
  clear_actions(&P);
  free(P.acts);
  for (int k = 0; k < P.n_notes; k++) free(P.notes[k]);
  free(P.notes);
  for (int k = 0; k < P.n_groups; k++) free(P.groups[k].in);
  free(P.groups);
  free(P.op_s);
  free(P.split);
  segmap_destroy(&P.m, P.cuts, t->n_allocs);
  return rc;
}

/* Is plan a better than plan b?  One that meets the budget beats one that
 * does not; then the lower modelled overhead; when neither meets it, the
 * lower peak first (the runtime's faults cover the rest). */
static int plan_better(const plan_result *a, const plan_result *b) {
  if (a->budget_met != b->budget_met) return a->budget_met;
  if (!a->budget_met && a->peak_after != b->peak_after) return a->peak_after < b->peak_after;
  return a->modelled_overhead_s < b->modelled_overhead_s;
}

static int result_add_note(plan_result *r, const char *text) {
  char **n = realloc(r->notes, (size_t)(r->n_notes + 1) * sizeof *n);
  if (!n) return -1;
  r->notes = n;
  if (!(r->notes[r->n_notes] = xstrdup(text))) return -1;
  r->n_notes++;
  return 0;
}

/* Note [auto picks the best plan]
 * The per-candidate choice (the cheaper of swap and recompute at each greedy
 * step) is myopic: a recompute chosen early can keep its producer's inputs
 * resident across a later peak, and its registration expires with the
 * iteration, so swap-only can be cheaper overall.  So auto also makes the
 * swap-only and recompute-only plans and keeps the best by plan_better: it is
 * never worse than a single mode by the cost model.  Planning costs three
 * times as much; plans are made once per build. */
int plan_make(const tidal_trace *t, const plan_options *o, plan_result *out) {
  if (o->mode != PLAN_MODE_AUTO || o->budget_bytes == 0)
    return plan_make_mode(t, o, o->mode, out); /* no budget: drops only, the same for all */
  static const plan_mode modes[3] = {PLAN_MODE_AUTO, PLAN_MODE_SWAP, PLAN_MODE_RECOMPUTE};
  static const char *names[3] = {"mixed", "swap-only", "recompute-only"};
  plan_result r[3];
  int best = 0;
  for (int k = 0; k < 3; k++) {
    if (plan_make_mode(t, o, modes[k], &r[k]) != 0) {
      for (int q = 0; q < k; q++) plan_free(&r[q]);
      return -1;
    }
    if (k > 0 && plan_better(&r[k], &r[best])) best = k;
  }
  char line[512];
  int n = snprintf(line, sizeof line, "auto kept the %s plan of:", names[best]);
  for (int k = 0; k < 3 && n > 0 && (size_t)n < sizeof line; k++)
    n += snprintf(line + n, sizeof line - (size_t)n, "%s %s %.1f us, peak %.2f MiB%s",
                  k ? ";" : "", names[k], r[k].modelled_overhead_s * 1e6,
                  (double)r[k].peak_after / (1024.0 * 1024.0),
                  r[k].budget_met ? "" : " (over budget)");
  int rc = result_add_note(&r[best], line);
  for (int k = 0; k < 3; k++)
    if (k != best) plan_free(&r[k]);
  if (rc != 0) {
    plan_free(&r[best]);
    return -1;
  }
  *out = r[best];
  return 0;
}

void plan_free(plan_result *r) {
  if (!r) return;
  for (int k = 0; k < r->n_actions; k++) {
    free(r->actions[k].tensor);
    free(r->actions[k].reason);
  }
  free(r->actions);
  for (int k = 0; k < r->n_notes; k++) free(r->notes[k]);
  free(r->notes);
  memset(r, 0, sizeof *r);
}
