/* emit_text.c - `tidal graph` (default format): a summary for a person.
 * Sections: the loop and why, the ops in program order with their call
 * paths and accesses, the tensors, the eviction candidates (sizes and idle
 * spans), and what the analysis could not resolve.  Sizes print as
 * "B*T*C*4 = 128 KiB" when bound. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/emit.h"
#include "graph/graph.h"

static void human(char *buf, size_t n, int64_t v) {
  if (v >= (int64_t)1 << 30) snprintf(buf, n, "%.1f GiB", (double)v / (1 << 30));
  else if (v >= 1 << 20) snprintf(buf, n, "%.1f MiB", (double)v / (1 << 20));
  else if (v >= 1 << 10) snprintf(buf, n, "%.1f KiB", (double)v / (1 << 10));
  else snprintf(buf, n, "%lld B", (long long)v);
}

/* "B*T*C*4 = 128.0 KiB", "B*T*C*4", or "unknown". */
static void size_text(const graph *g, const sym *s, char *buf, size_t n) {
  char *str = s ? sym_to_text(s) : NULL;
  int64_t v;
  if (s && graph_eval(g, s, &v) == 0) {
    char h[32];
    human(h, sizeof h, v);
    int64_t c;
    if (sym_get_const(s, &c)) snprintf(buf, n, "%s", h);
    else snprintf(buf, n, "%s = %s", str ? str : "?", h);
  } else {
    snprintf(buf, n, "%s", str ? str : "unknown");
  }
  free(str);
}

static const char *phase_name(int p) {
  return p == 0 ? "fwd" : p == 1 ? "bwd" : p == 2 ? "upd" : p == TRACE_PERIODIC ? "per" : "   ";
}

