/* liveness.c - phases of the iteration (forward / backward / update), and
 * per tensor liveness: which tensors sit idle long enough between two uses
 * to be worth evicting (candidates), and which idle spans end in a write
 * of every byte (dead: drop instead of copy).
 *
 * Note [phases]: names first, structure second.  Walking the ops in
 * program order, an op whose callee or any function on its call path is
 * named like a backward pass ("backward", "bwd", "grad") starts the
 * backward phase, and one named like an optimiser ("update", "adam",
 * "sgd", "optimizer", "optim") starts the update phase; other ops inherit
 * the phase in force.  When no name says backward, the first op inside a
 * loop that counts down (layers in reverse) starts it.  Trainers name
 * these functions consistently; the structural fallback covers the usual
 * reverse layer loop.  Ops under a periodic branch (`if (step % N == 0)`)
 * are in phase periodic and take no part in this.
 *
 * Candidates are computed on the unrolled trace when every size is bound
 * (idle spans are then exact op counts, per layer slice); otherwise on the
 * static op list, where a span is a count of static ops.  A span qualifies
 * when it is at least LIVENESS_MIN_IDLE_OPS ops and at least
 * 1/LIVENESS_IDLE_FRACTION of the iteration. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "graph/liveness.h"

#define LIVENESS_MIN_IDLE_OPS 4 /* shorter gaps cannot hide a copy */
#define LIVENESS_IDLE_FRACTION 10

static int name_has(const char *s, const char *const *words) {
  if (!s) return 0;
  char low[256];
  size_t n = strlen(s);
  if (n >= sizeof low) n = sizeof low - 1;
  for (size_t i = 0; i < n; i++) low[i] = (char)tolower((unsigned char)s[i]);
  low[n] = '\0';
  for (int i = 0; words[i]; i++)
    if (strstr(low, words[i])) return 1;
  return 0;
}

static const char *const backward_words[] = {"backward", "bwd", "grad", NULL};
static const char *const update_words[] = {"update", "adam", "sgd", "optimizer", "optim", NULL};

int liveness_name_phase(const char *name) {
  if (name_has(name, update_words)) return TRACE_UPDATE;
  if (name_has(name, backward_words)) return TRACE_BACKWARD;
  return TRACE_FORWARD;
}

static int op_named(const graph_op *op, const char *const *words) {
  if (name_has(op->callee, words)) return 1;
  for (int i = 0; i < op->n_calls; i++)
    if (name_has(op->calls[i].function, words)) return 1;
  return 0;
}

void liveness_phases(graph *g) {
  int named = 0;
  for (int i = 0; i < g->n_ops; i++)
    if (op_named(&g->ops[i], backward_words)) named = 1;
  int phase = TRACE_FORWARD;
  for (int i = 0; i < g->n_ops; i++) {
    graph_op *op = &g->ops[i];
    if (op->branch >= 0 && g->branches[op->branch].kind == GRAPH_BRANCH_PERIODIC) {
      /* not every step (interp_branch.c, Note [once and periodic]): a phase of its
       * own, and an evaluation's forward pass does not start anything */
      op->phase = TRACE_PERIODIC;
      continue;
    }
    if (op_named(op, update_words)) {
      phase = TRACE_UPDATE;
    } else if (phase == TRACE_FORWARD) {
      if (named && op_named(op, backward_words)) phase = TRACE_BACKWARD;
      if (!named)
        for (int l = op->loop; l >= 0; l = g->loops[l].parent)
          if (g->loops[l].step < 0) phase = TRACE_BACKWARD;
    }
    op->phase = phase;
  }
}

static int add_candidate(graph *g) {
  graph_candidate *n = realloc(g->candidates, (size_t)(g->n_candidates + 1) * sizeof *n);
  if (!n) return -1;
  g->candidates = n;
  memset(&n[g->n_candidates], 0, sizeof *n);
  return g->n_candidates++;
}

