/* emit_dot.c - `tidal graph --format dot`: Graphviz.  Ops are boxes in
 * program order (forward light blue, backward salmon, update light green,
 * other white); tensors are ellipses, eviction candidates filled yellow
 * with a bold red outline; an edge op -> tensor is a write, tensor -> op a
 * read (both for readwrite).  Unresolved pointers get no node. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int graph_emit_dot(const graph *g, FILE *fp) {
  fprintf(fp, "digraph tidal {\n  rankdir=LR;\n  node [fontname=\"Helvetica\", fontsize=10];\n");
  fprintf(fp, "  label=");
  char title[512];
  snprintf(title, sizeof title, "training loop %s:%u (%s)", g->loop_file, g->loop_line,
           g->loop_reason);
  dstr(fp, title);
  fprintf(fp, ";\n");
  static const char *fill[] = {"lightblue", "salmon", "palegreen", "white", "plum"};
  for (int i = 0; i < g->n_ops; i++) {
    const graph_op *op = &g->ops[i];
    char label[512];
    snprintf(label, sizeof label, "#%d %s\n%s:%u", op->id, op->label ? op->label : op->callee,
             op->file, op->line);
    fprintf(fp, "  op%d [shape=box, style=filled, fillcolor=%s, label=", i,
            fill[op->phase >= 0 && op->phase <= TRACE_PERIODIC ? op->phase : 3]);
    dstr(fp, label);
    fprintf(fp, "];\n");
    if (i) fprintf(fp, "  op%d -> op%d [style=dotted, color=gray, weight=10];\n", i - 1, i);
  }
  for (int i = 0; i < g->n_tensors; i++) {
    int cand = 0;
    for (int c = 0; c < g->n_candidates; c++)
      if (g->candidates[c].tensor == i) cand = 1;
    char *sz = sym_to_string(g->tensors[i].bytes);
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
  fprintf(fp, "}\n");
  return ferror(fp) ? -1 : 0;
}
