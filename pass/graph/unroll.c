/* unroll.c - the graph unrolled into one concrete iteration (trace.h):
 * every loop expanded with its induction variable bound, every size
 * evaluated under the bindings, per-layer tensors split per concrete slice.
 * Also owns trace_free.
 *
 * Decisions:
 *  - Ops of one graph loop are contiguous in program order (the interpreter
 *    walks a loop body once, and a loop met again through another call is
 *    another graph loop), so the loop tree is recovered from each op's
 *    innermost loop and the loops' parent links.
 *  - A loop whose trip count is unknown (a while loop, an unrecognised for
 *    header) is run once, with a warning: one iteration is the best
 *    available estimate and keeps every op in the trace.
 *  - Concrete tensors are keyed by (allocation, offset); accesses to
 *    overlapping but different offsets stay separate tensors (the planner
 *    works per tensor and the runtime per byte range, so this is safe).
 *  - An access whose extent is unknown covers its region from the pointer
 *    to the region's end (else the allocation's end), marked inexact.
 *  - scope: a fresh id per iteration of each loop; ops directly in the
 *    training loop body share scope 0.
 *  - Ops of a periodic branch (`if (step % N == 0)`) are in the trace, so
 *    their reads keep what they read alive, but their writes are readwrites:
 *    on most steps they do not run, so they overwrite nothing the plan may
 *    count on (interp_branch.c, Note [once and periodic]); an exact write
 *    keeps that fact (trace_access.run_exact_write) for the plan's
 *    deadness, which looks past it (plan.c, Note [overwrites across
 *    periodic branches]).  Once branches are setup and have no ops here.
 *    So are the writes of an op that may not run at all (graph_op.maybe,
 *    callees.c Note [indirect calls]), without run_exact_write.
 *  - Accesses that move with the training loop's own counter: Note
 *    [stepped accesses].
 *
 * Note [stepped accesses]
 * The commonest data loading there is slices a resident input buffer by
 * the step: `x = d_images + b * B * 784` in `for (b = 0; b < nb; b++)`.
 * The trace is one iteration, but this access touches other bytes in
 * every iteration, so no single offset is right.  Such an access (its
 * offset or extent uses the counter, and --bind does not fix the counter)
 * is entered twice over:
 *  - for the planner, as the whole range the loop's steps cover (every
 *    step's slice, first to last; the allocation from the first slice on
 *    when the trip count or the stride is unknown), inexact, and a write
 *    becomes a readwrite.  So the plan sees every byte any step reads as
 *    used here: nothing of the buffer is dead between steps and no drop
 *    can discard a slice a later step reads.
 *  - for execution, as the first step's slice and the stride per step
 *    (trace_access.step_*): `tidal replay` runs iteration k on slice k (the
 *    counter advancing, wrapping after the trip count as an epoch loop
 *    restarts it), and runs the plan's actions on it, as the rewritten
 *    program does: its calls name the pointer expression, which holds that
 *    step's slice.
 * The slice's offset must be affine in the counter (checked on three
 * steps and the last); otherwise each step is taken to touch the whole
 * covered range.  Its size is the largest of those steps' (a last, short
 * batch is smaller), clipped to the covered range. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "graph/unroll.h"
#include "tidal.h" /* TIDAL_SPLIT_GRAIN */

void trace_free(tidal_trace *t) {
  if (!t) return;
  for (int i = 0; i < t->n_allocs; i++) free(t->allocs[i].name);
  free(t->allocs);
  for (int i = 0; i < t->n_tensors; i++) free(t->tensors[i].name);
  free(t->tensors);
  for (int i = 0; i < t->n_ops; i++) {
    free(t->ops[i].label);
    free(t->ops[i].acc);
  }
  free(t->ops);
  for (int i = 0; i < t->n_branches; i++) {
    free(t->branches[i].file);
    free(t->branches[i].cond);
    free(t->branches[i].sched);
    free(t->branches[i].assumed);
    free(t->branches[i].why);
  }
  free(t->branches);
  memset(t, 0, sizeof *t);
}

typedef struct ubind {
  const char *var;
  int64_t value;
} ubind;

typedef struct unroller {
  const graph *g;
  tidal_trace *t;
  ubind stack[64];
  int n_stack;
  int scopes[64];
  int n_scopes;
  int next_scope;
  int quiet;
  int failed;
  int too_large;
  int64_t work;  /* ops emitted and loop iterations run (g->max_unrolled_ops) */
  int cap_ops, cap_tensors;
} unroller;

/* Counts one op or loop iteration; past the limit, reports once at the
 * loop being unrolled (or the training loop) and stops the unrolling. */
static int over_limit(unroller *u, const graph_loop *L) {
  if (++u->work <= u->g->max_unrolled_ops) return 0;
  if (!u->too_large) {
    const graph *g = u->g;
    diag_error(L ? L->file : g->loop_file, L ? L->line : g->loop_line, L ? L->col : g->loop_col,
               "cannot unroll the training loop: one iteration has more than %lld ops and loop "
               "iterations (nested loops multiply); raise the limit with --max-ops N",
               (long long)g->max_unrolled_ops);
  }
  u->too_large = 1;
  u->failed = 1;
  return 1;
}

