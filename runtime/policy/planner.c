/* planner.c - a memory plan from one recorded iteration (record.c).
 *
 * Model: the iteration is a cycle of N ops with measured durations.  A
 * group is a run of chunks of one allocation that the same ops use in the
 * same way (the tensor at chunk granularity).  Unplanned, every group used
 * in the iteration is resident all the time (the steady state), so the
 * peak is their sum.  A gap is a group's idle span from one use to the
 * next, cyclic (the last use's gap ends at the first use of the next
 * iteration: that prefetch is issued in the previous iteration, which is
 * the cross-iteration prefetch).  Releasing a gap frees its chunks from
 * when the release is done to when they come back.
 *
 * Filter (Note [filter]): while the modelled peak exceeds the budget, take
 * the unreleased gap over the peak op with the least cost per chunk freed
 * there.  Nothing is released when the peak fits: a plan that is not
 * binding has no actions.
 *
 * Director (Note [director]): per gap, the cheapest legal way to release:
 *  - drop, free, when a build-time drop hint proved the data dead there
 *    (the runtime cannot prove it: a read it has not seen, such as a
 *    periodic evaluation, would get garbage);
 *  - recompute, costing the producer's measured time, when the pass
 *    registered a closure for it within the iteration;
 *  - swap, costing the copy-in time the gap's compute cannot hide (and
 *    nothing when the next use overwrites every byte: no copy-in).
 * Swap-out memory is modelled as free only once its device-to-host copy
 * has had time to complete.
 *
 * Prefetch placement (Note [prefetch placement]): as late as possible such
 * that the measured durations of the ops between the prefetch and the use
 * cover the copy time (plus slack, plus what feedback learnt was late);
 * later when the peak lies in that window (the copy is then partly
 * exposed, and costed so).  Positions are ops, chunks the unit. */
#include <stdlib.h>
#include <string.h>
#include "policy/planner.h"

typedef struct key {
  uintptr_t base;
  size_t bytes;
} key;

static int key_cmp(const void *a, const void *b) {
  const key *x = a, *y = b;
  if (x->base != y->base)
    return x->base < y->base ? -1 : 1;
  return x->bytes < y->bytes ? -1 : x->bytes > y->bytes;
}

static int find_alloc(const rt_plan *pl, uintptr_t base, size_t bytes) {
  uint32_t lo = 0, hi = pl->nallocs;
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    const rt_plan_alloc *a = &pl->allocs[mid];
    if (a->base < base || (a->base == base && a->bytes < bytes))
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo < pl->nallocs && pl->allocs[lo].base == base && pl->allocs[lo].bytes == bytes)
    return (int)lo;
  return -1;
}

void rt_plan_free(rt_plan *pl) {
  for (uint32_t i = 0; i < pl->nallocs; i++)
    free(pl->allocs[i].group);
  free(pl->allocs);
  free(pl->op_hash);
  free(pl->uses);
  free(pl->groups);
  free(pl->gaps);
  free(pl->acts);
  free(pl->act_start);
  memset(pl, 0, sizeof *pl);
}

int rt_plan_group_of(const rt_plan *pl, uintptr_t base, size_t alloc_bytes, uint32_t chunk) {
  int a = find_alloc(pl, base, alloc_bytes);
  if (a < 0 || chunk >= pl->allocs[a].nchunks)
    return -1;
  return (int)pl->allocs[a].group[chunk] - 1;
}

/* Positions: "before op pos".  Offset of pos after op `from`, in 1..N. */
static uint32_t offset_after(uint32_t from, uint32_t pos, uint32_t n) {
  return (pos + n - from - 1) % n + 1;
}

static uint32_t gap_len(const rt_plan_gap *g, uint32_t n) {
  return g->to == g->from ? n : offset_after(g->from, g->to, n);
}

