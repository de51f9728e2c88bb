/* emit_dot.c - `tidal graph --format dot`: Graphviz.
 *
 * Layout, so that a real trainer's graph (the gpt sample: 72 ops, 120
 * tensors) reads when rendered:
 *  - top to bottom: ops are boxes in program order, filled by phase (forward light blue,
 *    backward salmon, update light green, periodic plum, other white), in
 *    one cluster per phase, and inside it one nested cluster per graph loop
 *    ("layer loop l < L"): a loop goes to the phase of its first op;
 *  - tensors are ellipses outside the clusters (they link phases);
 *    eviction candidates are filled yellow with a bold red outline;
 *  - an edge op -> tensor is a write (blue), tensor -> op a read (black);
 *  - the plan's actions, when a plan is given (`--budget`), are dashed
 *    edges labelled with the action: swap out (red) and drop (grey) from the
 *    op after which they run to the tensor, prefetch (green) and recompute
 *    (purple) from the tensor to the op before which they run;
 *  - a legend cluster shows each shape, colour and edge.
 * Unresolved pointers get no node. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/emit.h"
#include "graph/graph.h"

static void dstr(FILE *fp, const char *s) {
  fputc('"', fp);
  for (; s && *s; s++) {
    if (*s == '"' || *s == '\\') fputc('\\', fp);
    if (*s == '\n') {
      fputs("\\n", fp);
      continue;
    }
    fputc(*s, fp);
  }
  fputc('"', fp);
}

static const char *const phase_fill[] = {"lightblue", "salmon", "palegreen", "white", "plum"};
static const char *const phase_name[] = {"forward", "backward", "update", "other", "periodic"};

static int phase_of(const graph_op *op) {
  return op->phase >= 0 && op->phase <= TRACE_PERIODIC ? op->phase : TRACE_OTHER;
}

static void op_node(FILE *fp, const graph *g, int i, const char *indent) {
  const graph_op *op = &g->ops[i];
  char label[512];
  snprintf(label, sizeof label, "#%d %s\n%s:%u", op->id, op->label ? op->label : op->callee,
           op->file, op->line);
  fprintf(fp, "%sop%d [shape=box, style=filled, fillcolor=%s, label=", indent, i,
          phase_fill[phase_of(op)]);
  dstr(fp, label);
  fprintf(fp, "];\n");
}

/* The cluster of loop l and, nested, its child loops; ops directly in it. */
static void loop_cluster(FILE *fp, const graph *g, int l, const int *loop_phase, int phase,
                         int depth) {
  char indent[64];
  int d = depth + 2 < 30 ? depth + 2 : 30;
  memset(indent, ' ', (size_t)d * 2);
  indent[d * 2] = '\0';
  const graph_loop *L = &g->loops[l];
  fprintf(fp, "%ssubgraph cluster_loop%d {\n%s  style=rounded; color=gray40; label=", indent, l,
          indent);
  char label[256];
  char *trip = L->trip ? sym_to_text(L->trip) : NULL;
  snprintf(label, sizeof label, "loop %s (%s iterations)", L->var ? L->var : "?",
           trip ? trip : "?");
  free(trip);
  dstr(fp, label);
  fprintf(fp, ";\n");
  for (int c = 0; c < g->n_loops; c++)
    if (g->loops[c].parent == l && loop_phase[c] == phase)
      loop_cluster(fp, g, c, loop_phase, phase, depth + 1);
  for (int i = 0; i < g->n_ops; i++)
    if (g->ops[i].loop == l) op_node(fp, g, i, indent);
  fprintf(fp, "%s}\n", indent);
}

static void legend(FILE *fp, int with_plan) {
  fputs("  subgraph cluster_legend {\n    label=\"legend\"; style=dashed; color=gray50;\n"
        "    node [fontsize=9];\n", fp);
  for (int p = 0; p <= TRACE_PERIODIC; p++)
    fprintf(fp, "    legend_%s [shape=box, style=filled, fillcolor=%s, label=\"%s op\"];\n",
            phase_name[p], phase_fill[p], phase_name[p]);
  fputs("    legend_tensor [shape=ellipse, label=\"tensor\"];\n"
        "    legend_cand [shape=ellipse, style=\"filled,bold\", fillcolor=yellow, color=red, "
        "penwidth=2, label=\"eviction candidate\"];\n"
        "    legend_tensor -> legend_forward [label=\"read\", fontsize=8];\n"
        "    legend_backward -> legend_cand [color=blue, label=\"write\", fontsize=8];\n", fp);
  if (with_plan)
    fputs("    legend_update -> legend_tensor [style=dashed, color=red, fontcolor=red, "
          "label=\"swap out\", fontsize=8];\n"
          "    legend_cand -> legend_other [style=dashed, color=darkgreen, fontcolor=darkgreen, "
          "label=\"prefetch\", fontsize=8];\n", fp);
  fputs("  }\n", fp);
}