/* sym_value_fn: nonzero when bound; loop variables in scope first; then
 * bindings; then `T[INDEX]` through a constant table (`dims[l + 1]`, the
 * index evaluated here, with the loop variables in scope). */
static int value_fn(void *ud, const char *name, int64_t *out) {
  unroller *u = ud;
  for (int i = u->n_stack - 1; i >= 0; i--)
    if (strcmp(u->stack[i].var, name) == 0) {
      *out = u->stack[i].value;
      return 1;
    }
  if (bind_lookup(&u->g->binds, name, out)) return 1;
  const char *ix;
  size_t il;
  const graph_table *t = bind_table_ref(&u->g->binds, name, &ix, &il);
  if (!t || il == 0 || il > 200 || !u->g->tu) return 0;
  char buf[256];
  memcpy(buf, ix, il);
  buf[il] = '\0';
  sym *e = sym_parse(u->g->tu->arena, buf);
  int64_t k;
  if (!e || sym_eval(e, value_fn, u, &k) != 0 || k < 0 || k >= t->n) return 0;
  *out = t->values[k];
  return 1;
}

/* Evaluates s; on failure reports the first unbound name at file:line:col. */
static int eval_at(unroller *u, const sym *s, int64_t *out, const char *file, unsigned line,
                   unsigned col, const char *what) {
  if (s && !sym_is_unknown(s) && sym_eval(s, value_fn, u, out) == 0) return 0;
  if (!u->quiet && !u->failed) {
    const char *missing = NULL;
    char *name = NULL;
    if (s && !sym_is_unknown(s)) {
      /* the first name neither bound nor an induction variable in scope */
      graph_bindings tmp = u->g->binds;
      name = bind_first_unbound(&tmp, s);
      for (int i = 0; name && i < u->n_stack; i++)
        if (strcmp(u->stack[i].var, name) == 0) {
          free(name);
          name = NULL;
        }
      missing = name;
    }
    if (missing && u->g->train_var && strcmp(missing, u->g->train_var) == 0)
      /* a layer loop taken for the training loop (the loop around it has
       * no other op): binding its counter would hide the real fix */
      diag_error(file, line, col, "cannot unroll the training loop: %s uses '%s', the counter of "
                 "the loop taken as the training loop (%s:%u); if that is a loop over layers, mark "
                 "the step loop with #pragma tidal train or --loop FILE:LINE", what, missing,
                 u->g->loop_file ? u->g->loop_file : "?", u->g->loop_line);
    else if (missing) { /* every unbound name at once, not one per run */
      char *all = graph_unbound_message(u->g);
      if (all && strstr(all, " are unbound"))
        diag_error(file, line, col, "cannot unroll the training loop: %s uses '%s'; %s", what,
                   missing, all);
      else
        diag_error(file, line, col, "cannot unroll the training loop: %s uses '%s', which is "
                   "unbound (use --bind %s=VALUE)", what, missing, missing);
      free(all);
    }
    else
      diag_error(file, line, col, "cannot unroll the training loop: %s is not a computable "
                 "expression", what);
    free(name);
  }
  u->failed = 1;
  return -1;
}

static int in_loop(const graph *g, int loop, int ancestor) {
  if (ancestor < 0) return 1;
  for (int l = loop; l >= 0; l = g->loops[l].parent)
    if (l == ancestor) return 1;
  return 0;
}

/* The child of `parent` on op's loop chain. */
static int child_loop(const graph *g, int loop, int parent) {
  int prev = -1;
  for (int l = loop; l >= 0; l = g->loops[l].parent) {
    if (g->loops[l].parent == parent) return l;
    prev = l;
  }
  return prev;
}

static int tensor_for(unroller *u, const graph_tensor *gt, int family_k, int alloc,
                      uint64_t offset, uint64_t bytes) {
  tidal_trace *t = u->t;
  for (int i = t->n_tensors - 1; i >= 0; i--)
    if (t->tensors[i].alloc == alloc && t->tensors[i].offset == offset) {
      if (bytes > t->tensors[i].bytes) t->tensors[i].bytes = bytes;
      return i;
    }
  if (t->n_tensors == u->cap_tensors) {
    int nc = u->cap_tensors ? u->cap_tensors * 2 : 64;
    trace_tensor *n = realloc(t->tensors, (size_t)nc * sizeof *n);
    if (!n) return -1;
    t->tensors = n;
    u->cap_tensors = nc;
  }
  trace_tensor *tt = &t->tensors[t->n_tensors];
  memset(tt, 0, sizeof *tt);
  tt->alloc = alloc;
  tt->offset = offset;
  tt->bytes = bytes;
  if (gt->n_family) { /* an element of an array: the element's own name */
    const char *en = u->g->allocs[alloc].name;
    if (family_k >= 0 && family_k < gt->n_family && gt->family_name[family_k])
      en = gt->family_name[family_k];
    tt->name = strdup(en);
    return t->n_tensors++;
  }
  /* "acts.ln1[l]" -> "acts.ln1[l=3]" */
  char buf[512];
  const char *lb = strchr(gt->name, '[');
  if (lb && gt->name[strlen(gt->name) - 1] == ']') {
    int n = snprintf(buf, sizeof buf, "%.*s[", (int)(lb - gt->name), gt->name);
    char vars[256];
    snprintf(vars, sizeof vars, "%.*s", (int)(strlen(lb + 1) - 1), lb + 1);
    char *save = NULL;
    int first = 1;
    for (char *v = strtok_r(vars, ",", &save); v && n < (int)sizeof buf; v = strtok_r(NULL, ",", &save)) {
      int64_t val;
      if (value_fn(u, v, &val))
        n += snprintf(buf + n, sizeof buf - (size_t)n, "%s%s=%lld", first ? "" : ",", v, (long long)val);
      else
        n += snprintf(buf + n, sizeof buf - (size_t)n, "%s%s", first ? "" : ",", v);
      first = 0;
    }
    if (n < (int)sizeof buf - 1) snprintf(buf + n, sizeof buf - (size_t)n, "]");
  } else {
    snprintf(buf, sizeof buf, "%s", gt->name);
  }
  tt->name = strdup(buf);
  return t->n_tensors++;
}