int graph_emit_text(const graph *g, FILE *fp) {
  fprintf(fp, "training loop: %s:%u (%s)%s%s\n", g->loop_file, g->loop_line, g->loop_reason,
          g->loop_function ? " in " : "", g->loop_function ? g->loop_function : "");
  int found = 0, device = 0;
  for (int i = 0; i < g->binds.n; i++) {
    found += g->binds.items[i].source != BIND_USER && g->binds.items[i].source != BIND_DEVICE;
    device += g->binds.items[i].source == BIND_DEVICE;
  }
  if (g->binds.n) {
    fprintf(fp, "bindings:");
    for (int i = 0; i < g->binds.n; i++) {
      bind_source s = g->binds.items[i].source;
      fprintf(fp, " %s=%lld%s", g->binds.items[i].name, (long long)g->binds.items[i].value,
              s == BIND_USER ? "" : s == BIND_DEVICE ? "+" : "*");
    }
    fprintf(fp, "%s%s\n", found ? "   (* found in the source)" : "",
            device ? "   (+ the modelled card, an H100; --bind for another)" : "");
  }
  for (int i = 0; i < g->n_branches; i++) {
    const graph_branch *br = &g->branches[i];
    if (br->kind == GRAPH_BRANCH_ONCE)
      fprintf(fp, "once (setup, first iteration only): %s:%u in %s: if (%s): %d allocation(s), "
              "%d op site(s), not ops of the iteration\n", br->file, br->line,
              br->function ? br->function : "?", br->cond ? br->cond : "?", br->n_allocs,
              br->n_sites);
    else
      fprintf(fp, "periodic (not every iteration): %s:%u in %s: if (%s): ops in phase 'per'\n",
              br->file, br->line, br->function ? br->function : "?", br->cond ? br->cond : "?");
  }
  fprintf(fp, "ops: %d static", g->n_ops);
  if (g->unrolled_ops >= 0) {
    fprintf(fp, ", %lld per iteration unrolled", (long long)g->unrolled_ops);
  } else {
    /* say which names keep the sizes symbolic: all of them at once */
    char *name = graph_unbound_message(g);
    int u = -1; /* else an allocation whose size is no expression (nothing to bind) */
    for (int i = 0; !name && i < g->n_allocs && u < 0; i++)
      if (!g->allocs[i].bytes || sym_is_unknown(g->allocs[i].bytes)) u = i;
    if (name) fprintf(fp, " (not unrolled: %s)", name);
    else if (u >= 0)
      fprintf(fp, " (not unrolled: the size of '%s' (%s:%u) is not computable)",
              g->allocs[u].name ? g->allocs[u].name : "?", g->allocs[u].file ? g->allocs[u].file : "?",
              g->allocs[u].line);
    else fprintf(fp, " (not unrolled)");
    free(name);
  }
  fprintf(fp, "; tensors: %d; allocations: %d; loops: %d\n\n", g->n_tensors, g->n_allocs, g->n_loops);

  fprintf(fp, "ops (program order):\n");
  for (int i = 0; i < g->n_ops; i++) {
    const graph_op *op = &g->ops[i];
    int depth = 0;
    for (int l = op->loop; l >= 0; l = g->loops[l].parent) depth++;
    fprintf(fp, "  #%-3d %s %*s%s  (%s:%u)", op->id, phase_name(op->phase), depth * 2, "",
            op->label ? op->label : op->callee, op->file, op->line);
    if (op->loop >= 0) {
      const graph_loop *l = &g->loops[op->loop];
      char *trip = sym_to_text(l->trip);
      fprintf(fp, " in loop %s x %s", l->var ? l->var : "?", trip ? trip : "?");
      free(trip);
    }
    if (op->split_batch) { /* opsites.c Note [batch split ops] */
      char *n = sym_to_text(op->split_count);
      fprintf(fp, " split over its batch of %s", n ? n : "?");
      free(n);
    }
    if (op->split) /* may run in pieces (opsites.c Note [split launches]) */
      fprintf(fp, " split over %s",
              op->arg_text && op->arg_text[op->split_count_arg] ? op->arg_text[op->split_count_arg]
                                                                : "?");
    fputc('\n', fp);
    for (int j = 0; j < op->n_acc; j++) {
      const graph_access *a = &op->acc[j];
      char sz[128];
      size_text(g, a->bytes, sz, sizeof sz);
      fprintf(fp, "        %-9s %-28s %s%s\n", access_mode_name(a->mode),
              a->tensor >= 0  ? g->tensors[a->tensor].name
              : a->null_arg  ? "(NULL: no access)"
              : a->unmanaged ? "(managed/host memory: not tidal's)"
                             : "(unresolved)",
              sz,
              a->exact ? "" : " (upper bound)");
    }
  }
  fprintf(fp, "\ntensors:\n");
  for (int i = 0; i < g->n_tensors; i++) {
    const graph_tensor *t = &g->tensors[i];
    char sz[128], off[128];
    size_text(g, t->bytes, sz, sizeof sz);
    char *o = sym_to_text(t->offset);
    snprintf(off, sizeof off, "%s", o ? o : "?");
    free(o);
    if (t->n_family) { /* an array's element at a loop index: which elements */
      char *ix = sym_to_text(t->family_index);
      fprintf(fp, "  T%-3d %-30s %s element %s of %s .. %s at +%s", t->id, t->name, sz,
              ix ? ix : "?", t->family_name[0], t->family_name[t->n_family - 1], off);
      free(ix);
    } else {
      fprintf(fp, "  T%-3d %-30s %s in %s at +%s", t->id, t->name, sz,
              t->alloc >= 0 ? g->allocs[t->alloc].name : "?", off);
    }
    if (t->n_aliases) {
      fprintf(fp, "  aka");
      for (int j = 0; j < t->n_aliases; j++) fprintf(fp, " %s", t->aliases[j]);
    }
    fputc('\n', fp);
  }
  fprintf(fp, "\neviction candidates (%d):\n", g->n_candidates);
  int64_t total = 0;
  int unknown = 0; /* candidates whose size waits for a --bind */
  for (int i = 0; i < g->n_candidates; i++) {
    const graph_candidate *c = &g->candidates[i];
    char sz[128];
    if (c->instance && c->bytes_value >= 0) human(sz, sizeof sz, c->bytes_value);
    else size_text(g, c->bytes, sz, sizeof sz);
    if (c->bytes_value > 0) total += c->bytes_value;
    if (c->bytes_value < 0) unknown++;
    fprintf(fp, "  %-32s %-12s idle %lld ops (after #%d %s, until #%d %s)%s\n",
            c->instance ? c->instance : g->tensors[c->tensor].name, sz, (long long)c->idle_ops,
            c->last_use_op, g->ops[c->last_use_op].callee, c->next_use_op,
            g->ops[c->next_use_op].callee, c->dead ? "  dead: overwritten next, drop" : "");
  }
  /* a sum of the few sizes that are known would read as the total: say it
   * is not known instead ("total: 4 B" with every activation unbound) */
  if (unknown)
    fprintf(fp, "  total: known once the sizes are bound (%d of %d candidates)\n", unknown,
            g->n_candidates);
  else if (total > 0) {
    char h[32];
    human(h, sizeof h, total);
    fprintf(fp, "  total: %s\n", h);
  }
  fprintf(fp, "\nunresolved (%d):\n", g->n_notes);
  for (int i = 0; i < g->n_notes; i++)
    fprintf(fp, "  %s:%u:%u: %s\n", g->notes[i].file, g->notes[i].line, g->notes[i].col,
            g->notes[i].message);
  if (!g->n_notes) fprintf(fp, "  nothing\n");
  return ferror(fp) ? -1 : 0;
}