static void plan_edges(FILE *fp, const graph *g, const plan_result *plan) {
  for (int k = 0; k < plan->n_actions; k++) {
    const plan_action *a = &plan->actions[k];
    if (a->ref_op < 0 || a->ref_op >= g->n_ops || a->at_op < 0 || a->at_op >= g->n_ops) continue;
    const graph_op *ref = &g->ops[a->ref_op];
    if (a->ref_access < 0 || a->ref_access >= ref->n_acc) continue;
    int t = ref->acc[a->ref_access].tensor;
    if (t < 0) continue;
    const char *color = a->kind == PLAN_SWAP_OUT   ? "red"
                        : a->kind == PLAN_PREFETCH ? "darkgreen"
                        : a->kind == PLAN_DROP     ? "gray40"
                        : a->kind == PLAN_RECOMPUTE ? "purple"
                                                    : "black";
    char label[64];
    snprintf(label, sizeof label, "%s%s", plan_kind_name(a->kind),
             a->instances > 1 ? " (each layer)" : "");
    if (a->kind == PLAN_PREFETCH || a->kind == PLAN_RECOMPUTE)
      fprintf(fp, "  t%d -> op%d [style=dashed, color=%s, fontcolor=%s, fontsize=8, label=", t,
              a->at_op, color, color);
    else
      fprintf(fp, "  op%d -> t%d [style=dashed, color=%s, fontcolor=%s, fontsize=8, label=",
              a->at_op, t, color, color);
    dstr(fp, label);
    fputs(", constraint=false];\n", fp);
  }
}

int graph_emit_dot(const graph *g, const plan_result *plan, FILE *fp) {
  fprintf(fp, "digraph tidal {\n  rankdir=TB;\n  compound=true;\n"
              "  node [fontname=\"Helvetica\", fontsize=10];\n"
              "  edge [fontname=\"Helvetica\"];\n");
  fprintf(fp, "  label=");
  char title[512];
  snprintf(title, sizeof title, "training loop %s:%u (%s)%s", g->loop_file, g->loop_line,
           g->loop_reason, plan ? "; dashed edges: the plan's actions" : "");
  dstr(fp, title);
  fprintf(fp, ";\n");
  /* Each loop belongs to the phase of its first op (its own or a child's). */
  int *loop_phase = calloc((size_t)g->n_loops + 1, sizeof *loop_phase);
  if (!loop_phase) return -1;
  for (int l = 0; l < g->n_loops; l++) loop_phase[l] = -1;
  for (int i = 0; i < g->n_ops; i++)
    for (int l = g->ops[i].loop; l >= 0 && l < g->n_loops; l = g->loops[l].parent)
      if (loop_phase[l] < 0) loop_phase[l] = phase_of(&g->ops[i]);
  /* A child loop in another phase than its parent is drawn in its parent's. */
  for (int l = 0; l < g->n_loops; l++)
    for (int p = g->loops[l].parent; p >= 0; p = g->loops[p].parent) loop_phase[l] = loop_phase[p];
  for (int ph = 0; ph <= TRACE_PERIODIC; ph++) {
    int any = 0;
    for (int i = 0; i < g->n_ops && !any; i++)
      any = (g->ops[i].loop < 0 && phase_of(&g->ops[i]) == ph) ||
            (g->ops[i].loop >= 0 && loop_phase[g->ops[i].loop] == ph);
    if (!any) continue;
    fprintf(fp, "  subgraph cluster_%s {\n    label=\"%s\"; style=filled; color=gray95;\n",
            phase_name[ph], phase_name[ph]);
    for (int l = 0; l < g->n_loops; l++)
      if (g->loops[l].parent < 0 && loop_phase[l] == ph) loop_cluster(fp, g, l, loop_phase, ph, 1);
    for (int i = 0; i < g->n_ops; i++)
      if (g->ops[i].loop < 0 && phase_of(&g->ops[i]) == ph) op_node(fp, g, i, "    ");
    fprintf(fp, "  }\n");
  }
  free(loop_phase);
  for (int i = 1; i < g->n_ops; i++)
    fprintf(fp, "  op%d -> op%d [style=dotted, color=gray, weight=10];\n", i - 1, i);
  for (int i = 0; i < g->n_tensors; i++) {
    int cand = 0;
    for (int c = 0; c < g->n_candidates; c++)
      if (g->candidates[c].tensor == i) cand = 1;
    char *sz = sym_to_text(g->tensors[i].bytes);
    char label[512];
    snprintf(label, sizeof label, "%s\n%s", g->tensors[i].name, sz ? sz : "?");
    free(sz);
    fprintf(fp, "  t%d [shape=ellipse, %s label=", i,
            cand ? "style=\"filled,bold\", fillcolor=yellow, color=red, penwidth=2," : "");
    dstr(fp, label);
    fprintf(fp, "];\n");
  }
  for (int i = 0; i < g->n_ops; i++)
    for (int j = 0; j < g->ops[i].n_acc; j++) {
      const graph_access *a = &g->ops[i].acc[j];
      if (a->tensor < 0) continue;
      if (a->mode & ACCESS_READ) fprintf(fp, "  t%d -> op%d;\n", a->tensor, i);
      if (a->mode & ACCESS_WRITE) fprintf(fp, "  op%d -> t%d [color=blue];\n", i, a->tensor);
    }
  if (plan) plan_edges(fp, g, plan);
  legend(fp, plan != NULL);
  fprintf(fp, "}\n");
  return ferror(fp) ? -1 : 0;
}