static int sym_uses(const sym *s, const char *name) {
  if (!s) return 0;
  if (sym_get_kind(s) == SYM_VAR) return strcmp(sym_var_name(s), name) == 0;
  return sym_uses(sym_lhs(s), name) || sym_uses(sym_rhs(s), name);
}

/* 1 if access a moves with the training loop's counter (Note [stepped
 * accesses]): the counter is recognised, not fixed by --bind, and used by
 * the offset or the extent. */
static int is_stepped(const unroller *u, const graph_access *a) {
  const graph *g = u->g;
  int64_t v;
  if (!g->train_var || bind_lookup(&g->binds, g->train_var, &v)) return 0;
  return sym_uses(a->offset, g->train_var) || sym_uses(a->bytes, g->train_var);
}

/* Evaluates s with the training loop's counter at step k (0 the first). */
static int eval_step(unroller *u, const sym *s, int64_t k, int64_t lo, int64_t *out) {
  if (u->n_stack >= 64) return -1;
  u->stack[u->n_stack].var = u->g->train_var;
  u->stack[u->n_stack].value = lo + k * u->g->train_step;
  u->n_stack++;
  int rc = sym_is_unknown(s) ? -1 : sym_eval(s, value_fn, u, out);
  u->n_stack--;
  return rc;
}

/* Fills ta's covered range and slice for a stepped access (Note [stepped
 * accesses]) at eo bytes past its element's start (0 unless an element of
 * a family), whose allocation holds abytes and whose extent, when unknown,
 * runs to `end`.  When the counter only shapes the extent (the same place
 * every step), ta is a plain access (stepped 0) with the largest extent.  Returns 0, or -1 (reported) when not even the first
 * step's offset evaluates. */
static int stepped_range(unroller *u, const graph_op *op, const graph_access *a, int64_t eo,
                         int64_t abytes, int64_t end, trace_access *ta) {
  const graph *g = u->g;
  int64_t lo, hi, trips = 0;
  if (eval_at(u, g->train_lo, &lo, g->loop_file, g->loop_line, g->loop_col,
              "the training loop's start") != 0)
    return -1;
  if (g->train_step && sym_eval(g->train_hi, value_fn, u, &hi) == 0) {
    int64_t st = g->train_step;
    trips = st > 0 ? (hi - lo + st - 1) / st : (lo - hi + (-st) - 1) / (-st);
    if (trips < 1) trips = 1;
  }
  /* steps 0, 1, 2 and the last: enough to check an affine offset */
  int64_t ks[4] = {0, 1, 2, trips > 0 ? trips - 1 : 2};
  int64_t offs[4], sizes[4];
  int known_bytes = !sym_is_unknown(a->bytes);
  for (int i = 0; i < 4; i++) {
    if (eval_step(u, a->offset, ks[i], lo, &offs[i]) != 0) {
      /* report the name that is missing at the first step */
      u->stack[u->n_stack].var = g->train_var;
      u->stack[u->n_stack].value = lo;
      u->n_stack++;
      eval_at(u, a->offset, &offs[i], op->file, op->line, op->col, "the pointer offset");
      u->n_stack--;
      return -1;
    }
    offs[i] += eo;
    if (known_bytes && eval_step(u, a->bytes, ks[i], lo, &sizes[i]) != 0) known_bytes = 0;
  }
  int64_t stride = offs[1] - offs[0];
  int affine = offs[2] - offs[1] == stride && offs[3] == offs[0] + ks[3] * stride;
  int64_t slice = 0;
  int same_size = 1;
  for (int i = 0; i < 4; i++) {
    int64_t b = known_bytes ? sizes[i] : end - offs[i];
    if (b > slice) slice = b;
    if (i && known_bytes && sizes[i] != sizes[0]) same_size = 0;
  }
  if (affine && stride == 0) {
    /* the counter only shapes the extent (`min(B, n - b*B)`, a short last
     * batch): the same bytes from the same place every step, the largest
     * extent, exact only when every step's is the same */
    int64_t o = offs[0] < 0 ? 0 : offs[0], e = o + slice;
    if (e > end) e = end;
    if (e < o) e = o;
    ta->offset = (uint64_t)o;
    ta->bytes = (uint64_t)(e - o);
    ta->exact = a->exact && known_bytes && same_size && e - o == slice;
    ta->stepped = 0;
    return 0;
  }
  int64_t c0, c1;
  if (affine && trips > 0) {
    c0 = stride >= 0 ? offs[0] : offs[3];
    c1 = (stride >= 0 ? offs[3] : offs[0]) + slice;
  } else {
    /* trip count or shape unknown: from the lowest offset seen on */
    c0 = offs[0];
    for (int i = 1; i < 4; i++)
      if (offs[i] < c0) c0 = offs[i];
    c1 = abytes;
  }
  if (c0 < 0) c0 = 0;
  if (c1 > abytes) c1 = abytes;
  if (c1 < c0) c1 = c0;
  ta->offset = (uint64_t)c0;
  ta->bytes = (uint64_t)(c1 - c0);
  ta->exact = 0;
  ta->stepped = 1;
  if (affine) {
    ta->step_offset = offs[0] < 0 ? 0 : (uint64_t)offs[0];
    ta->step_bytes = slice < 0 ? 0 : (uint64_t)slice;
    ta->step_stride = stride;
  } else { /* every step: the whole covered range */
    ta->step_offset = ta->offset;
    ta->step_bytes = ta->bytes;
    ta->step_stride = 0;
  }
  if (trips > 0 && (u->t->steps == 0 || trips < u->t->steps)) u->t->steps = trips;
  return 0;
}