/* On the unrolled trace: per concrete tensor, its longest idle span. */
static void candidates_trace(graph *g, const tidal_trace *t) {
  int *last = malloc(((size_t)t->n_tensors + 1) * sizeof *last);
  int *best_from = malloc(((size_t)t->n_tensors + 1) * sizeof *best_from);
  int *best_to = malloc(((size_t)t->n_tensors + 1) * sizeof *best_to);
  int *best_acc = malloc(((size_t)t->n_tensors + 1) * sizeof *best_acc);
  int *written = calloc((size_t)t->n_tensors + 1, sizeof *written);
  if (!last || !best_from || !best_to || !best_acc || !written) goto out;
  for (int i = 0; i < t->n_tensors; i++) last[i] = best_from[i] = best_to[i] = best_acc[i] = -1;
  for (int o = 0; o < t->n_ops; o++) {
    for (int k = 0; k < t->ops[o].n_acc; k++) {
      const trace_access *a = &t->ops[o].acc[k];
      int ti = a->tensor;
      if (last[ti] >= 0 && last[ti] != o) {
        int gap = o - last[ti] - 1;
        int cur = best_from[ti] >= 0 ? best_to[ti] - best_from[ti] - 1 : -1;
        /* the gap must follow a write in this iteration: produced early, read later */
        if (gap > cur && written[ti]) {
          best_from[ti] = last[ti];
          best_to[ti] = o;
          best_acc[ti] = k;
        }
      }
      if (a->mode & ACCESS_WRITE) written[ti] = 1;
      last[ti] = o;
    }
  }
  int min_idle = t->n_ops / LIVENESS_IDLE_FRACTION;
  if (min_idle < LIVENESS_MIN_IDLE_OPS) min_idle = LIVENESS_MIN_IDLE_OPS;
  for (int ti = 0; ti < t->n_tensors; ti++) {
    if (best_from[ti] < 0) continue;
    int idle = best_to[ti] - best_from[ti] - 1;
    if (idle < min_idle) continue;
    const trace_op *to = &t->ops[best_to[ti]];
    const trace_access *na = &to->acc[best_acc[ti]];
    const graph_op *gop = &g->ops[to->static_op];
    int gt = gop->acc[na->static_access].tensor;
    int c = add_candidate(g);
    if (c < 0) break;
    graph_candidate *cd = &g->candidates[c];
    cd->tensor = gt;
    cd->instance = strdup(t->tensors[ti].name);
    cd->bytes = g->tensors[gt].bytes;
    cd->bytes_value = (int64_t)t->tensors[ti].bytes;
    cd->last_use_op = t->ops[best_from[ti]].static_op;
    cd->next_use_op = to->static_op;
    cd->idle_ops = idle;
    cd->dead = na->mode == ACCESS_WRITE && na->exact && na->offset == t->tensors[ti].offset &&
               na->bytes >= t->tensors[ti].bytes;
  }
out:
  free(last);
  free(best_from);
  free(best_to);
  free(best_acc);
  free(written);
}

/* On the static op list (something unbound): spans in static ops. */
static void candidates_static(graph *g) {
  int min_idle = g->n_ops / LIVENESS_IDLE_FRACTION;
  if (min_idle < LIVENESS_MIN_IDLE_OPS) min_idle = LIVENESS_MIN_IDLE_OPS;
  for (int ti = 0; ti < g->n_tensors; ti++) {
    int last = -1, written = 0, bf = -1, bt = -1, bk = -1;
    for (int o = 0; o < g->n_ops; o++)
      for (int k = 0; k < g->ops[o].n_acc; k++) {
        const graph_access *a = &g->ops[o].acc[k];
        if (a->tensor != ti) continue;
        if (last >= 0 && last != o && written && (bf < 0 || o - last > bt - bf)) {
          bf = last;
          bt = o;
          bk = k;
        }
        if (a->mode & ACCESS_WRITE) written = 1;
        last = o;
      }
    if (bf < 0 || bt - bf - 1 < min_idle) continue;
    int c = add_candidate(g);
    if (c < 0) return;
    graph_candidate *cd = &g->candidates[c];
    const graph_access *na = &g->ops[bt].acc[bk];
    cd->tensor = ti;
    cd->bytes = g->tensors[ti].bytes;
    int64_t v;
    cd->bytes_value = graph_eval(g, cd->bytes, &v) == 0 ? v : -1;
    cd->last_use_op = bf;
    cd->next_use_op = bt;
    cd->idle_ops = bt - bf - 1;
    cd->dead = na->mode == ACCESS_WRITE && na->exact && sym_equal(na->bytes, g->tensors[ti].bytes);
  }
}

void liveness_candidates(graph *g, const tidal_trace *t) {
  if (t) {
    g->unrolled_ops = t->n_ops;
    candidates_trace(g, t);
  } else {
    g->unrolled_ops = -1;
    candidates_static(g);
  }
}