int rt_plan_gap_at(const rt_plan *pl, uint32_t g, uint32_t pos) {
  if (g >= pl->ngroups || !pl->nops)
    return -1;
  const rt_plan_group *gr = &pl->groups[g];
  for (uint32_t k = 0; k < gr->ngaps; k++) {
    const rt_plan_gap *gp = &pl->gaps[gr->gap0 + k];
    if (offset_after(gp->from, pos % pl->nops, pl->nops) <= gap_len(gp, pl->nops))
      return (int)(gr->gap0 + k);
  }
  return -1;
}

/* ---- the model ---- */

typedef struct model {
  uint32_t n;
  const double *t;  /* prefix times: t[i] = start of op i, t[n] = cycle */
  int64_t *m;       /* resident chunks while op i runs */
} model;

/* Seconds of the ops at offsets a..b-1 after `from` (cyclic). */
static double span(const model *md, uint32_t from, uint32_t a, uint32_t b) {
  if (b <= a)
    return 0;
  uint32_t s = (from + a) % md->n, cnt = b - a;
  if (s + cnt <= md->n)
    return md->t[s + cnt] - md->t[s];
  return (md->t[md->n] - md->t[s]) + md->t[s + cnt - md->n];
}

static void apply(model *md, uint32_t from, uint32_t a, uint32_t b, int64_t d) {
  for (uint32_t k = a; k < b; k++)
    md->m[(from + k) % md->n] += d;
}

typedef struct option {
  int valid;
  uint8_t kind;
  uint32_t k_out, k_pf; /* freed at offsets k_out .. k_pf-1 */
  double cost, swap_cost;
} option;

/* The runtime copies chunk by chunk: each pays the latency. */
static double copy_s(const rt_plan_params *p, size_t bytes, double bw) {
  double chunks = (double)((bytes + p->chunk_bytes - 1) / p->chunk_bytes);
  return chunks * p->latency_s + (double)bytes / bw;
}

/* What the director needs of a gap that does not depend on the op whose
 * peak it must lower: the durations, hence span(), are fixed while a plan
 * is built, so this is computed once per gap and choose() is O(1) (it ran
 * a linear scan per gap per filter step, which made a build of the 8-layer
 * gpt variant take tens of ms). */
typedef struct gap_pre {
  uint32_t D;      /* gap_len */
  uint32_t k_out;  /* the swap-out's copy has finished by then (offset) */
  uint32_t k_pf;   /* the latest prefetch offset that hides the copy-in */
  double out, in;  /* copy times each way */
} gap_pre;

static void prepare(const rt_plan *pl, const model *md, const rt_plan_params *p,
                    const rt_plan_gap *g, const rt_gap_adj *adj, gap_pre *q) {
  const rt_plan_group *gr = &pl->groups[g->group];
  uint32_t D = gap_len(g, md->n);
  size_t bytes = (size_t)(gr->c1 - gr->c0 + 1) * p->chunk_bytes;
  memset(q, 0, sizeof *q);
  q->D = D;
  q->k_out = 1;
  if (gr->dirty) {
    /* the first offset whose ops since the use cover the copy (or D) */
    q->out = copy_s(p, bytes, p->d2h_bytes_per_s);
    uint32_t lo = 1, hi = D;
    while (lo < hi) {
      uint32_t mid = lo + (hi - lo) / 2;
      if (span(md, g->from, 1, mid) >= q->out)
        hi = mid;
      else
        lo = mid + 1;
    }
    q->k_out = lo;
  }
  q->k_pf = D;
  if (g->need) {
    q->in = copy_s(p, bytes, p->h2d_bytes_per_s);
    double lead = q->in * (1 + p->slack) + (adj ? adj->extra_lead_s : 0);
    /* the latest offset whose ops up to the use cover the lead */
    uint32_t lo = 1, hi = D - 1, best = 0;
    while (lo <= hi && hi >= 1) {
      uint32_t mid = lo + (hi - lo) / 2;
      if (span(md, g->from, mid, D) >= lead) {
        best = mid;
        lo = mid + 1;
      } else {
        if (mid == 1)
          break;
        hi = mid - 1;
      }
    }
    q->k_pf = best ? best : 1;
  }
}

/* The director's choice for gap g; when k_peak > 0 it must free memory at
 * that offset. */