/* Note [split count]: a split op's element count (trace_op.split_count) is
 * its count argument's value here, and each access must touch exactly
 * count * elem_bytes from its offset (opsites.c proved the extents are
 * that).  A batch-split cuDNN call (graph_op.split_batch, opsites.c Note
 * [batch split ops]) counts samples, and each access's sample is its
 * bytes / count, which must divide.  Left 0 (run whole) when the count
 * does not evaluate or an access is not that here: an extent that did not
 * evaluate, was clamped to its allocation, moves with the training loop's
 * counter, or an access left out of the trace. */
/* Bytes of one element of trace access ta of split op `op` over count
 * elements: a launch's from its kernel parameter, a batch-split call's one
 * sample (its bytes / count); 0 when there is none. */
static uint64_t split_elem(const graph_op *op, const trace_access *ta, uint64_t count) {
  if (op->split_batch) return ta->bytes / count;
  int eb = op->acc[ta->static_access].split_elem_bytes;
  return eb > 0 ? (uint64_t)eb : 0;
}

static void split_count(unroller *u, const graph_op *op, trace_op *to, int extents_ok) {
  int64_t n;
  if ((!op->split && !op->split_batch) || !extents_ok || to->n_acc != op->n_acc ||
      !op->split_count || sym_is_unknown(op->split_count) ||
      sym_eval(op->split_count, value_fn, u, &n) != 0 || n <= 0)
    return;
  uint64_t count = (uint64_t)n;
  for (int i = 0; i < to->n_acc; i++) {
    const trace_access *ta = &to->acc[i];
    uint64_t eb = split_elem(op, ta, count);
    if (eb == 0 || eb > UINT32_MAX || ta->stepped || ta->bytes != count * eb) return;
  }
  to->split_count = count;
  to->split_grain = op->split_batch ? 1 : TIDAL_SPLIT_GRAIN;
  for (int i = 0; i < to->n_acc; i++)
    to->acc[i].split_elem_bytes = (uint32_t)split_elem(op, &to->acc[i], count);
}

static void emit_op(unroller *u, const graph_op *op) {
  const graph *g = u->g;
  tidal_trace *t = u->t;
  if (t->n_ops == u->cap_ops) {
    int nc = u->cap_ops ? u->cap_ops * 2 : 256;
    trace_op *n = realloc(t->ops, (size_t)nc * sizeof *n);
    if (!n) {
      u->failed = 1;
      return;
    }
    t->ops = n;
    u->cap_ops = nc;
  }
  trace_op *to = &t->ops[t->n_ops];
  memset(to, 0, sizeof *to);
  to->static_op = op->id;
  to->flags = op->flags;
  to->phase = op->phase;
  to->branch = op->branch;
  int64_t fl;
  to->flops = op->flops && sym_eval(op->flops, value_fn, u, &fl) == 0 ? (double)fl : 0.0;
  to->scope = u->n_scopes ? u->scopes[u->n_scopes - 1] : 0;
  to->static_scope = op->loop;
  char label[512];
  int n = snprintf(label, sizeof label, "%s", op->label ? op->label : op->callee);
  if (u->n_stack > 0 && n < (int)sizeof label) {
    n += snprintf(label + n, sizeof label - (size_t)n, " [");
    for (int i = 0; i < u->n_stack && n < (int)sizeof label; i++)
      n += snprintf(label + n, sizeof label - (size_t)n, "%s%s=%lld", i ? "," : "", u->stack[i].var,
                    (long long)u->stack[i].value);
    if (n < (int)sizeof label) snprintf(label + n, sizeof label - (size_t)n, "]");
  }
  to->label = strdup(label);
  to->acc = calloc((size_t)op->n_acc + 1, sizeof *to->acc);
  t->n_ops++;
  if (!to->acc) {
    u->failed = 1;
    return;
  }
  int extents_ok = 1; /* every extent evaluated as it is (Note [split count]) */
  for (int i = 0; i < op->n_acc; i++) {
    const graph_access *a = &op->acc[i];
    if (a->tensor < 0) { /* unresolved (or not tidal memory): not in the trace */
      if (!a->unmanaged) t->n_unresolved++;
      continue;
    }
    const graph_tensor *gt = &g->tensors[a->tensor];
    int64_t off, bytes, abytes;
    int alloc = gt->alloc, family_k = -1;
    if (gt->n_family) { /* element family_index of a pointer array */
      int64_t k;
      if (eval_at(u, a->index ? a->index : gt->family_index, &k, op->file, op->line, op->col, "the pointer array's index") != 0)
        return;
      if (k < 0 || k >= gt->n_family) {
        if (!u->quiet)
          diag_error(op->file, op->line, op->col, "cannot unroll the training loop: index %lld "
                     "of a pointer array with %d elements", (long long)k, gt->n_family);
        u->failed = 1;
        return;
      }
      alloc = gt->family[k];
      family_k = (int)k;
    }
    int64_t eo = 0; /* an element of a family: the offset is past the element's start */
    if (family_k >= 0 && eval_at(u, gt->family_off[family_k], &eo, op->file, op->line, op->col,
                                 "the element's offset") != 0)
      return;
    if (eval_at(u, g->allocs[alloc].bytes, &abytes, g->allocs[alloc].file,
                g->allocs[alloc].line, g->allocs[alloc].col, "the allocation size") != 0)
      return;
    if (is_stepped(u, a)) {
      int64_t end = abytes;
      int region = family_k >= 0 ? gt->family_region[family_k] : gt->region;
      if (region >= 0) {
        int64_t ro, rb;
        if (graph_eval(g, g->regions[region].offset, &ro) == 0 &&
            graph_eval(g, g->regions[region].bytes, &rb) == 0 && ro + rb < abytes)
          end = ro + rb;
      }
      trace_access st;
      memset(&st, 0, sizeof st);
      extents_ok = 0;
      if (stepped_range(u, op, a, eo, abytes, end, &st) != 0) return;
      int ti = tensor_for(u, gt, family_k, alloc, st.offset, st.bytes);
      if (ti < 0) continue;
      st.tensor = ti;
      st.mode = a->mode;
      /* a write to one step's slice overwrites nothing the next step reads */
      if (st.stepped && st.mode == ACCESS_WRITE) st.mode = ACCESS_READWRITE;
      /* a stepped range is never exact: no run_exact_write */
      if (op->phase == TRACE_PERIODIC || op->maybe) {
        if (st.mode == ACCESS_WRITE) st.mode = ACCESS_READWRITE;
        st.exact = 0;
      }
      st.static_access = i;
      to->acc[to->n_acc++] = st;
      continue;
    }
    if (eval_at(u, a->offset, &off, op->file, op->line, op->col, "the pointer offset") != 0) return;
    off += eo;
    int exact = a->exact, unknown_extent = 0;
    if (sym_is_unknown(a->bytes) || sym_eval(a->bytes, value_fn, u, &bytes) != 0) {
      if (!sym_is_unknown(a->bytes)) {
        eval_at(u, a->bytes, &bytes, op->file, op->line, op->col, "an access size");
        return;
      }
      /* unknown extent: to the end of the region (or the allocation) */
      int64_t end = abytes;
      int region = family_k >= 0 ? gt->family_region[family_k] : gt->region;
      if (region >= 0) {
        int64_t ro, rb;
        if (graph_eval(g, g->regions[region].offset, &ro) == 0 &&
            graph_eval(g, g->regions[region].bytes, &rb) == 0 && ro + rb > off)
          end = ro + rb;
      }
      bytes = end - off;
      exact = 0;
      extents_ok = 0;
      unknown_extent = 1;
    }
    if (off < 0 || bytes < 0) {
      extents_ok = 0;
      continue;
    }
    if (off + bytes > abytes) { /* clamp an over-estimate */
      bytes = abytes > off ? abytes - off : 0;
      extents_ok = 0;
    }
    int ti = tensor_for(u, gt, family_k, alloc, (uint64_t)off, (uint64_t)bytes);
    if (ti < 0) continue;
    trace_access *ta = &to->acc[to->n_acc++];
    ta->tensor = ti;
    ta->offset = (uint64_t)off;
    ta->bytes = (uint64_t)bytes;
    ta->mode = a->mode;
    ta->exact = exact;
    ta->unknown_extent = unknown_extent;
    if (op->phase == TRACE_PERIODIC || op->maybe) {
      /* runs on some steps only: what it writes may not be overwritten on
       * the others, so it never makes earlier contents dead by itself
       * (plan.c, Note [overwrites across periodic branches]).  One of several
       * candidates of an indirect call (Note [indirect calls]) may never
       * run: its write is not even an exact write of the steps it runs. */
      ta->run_exact_write = !op->maybe && ta->mode == ACCESS_WRITE && ta->exact;
      if (ta->mode == ACCESS_WRITE) ta->mode = ACCESS_READWRITE;
      ta->exact = 0;
    }
    ta->static_access = i;
  }
  split_count(u, op, to, extents_ok);
}