static option choose(const rt_plan *pl, const model *md, const gap_pre *q,
                     const rt_plan_gap *g, const rt_gap_adj *adj, const double *dur,
                     uint32_t k_peak) {
  option o;
  memset(&o, 0, sizeof o);
  const rt_plan_group *gr = &pl->groups[g->group];
  uint32_t D = gap_len(g, md->n);
  if (g->drop_ok) {
    o.valid = 1;
    o.kind = RT_ACT_DROP;
    o.k_out = 1;
    o.k_pf = D;
    return o;
  }
  /* swap */
  uint32_t k_out = q->k_out;
  double out_wait = 0;
  /* Note [exposed swap-out]: when the ops before the peak cannot hide the
   * device-to-host copy (short gaps, or no measured durations at all: a
   * rewritten program on the sim, whose sites carry no estimate), the
   * memory is still free at the peak once the runtime has waited for the
   * copy (rt_phys_acquire waits for the oldest swap-out): that wait is the
   * cost, instead of leaving the peak to LRU eviction, which copies out
   * just the same and faults the data back in. */
  if (gr->dirty && k_peak && k_out > k_peak) {
    out_wait = q->out - span(md, g->from, 1, k_peak);
    k_out = k_peak;
  }
  uint32_t k_pf = q->k_pf;
  double exposed = 0;
  if (g->need) {
    if (k_peak && k_pf <= k_peak)
      k_pf = k_peak + 1; /* come back after the peak: partly exposed */
    double hidden = span(md, g->from, k_pf, D);
    exposed = q->in > hidden ? q->in - hidden : 0;
  }
  o.valid = k_out < k_pf && (!k_peak || (k_out <= k_peak && k_peak < k_pf));
  o.kind = RT_ACT_SWAP;
  o.k_out = k_out;
  o.k_pf = k_pf;
  o.cost = exposed + out_wait;
  o.swap_cost = exposed + out_wait;
  if (g->rc_ok && !(adj && adj->no_rc)) {
    double rc = dur[g->from];
    if (!o.valid || rc < o.cost) {
      o.valid = 1;
      o.kind = RT_ACT_RECOMPUTE;
      o.k_out = 1;
      o.k_pf = D;
      o.cost = rc;
    }
  }
  return o;
}

/* ---- building ---- */

static int covers(const rt_rec_hint *h, const rt_plan_alloc *a, const rt_plan_group *gr,
                  size_t cb) {
  if (h->base != a->base || h->alloc_bytes != a->bytes)
    return 0;
  size_t cs = (size_t)gr->c0 * cb;
  size_t ce = (size_t)(gr->c1 + 1) * cb;
  if (ce > a->bytes)
    ce = a->bytes;
  return h->off <= cs && h->off + h->len >= ce;
}

/* Op `op` of rec reads some of bytes [lo, hi) of allocation a. */
static int op_reads(const rt_record *rec, uint32_t op, const rt_plan_alloc *a, size_t lo,
                    size_t hi) {
  const rt_rec_op *o = &rec->ops[op];
  for (uint32_t k = 0; k < o->nacc; k++) {
    const rt_rec_acc *x = &rec->accs[o->acc0 + k];
    if (x->base == a->base && x->alloc_bytes == a->bytes && (x->mode & TIDAL_READ) &&
        x->off < hi && lo < x->off + x->len)
      return 1;
  }
  return 0;
}