/* Note [periodic loops]: the ops of a periodic branch (validation every N
 * steps) are in the trace so that what they read stays alive, and their
 * writes never make data dead (above); how often a loop inside them runs
 * changes neither.  Its trip count often comes from a file (the number of
 * validation batches), so an unbound one runs once, with a warning, where
 * a loop of every step's work is an error naming the value to bind. */
static int periodic_loop(const graph *g, int start, int loop) {
  int any = 0;
  for (int j = start; j < g->n_ops && in_loop(g, g->ops[j].loop, loop); j++) {
    if (g->ops[j].branch < 0) return 0;
    any = 1;
  }
  return any;
}

/* Note [micro-steps]: gradient accumulation runs forward and backward
 * several times per optimizer step (`for (micro = 0; micro < accum;
 * micro++) { forward; backward; } update;`), the count read at run time
 * (a total batch size from the command line over B*T).  The training loop
 * is the optimizer step; this loop inside it, written in the training
 * loop's own function with forward and backward ops in its body, is
 * unrolled twice when its bound is unbound: the first micro-step and every
 * later one.  What one trip leaves for the next (accumulated gradients,
 * an input read again) is then in the trace, so no plan drops it between
 * micro-steps, and a trip followed by the update is there too.  More
 * trips repeat the second; one trip is the second without the first
 * before it.  A warning says so; --bind the bound for the exact count. */
static int micro_step_loop(const graph *g, int start, int loop) {
  const graph_loop *L = &g->loops[loop];
  if (L->call_depth != 0) return 0;
  int fwd = 0, bwd = 0;
  for (int j = start; j < g->n_ops && in_loop(g, g->ops[j].loop, loop); j++) {
    if (g->ops[j].branch >= 0) continue;
    fwd |= g->ops[j].phase == TRACE_FORWARD;
    bwd |= g->ops[j].phase == TRACE_BACKWARD;
  }
  return fwd && bwd;
}

char *graph_unbound_message(const graph *g) {
  char *skip = calloc((size_t)g->n_loops + 1, 1);
  for (int c = 0; skip && c < g->n_loops; c++) {
    int start = 0;
    while (start < g->n_ops && !in_loop(g, g->ops[start].loop, c)) start++;
    skip[c] = start < g->n_ops && (periodic_loop(g, start, c) || micro_step_loop(g, start, c));
  }
  char *m = bind_unbound_message_skip(g, skip);
  free(skip);
  return m;
}

/* Runs ops [*i, n) that belong to loop `within`, advancing *i. */
static void run_range(unroller *u, int *i, int within) {
  const graph *g = u->g;
  while (*i < g->n_ops && !u->failed) {
    const graph_op *op = &g->ops[*i];
    if (!in_loop(g, op->loop, within)) return;
    if (op->loop == within) {
      if (over_limit(u, within >= 0 ? &g->loops[within] : NULL)) return;
      emit_op(u, op);
      (*i)++;
      continue;
    }
    int c = child_loop(g, op->loop, within);
    const graph_loop *L = &g->loops[c];
    int start = *i;
    int64_t lo = 0, hi = 1, step = 1, stride = 1;
    int known = (L->var || L->iteration) && L->step &&
                sym_eval(L->lo, value_fn, u, &lo) == 0 && sym_eval(L->hi, value_fn, u, &hi) == 0 &&
                sym_eval(L->stride, value_fn, u, &stride) == 0;
    /* a symbolic stride (`off += B`) that is not positive would never end
     * (Note [strided loops] in interp_loop.c): unknown, unrolled once */
    int bad_stride = known && stride <= 0;
    if (bad_stride) known = 0;
    int bounded = !bad_stride && L->var && L->step && !known && !sym_is_unknown(L->lo) &&
                  !sym_is_unknown(L->hi) && !sym_is_unknown(L->stride);
    int once_at_lo = 0; /* trips from the loop's known start: its variable bound */
    if (bounded && periodic_loop(g, start, c)) {
      /* Note [periodic loops]: a loop that runs only under a periodic
       * branch (`if (step % every == 0) for (i = 0; i < val_batches; i++)`)
       * with its bound read at run time: its first trip is the estimate */
      if (!u->quiet)
        diag_warning(L->file, L->line, L->col,
                     "loop of a periodic branch with an unbound trip count; unrolled once");
      once_at_lo = sym_eval(L->lo, value_fn, u, &lo) == 0;
      if (!once_at_lo) lo = 0;
      hi = lo + 1;
      step = 1;
    } else if (bounded && micro_step_loop(g, start, c)) {
      /* Note [micro-steps] */
      if (!u->quiet)
        diag_warning(L->file, L->line, L->col,
                     "gradient accumulation loop with an unbound trip count; unrolled twice "
                     "(the first micro-step and every later one)");
      once_at_lo = sym_eval(L->lo, value_fn, u, &lo) == 0;
      if (!once_at_lo) lo = 0;
      int64_t sv;
      step = sym_eval(L->stride, value_fn, u, &sv) == 0 && sv > 0 ? (L->step > 0 ? sv : -sv)
                                                                 : L->step;
      hi = lo + 2 * step;
    } else if (bounded) {
      /* a recognised loop with an unbound bound or stride: that is an error */
      int64_t dummy;
      if (eval_at(u, L->lo, &dummy, L->file, L->line, L->col, "the loop's start") != 0 ||
          eval_at(u, L->hi, &dummy, L->file, L->line, L->col, "the loop's bound") != 0 ||
          eval_at(u, L->stride, &dummy, L->file, L->line, L->col, "the loop's stride") != 0)
        return;
    } else if (known) {
      step = L->step > 0 ? stride : -stride;
    } else {
      if (!u->quiet)
        diag_warning(L->file, L->line, L->col, "loop trip count unknown; unrolled once");
      lo = 0;
      hi = 1;
      step = 1;
    }
    int bind_var = L->var && (known || once_at_lo);
    int end = start;
    int iterations = 0;
    for (int64_t v = lo; step > 0 ? v < hi : v > hi; v += step) {
      if (over_limit(u, L)) return;
      *i = start;
      if (u->n_stack < 64 && bind_var) {
        u->stack[u->n_stack].var = L->var;
        u->stack[u->n_stack].value = v;
        u->n_stack++;
      }
      if (u->n_scopes < 64) u->scopes[u->n_scopes++] = ++u->next_scope;
      run_range(u, i, c);
      if (u->n_scopes) u->n_scopes--;
      if (bind_var && u->n_stack) u->n_stack--;
      end = *i;
      iterations++;
      if (u->failed) return;
      if (step > 0 ? v > INT64_MAX - step : v < INT64_MIN - step) break; /* v += step overflows */
    }
    if (iterations == 0) {
      /* zero trips: skip the loop's ops */
      int j = start;
      while (j < g->n_ops && in_loop(g, g->ops[j].loop, c)) j++;
      end = j;
    }
    *i = end;
  }
}

/* Appends `what` to *list (", " between), once. */
static void add_assumed(char **list, const char *what) {
  size_t n = *list ? strlen(*list) : 0, w = strlen(what);
  if (*list) { /* already there? */
    for (const char *p = *list; (p = strstr(p, what)); p += w)
      if ((p == *list || p[-1] == ' ') && (p[w] == ',' || p[w] == '\0')) return;
  }
  char *r = realloc(*list, n + w + 3);
  if (!r) return;
  if (n) memcpy(r + n, ", ", 2), n += 2;
  memcpy(r + n, what, w + 1);
  *list = r;
}

/* The names of s that neither the bindings nor the counter give a value. */
static void unbound_names(unroller *u, const sym *s, char **list) {
  if (!s) return;
  if (sym_get_kind(s) == SYM_VAR) {
    int64_t v;
    const char *n = sym_var_name(s);
    if (!(u->g->train_var && strcmp(n, u->g->train_var) == 0) && !value_fn(u, n, &v))
      add_assumed(list, n);
    return;
  }
  unbound_names(u, sym_lhs(s), list);
  unbound_names(u, sym_rhs(s), list);
}

/* One leaf of a periodic branch's condition as a + b * iteration (Note
 * [periodic schedules] in interp_schedule.c): evaluated at steps 0, 1 and
 * 2 of the training loop, which must agree with a line.  Returns -1 (why
 * set) when it cannot be modelled. */
static int leaf_at(unroller *u, const graph_branch *gb_, const graph_cond *c, trace_cond *tc,
                   char **assumed, const char **why) {
  const graph *g = u->g;
  tc->op = GCOND_VALUE;
  tc->b = 0;
  if (c->op == GCOND_STEP) {
    tc->a = gb_->while_lo;
    tc->b = 1;
    return 0;
  }
  if (c->op == GCOND_OPAQUE) {
    tc->a = TRACE_COND_LARGE;
    tc->large = 1;
    add_assumed(assumed, c->text ? c->text : "?");
    return 0;
  }
  const sym *s = c->value;
  if (!s || sym_is_unknown(s)) {
    *why = "a value in the condition is not known";
    return -1;
  }
  int64_t v[3], lo;
  if (g->train_var && sym_uses(s, g->train_var)) {
    if (!g->train_lo || sym_is_unknown(g->train_lo) || sym_eval(g->train_lo, value_fn, u, &lo) != 0) {
      *why = "the training loop's first step is not known";
      return -1;
    }
    for (int k = 0; k < 3; k++)
      if (eval_step(u, s, k, lo, &v[k]) != 0) {
        /* the counter and a name not bound: larger than every step */
        tc->a = TRACE_COND_LARGE;
        tc->large = 1;
        unbound_names(u, s, assumed);
        return 0;
      }
    if (v[2] - v[1] != v[1] - v[0]) {
      *why = "a value in the condition does not move by a constant each step";
      return -1;
    }
    tc->a = v[0];
    tc->b = v[1] - v[0];
    return 0;
  }
  if (sym_eval(s, value_fn, u, &v[0]) == 0) {
    tc->a = v[0];
    return 0;
  }
  tc->a = TRACE_COND_LARGE;
  tc->large = 1;
  unbound_names(u, s, assumed);
  return 0;
}