int rt_plan_build(const rt_record *rec, const rt_plan_params *p, const rt_gap_adj *adj,
                  rt_plan *out) {
  memset(out, 0, sizeof *out);
  uint32_t N = rec->nops;
  size_t cb = p->chunk_bytes;
  int rc = -1;
  key *keys = NULL;
  uint32_t *cnt = NULL, *start = NULL, *ents = NULL, *gchunk0 = NULL, *order = NULL;
  double *t = NULL, *dur = NULL;
  int64_t *m = NULL;
  uint8_t *stuck = NULL, *seen = NULL;
  gap_pre *pre = NULL;
  out->nops = N;
  out->op_hash = malloc((N ? N : 1) * sizeof *out->op_hash);
  out->act_start = calloc((size_t)N + 1, sizeof *out->act_start);
  if (!out->op_hash || !out->act_start)
    goto done;
  for (uint32_t i = 0; i < N; i++)
    out->op_hash[i] = rec->ops[i].hash;
  if (N == 0) {
    rc = 0;
    goto done;
  }

  /* 1. allocations named by the accesses */
  keys = malloc((rec->naccs ? rec->naccs : 1) * sizeof *keys);
  if (!keys)
    goto done;
  for (uint32_t i = 0; i < rec->naccs; i++)
    keys[i] = (key){rec->accs[i].base, rec->accs[i].alloc_bytes};
  qsort(keys, rec->naccs, sizeof *keys, key_cmp);
  uint32_t nk = 0;
  for (uint32_t i = 0; i < rec->naccs; i++)
    if (!nk || key_cmp(&keys[nk - 1], &keys[i]) != 0)
      keys[nk++] = keys[i];
  out->allocs = calloc(nk ? nk : 1, sizeof *out->allocs);
  gchunk0 = calloc((size_t)nk + 1, sizeof *gchunk0);
  if (!out->allocs || !gchunk0)
    goto done;
  out->nallocs = nk;
  for (uint32_t i = 0; i < nk; i++) {
    rt_plan_alloc *a = &out->allocs[i];
    a->base = keys[i].base;
    a->bytes = keys[i].bytes;
    a->nchunks = (uint32_t)((a->bytes + cb - 1) / cb);
    a->group = calloc(a->nchunks ? a->nchunks : 1, sizeof *a->group);
    if (!a->group)
      goto done;
    gchunk0[i + 1] = gchunk0[i] + a->nchunks;
  }
  uint32_t nchunks = gchunk0[nk];

  /* 2. per chunk: the ops that use it, with the op's merged flags */
  cnt = calloc((size_t)nchunks + 1, sizeof *cnt);
  start = calloc((size_t)nchunks + 1, sizeof *start);
  if (!cnt || !start)
    goto done;
  for (int pass = 0; pass < 2; pass++) {
    if (pass == 1) {
      uint32_t s = 0;
      for (uint32_t c = 0; c < nchunks; c++) {
        start[c] = s;
        s += cnt[c];
        cnt[c] = 0;
      }
      start[nchunks] = s;
      ents = malloc((s ? s : 1) * sizeof *ents);
      if (!ents)
        goto done;
    }
    for (uint32_t i = 0; i < N; i++) {
      const rt_rec_op *o = &rec->ops[i];
      for (uint32_t k = 0; k < o->nacc; k++) {
        const rt_rec_acc *x = &rec->accs[o->acc0 + k];
        int ai = find_alloc(out, x->base, x->alloc_bytes);
        if (ai < 0)
          continue;
        const rt_plan_alloc *a = &out->allocs[ai];
        size_t c0 = x->off / cb, c1 = (x->off + x->len - 1) / cb;
        for (size_t ci = c0; ci <= c1; ci++) {
          uint32_t gc = gchunk0[ai] + (uint32_t)ci;
          size_t cs = ci * cb, ce = cs + cb > a->bytes ? a->bytes : cs + cb;
          uint32_t fl = 0;
          if ((x->mode & TIDAL_READ) || x->off > cs || x->off + x->len < ce)
            fl |= 2;
          if (x->mode & TIDAL_WRITE)
            fl |= 1;
          if (pass == 0) {
            /* count once per op: the last entry is this op's if any */
            if (!cnt[gc] || start[gc] != i + 1) {
              cnt[gc]++;
              start[gc] = i + 1; /* scratch in pass 0: last op + 1 */
            }
          } else {
            uint32_t *e = &ents[start[gc]];
            if (cnt[gc] && (e[cnt[gc] - 1] >> 2) == i)
              e[cnt[gc] - 1] |= fl;
            else
              e[cnt[gc]++] = i << 2 | fl;
          }
        }
      }
    }
  }

  /* 3. groups: runs of chunks with identical use lists.  Numbered in the
   * order the iteration first uses their allocations, not by address:
   * equal candidates are taken in group order (Note [filter]), and
   * addresses differ from run to run (the same replay gave two plans) */
  out->groups = malloc((nchunks ? nchunks : 1) * sizeof *out->groups);
  out->uses = malloc((start[nchunks] ? start[nchunks] : 1) * sizeof *out->uses);
  order = malloc((nk ? nk : 1) * sizeof *order);
  seen = calloc(nk ? nk : 1, 1);
  if (!out->groups || !out->uses || !order || !seen)
    goto done;
  uint32_t nordered = 0;
  for (uint32_t i = 0; i < rec->naccs && nordered < nk; i++) {
    int ai = find_alloc(out, rec->accs[i].base, rec->accs[i].alloc_bytes);
    if (ai >= 0 && !seen[ai]) {
      seen[ai] = 1;
      order[nordered++] = (uint32_t)ai;
    }
  }
  uint32_t total_uses = 0, ngaps_max = 0;
  for (uint32_t oi = 0; oi < nordered; oi++) {
    uint32_t ai = order[oi];
    rt_plan_alloc *a = &out->allocs[ai];
    for (uint32_t ci = 0; ci < a->nchunks; ci++) {
      uint32_t gc = gchunk0[ai] + ci;
      if (!cnt[gc])
        continue;
      if (ci > 0 && a->group[ci - 1]) {
        uint32_t pc = gc - 1;
        if (cnt[pc] == cnt[gc] &&
            memcmp(&ents[start[pc]], &ents[start[gc]], cnt[gc] * sizeof *ents) == 0) {
          a->group[ci] = a->group[ci - 1];
          out->groups[a->group[ci] - 1].c1 = ci;
          continue;
        }
      }
      rt_plan_group *g = &out->groups[out->ngroups++];
      memset(g, 0, sizeof *g);
      g->alloc = ai;
      g->c0 = g->c1 = ci;
      g->use0 = total_uses;
      g->nuse = cnt[gc];
      for (uint32_t u = 0; u < cnt[gc]; u++) {
        out->uses[total_uses++] = ents[start[gc] + u];
        if (ents[start[gc] + u] & 1)
          g->dirty = 1;
      }
      ngaps_max += cnt[gc];
      a->group[ci] = out->ngroups;
    }
  }
  out->nuses = total_uses;

  /* 4. gaps */
  out->gaps = calloc(ngaps_max ? ngaps_max : 1, sizeof *out->gaps);
  if (!out->gaps)
    goto done;
  for (uint32_t gi = 0; gi < out->ngroups; gi++) {
    rt_plan_group *gr = &out->groups[gi];
    const rt_plan_alloc *a = &out->allocs[gr->alloc];
    gr->gap0 = out->ngaps;
    for (uint32_t j = 0; j < gr->nuse; j++) {
      uint32_t u = out->uses[gr->use0 + j], v = out->uses[gr->use0 + (j + 1) % gr->nuse];
      rt_plan_gap g;
      memset(&g, 0, sizeof g);
      g.group = gi;
      g.from = u >> 2;
      g.to = v >> 2;
      g.need = (v & 2) != 0;
      uint32_t D = gap_len(&g, N);
      if (D < 2)
        continue; /* used again by the next op */
      for (uint32_t h = 0; h < rec->nhints; h++) {
        const rt_rec_hint *hn = &rec->hints[h];
        if (offset_after(g.from, hn->pos % N, N) > D || !covers(hn, a, gr, cb))
          continue;
        if (hn->kind == RT_HINT_DROP && !g.need)
          g.drop_ok = 1;
        /* a registration lasts for the iteration, and the closure
         * rewrites what `from` wrote - from what `from` read, which must
         * not be the group itself (Note [self-reading closures],
         * memory/recompute.c: the runtime attaches no such chunk, and a
         * recompute chosen there would be a swap with no prefetch) */
        if (hn->kind == RT_HINT_RECOMPUTE && g.from < g.to && (u & 1) &&
            !op_reads(rec, g.from, a, (size_t)gr->c0 * cb,
                      (size_t)(gr->c1 + 1) * cb < a->bytes ? (size_t)(gr->c1 + 1) * cb : a->bytes))
          g.rc_ok = 1;
      }
      out->gaps[out->ngaps++] = g;
    }
    gr->ngaps = out->ngaps - gr->gap0;
  }

  /* 5. the model */
  t = malloc(((size_t)N + 1) * sizeof *t);
  dur = malloc((size_t)N * sizeof *dur);
  m = malloc((size_t)N * sizeof *m);
  if (!t || !dur || !m)
    goto done;
  t[0] = 0;
  for (uint32_t i = 0; i < N; i++) {
    double d = rec->ops[i].dur_s;
    dur[i] = d > 0 ? d : 0;
    t[i + 1] = t[i] + dur[i];
  }
  model md = {N, t, m};
  int64_t total = 0;
  for (uint32_t gi = 0; gi < out->ngroups; gi++)
    total += out->groups[gi].c1 - out->groups[gi].c0 + 1;
  for (uint32_t i = 0; i < N; i++)
    m[i] = total;
  int64_t target = (int64_t)p->avail_chunks - (int64_t)p->margin_chunks;
  if (target < 1)
    target = 1;
  out->peak_before = (uint32_t)total;
  out->binding = total > target;

  /* 6. the filter */
  uint32_t nreleased = 0;
  stuck = calloc(N, 1);
  pre = malloc((out->ngaps ? out->ngaps : 1) * sizeof *pre);
  if (!stuck || !pre)
    goto done;
  for (uint32_t k = 0; out->binding && k < out->ngaps; k++)
    prepare(out, &md, p, &out->gaps[k], adj ? &adj[k] : NULL, &pre[k]);
  if (out->binding) {
    /* feedback first: gaps that faults showed get evicted anyway */
    for (uint32_t k = 0; adj && k < out->ngaps; k++) {
      rt_plan_gap *g = &out->gaps[k];
      if (!adj[k].forced)
        continue;
      option o = choose(out, &md, &pre[k], g, &adj[k], dur, 0);
      if (!o.valid)
        continue;
      int64_t chunks = out->groups[g->group].c1 - out->groups[g->group].c0 + 1;
      g->released = 1, g->kind = o.kind, g->cost_s = o.cost, g->swap_cost_s = o.swap_cost;
      g->pf = (g->from + o.k_pf) % N;
      g->has_pf = o.kind == RT_ACT_SWAP && g->need && o.k_pf < gap_len(g, N);
      apply(&md, g->from, o.k_out, o.k_pf, -chunks);
      nreleased++;
    }
    for (;;) {
      /* the highest op over the target that some release can still help */
      int64_t ipi = -1;
      for (uint32_t i = 0; i < N; i++)
        if (!stuck[i] && m[i] > target && (ipi < 0 || m[i] > m[ipi]))
          ipi = i;
      if (ipi < 0)
        break;
      uint32_t ip = (uint32_t)ipi;
      int best = -1;
      option bo;
      memset(&bo, 0, sizeof bo);
      double bscore = 0;
      int64_t bchunks = 0;
      for (uint32_t k = 0; k < out->ngaps; k++) {
        rt_plan_gap *g = &out->gaps[k];
        if (g->released)
          continue;
        /* offset_after(g->from, ip, N), without a division: this loop runs
         * over every gap for every release */
        uint32_t kp = ip > g->from ? ip - g->from : ip + N - g->from;
        if (kp >= pre[k].D)
          continue; /* ip is the use itself, or outside */
        option o = choose(out, &md, &pre[k], g, adj ? &adj[k] : NULL, dur, kp);
        if (!o.valid)
          continue;
        int64_t chunks = out->groups[g->group].c1 - out->groups[g->group].c0 + 1;
        /* Note [filter]: the benefit is the excess it removes over its
         * whole window, not only at this op, so one long release beats
         * several short ones; copy traffic costs a little even when hidden
         * (it shares the engines with every other copy). */
        double traffic = o.kind == RT_ACT_SWAP
                             ? copy_s(p, (size_t)chunks * cb, p->d2h_bytes_per_s) *
                                   (out->groups[g->group].dirty ? 1 : 0) +
                                   (g->need ? copy_s(p, (size_t)chunks * cb, p->h2d_bytes_per_s) : 0)
                             : 0;
        double num = o.cost + 0.05 * traffic + 1e-12;
        /* the benefit is at most chunks per op of the window: a choice that
         * cannot beat the best so far even so is not summed (exact) */
        if (best >= 0 && num / ((double)chunks * (double)(o.k_pf - o.k_out)) > bscore)
          continue;
        double benefit = 0;
        uint32_t at = (g->from + o.k_out) % N;
        for (uint32_t q = o.k_out; q < o.k_pf; q++) {
          int64_t ex = m[at] - target;
          if (ex > 0)
            benefit += (double)(ex < chunks ? ex : chunks);
          if (++at == N)
            at = 0;
        }
        double score = num / (benefit > 0 ? benefit : 1e-9);
        if (best < 0 || score < bscore || (score == bscore && chunks > bchunks)) {
          best = (int)k, bo = o, bscore = score, bchunks = chunks;
        }
      }
      if (best < 0) { /* nothing idle there: the runtime's LRU covers it */
        stuck[ip] = 1;
        continue;
      }
      rt_plan_gap *g = &out->gaps[best];
      g->released = 1, g->kind = bo.kind, g->cost_s = bo.cost, g->swap_cost_s = bo.swap_cost;
      g->pf = (g->from + bo.k_pf) % N;
      g->has_pf = bo.kind == RT_ACT_SWAP && g->need && bo.k_pf < gap_len(g, N);
      apply(&md, g->from, bo.k_out, bo.k_pf, -bchunks);
      nreleased++;
    }
  }
  int64_t peak = 0;
  for (uint32_t i = 0; i < N; i++)
    if (m[i] > peak)
      peak = m[i];
  out->peak_after = (uint32_t)peak;

  /* 7. actions, by position: releases, then prefetches */
  uint32_t nacts = 0;
  for (uint32_t k = 0; k < out->ngaps; k++)
    if (out->gaps[k].released)
      nacts += 1 + out->gaps[k].has_pf;
  out->acts = malloc((nacts ? nacts : 1) * sizeof *out->acts);
  if (!out->acts)
    goto done;
  for (uint32_t k = 0; k < out->ngaps; k++) {
    const rt_plan_gap *g = &out->gaps[k];
    if (!g->released)
      continue;
    out->est_cost_s += g->cost_s;
    out->act_start[(g->from + 1) % N]++;
    if (g->has_pf)
      out->act_start[g->pf]++;
  }
  uint32_t s = 0;
  for (uint32_t i = 0; i <= N; i++) {
    uint32_t c = out->act_start[i];
    out->act_start[i] = s;
    s += c;
  }
  uint32_t *fill = calloc((size_t)N + 1, sizeof *fill);
  if (!fill)
    goto done;
  for (int pf = 0; pf < 2; pf++)
    for (uint32_t k = 0; k < out->ngaps; k++) {
      const rt_plan_gap *g = &out->gaps[k];
      if (!g->released || (pf && !g->has_pf))
        continue;
      uint32_t pos = pf ? g->pf : (g->from + 1) % N;
      rt_plan_act *a = &out->acts[out->act_start[pos] + fill[pos]++];
      a->pos = pos;
      a->kind = pf ? RT_ACT_PREFETCH : g->kind;
      a->gap = k;
    }
  free(fill);
  out->nacts = nacts;
  (void)nreleased;
  rc = 0;
done:
  free(keys);
  free(cnt);
  free(start);
  free(ents);
  free(gchunk0);
  free(order);
  free(seen);
  free(t);
  free(dur);
  free(m);
  free(stuck);
  free(pre);
  if (rc != 0)
    rt_plan_free(out);
  return rc;
}