/* The graph's branches, periodic ones with their condition per iteration. */
static int unroll_branches(unroller *u) {
  const graph *g = u->g;
  tidal_trace *t = u->t;
  if (!g->n_branches) return 0;
  t->branches = calloc((size_t)g->n_branches, sizeof *t->branches);
  if (!t->branches) return -1;
  t->n_branches = g->n_branches;
  for (int i = 0; i < g->n_branches; i++) {
    const graph_branch *gb_ = &g->branches[i];
    trace_branch *tb = &t->branches[i];
    tb->file = strdup(gb_->file ? gb_->file : "");
    tb->line = gb_->line;
    tb->cond = strdup(gb_->cond ? gb_->cond : "");
    tb->periodic = gb_->kind == GRAPH_BRANCH_PERIODIC;
    tb->parent = tb->periodic ? gb_->parent : -1;
    if (!tb->file || !tb->cond) return -1;
    if (!tb->periodic) continue;
    if (!gb_->n_sched) {
      tb->why = strdup(gb_->sched_why ? gb_->sched_why : "not modelled");
      continue;
    }
    tb->sched = calloc((size_t)gb_->n_sched, sizeof *tb->sched);
    if (!tb->sched) return -1;
    const char *why = NULL;
    for (int k = 0; k < gb_->n_sched && !why; k++) {
      const graph_cond *c = &gb_->sched[k];
      if (c->op == GCOND_VALUE || c->op == GCOND_STEP || c->op == GCOND_OPAQUE)
        leaf_at(u, gb_, c, &tb->sched[k], &tb->assumed, &why);
      else
        tb->sched[k].op = (int)c->op;
    }
    if (why) {
      free(tb->sched);
      tb->sched = NULL;
      free(tb->assumed);
      tb->assumed = NULL;
      tb->why = strdup(why);
      continue;
    }
    tb->n_sched = gb_->n_sched;
    /* a value not bound that replay cannot take as larger than every step
     * (the counter passed through a parameter of a while loop's callee, a
     * flag): not modelled, rather than a guess */
    for (int k = 0; k < 3 && tb->n_sched; k++)
      if (trace_branch_holds(tb, k) < 0) {
        tb->n_sched = 0;
        free(tb->sched);
        tb->sched = NULL;
        tb->why = tb->assumed ? malloc(strlen(tb->assumed) + 96) : strdup("the condition cannot be evaluated");
        if (tb->why && tb->assumed)
          sprintf(tb->why, "not bound, and not only compared with or dividing the step: %s",
                  tb->assumed);
        free(tb->assumed);
        tb->assumed = NULL;
      }
  }
  return 0;
}

int unroll_graph(const graph *g, tidal_trace *out, int quiet) {
  memset(out, 0, sizeof *out);
  unroller u;
  memset(&u, 0, sizeof u);
  u.g = g;
  u.t = out;
  u.quiet = quiet;
  out->allocs = calloc((size_t)g->n_allocs + 1, sizeof *out->allocs);
  if (!out->allocs) return TIDAL_EXIT_INTERNAL;
  out->n_allocs = g->n_allocs;
  for (int i = 0; i < g->n_allocs; i++) {
    const graph_alloc *a = &g->allocs[i];
    int64_t v;
    out->allocs[i].name = strdup(a->name);
    out->allocs[i].persistent = !a->in_loop;
    out->allocs[i].relocatable = a->relocatable;
    if (eval_at(&u, a->bytes, &v, a->file, a->line, a->col, "the allocation size") != 0) break;
    out->allocs[i].bytes = (uint64_t)v;
  }
  int i = 0;
  if (!u.failed && unroll_branches(&u) != 0) {
    trace_free(out);
    return TIDAL_EXIT_INTERNAL;
  }
  if (!u.failed) run_range(&u, &i, -1);
  if (u.failed) {
    trace_free(out);
    return u.too_large ? UNROLL_TOO_LARGE : TIDAL_EXIT_BAD_INPUT;
  }
  trace_groups(out);
  return TIDAL_EXIT_OK;
}

int graph_unroll(const graph *g, tidal_trace *out) {
  int rc = unroll_graph(g, out, 0);
  return rc == UNROLL_TOO_LARGE ? TIDAL_EXIT_BAD_INPUT : rc;
}
