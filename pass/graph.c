/* graph.c - the graph data model: building it (the order of the analysis
 * passes), growing its arrays, and freeing it.
 *
 * graph_build runs: the kernel analysis (kernels.c), the training loop
 * choice (loop.c), the interpreter from main() (callchain.c, which calls
 * opsites.c and regions.c as it goes), then phases and liveness
 * (liveness.c).  The builder's scratch state (store, strings) lives only
 * during graph_build; everything left in the graph is owned by it and
 * released by graph_free.  Syms live in the pass_tu's arena. */
#include <stdlib.h>
#include <string.h>

#include "graph_impl.h"

const char *graph_op_kind_name(graph_op_kind k) {
  switch (k) {
  case GRAPH_OP_LAUNCH: return "launch";
  case GRAPH_OP_LIBRARY: return "library";
  case GRAPH_OP_MEMCPY: return "memcpy";
  case GRAPH_OP_MEMSET: return "memset";
  case GRAPH_OP_COLLECTIVE: return "collective";
  }
  return "unknown";
}

/* Grows an array of `size`-byte elements by one zeroed element. */
static int grow(void **arr, int *n, size_t size) {
  void *p = realloc(*arr, (size_t)(*n + 1) * size);
  if (!p) return -1;
  *arr = p;
  memset((char *)p + (size_t)*n * size, 0, size);
  return (*n)++;
}

int graph_add_op(graph *g) { return grow((void **)&g->ops, &g->n_ops, sizeof *g->ops); }
int graph_add_tensor(graph *g) { return grow((void **)&g->tensors, &g->n_tensors, sizeof *g->tensors); }
int graph_add_alloc(graph *g) { return grow((void **)&g->allocs, &g->n_allocs, sizeof *g->allocs); }
int graph_add_region(graph *g) { return grow((void **)&g->regions, &g->n_regions, sizeof *g->regions); }
int graph_add_loop(graph *g) { return grow((void **)&g->loops, &g->n_loops, sizeof *g->loops); }

int graph_eval(const graph *g, const sym *s, int64_t *out) {
  if (!s) return -1;
  return sym_eval(s, bind_value_fn, (void *)&g->binds, out);
}

typedef struct main_find {
  pass_tu *t;
  CXCursor found;
} main_find;

static enum CXChildVisitResult main_visitor(CXCursor c, CXCursor parent, CXClientData d) {
  main_find *m = d;
  enum CXCursorKind k = clang_getCursorKind(c);
  if (k == CXCursor_LinkageSpec || k == CXCursor_Namespace) return CXChildVisit_Recurse;
  if (k != CXCursor_FunctionDecl || !clang_isCursorDefinition(c) || !frontend_in_main_file(m->t, c))
    return CXChildVisit_Continue;
  char *nm = string_and_dispose(clang_getCursorSpelling(c));
  int is_main = strcmp(nm, "main") == 0;
  free(nm);
  if (!is_main) return CXChildVisit_Continue;
  m->found = c;
  return CXChildVisit_Break;
}

/* main()'s definition in the main file (a visitor: the toolkit headers put
 * thousands of declarations before it). */
CXCursor graph_find_main(pass_tu *t) {
  main_find m = {t, clang_getNullCursor()};
  clang_visitChildren(clang_getTranslationUnitCursor(t->tu), main_visitor, &m);
  return m.found;
}

typedef struct ret_scan {
  gb *b;
  graph *g;
} ret_scan;

static enum CXChildVisitResult returns_visitor(CXCursor c, CXCursor parent, CXClientData d) {
  ret_scan *r = d;
  enum CXCursorKind k = clang_getCursorKind(c);
  if (k == CXCursor_LambdaExpr) return CXChildVisit_Continue;
  if (k == CXCursor_ReturnStmt) {
    graph_range *n = realloc(r->g->main_returns, (size_t)(r->g->n_main_returns + 1) * sizeof *n);
    if (n) {
      r->g->main_returns = n;
      r->g->main_returns[r->g->n_main_returns++] = gb_range(r->b, c, 1);
    }
    return CXChildVisit_Continue;
  }
  return CXChildVisit_Recurse;
}

static CXCursor function_of(CXCursor c) {
  for (int guard = 0; guard < 256 && !clang_Cursor_isNull(c); guard++) {
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_FunctionDecl || k == CXCursor_CXXMethod) return c;
    if (k == CXCursor_TranslationUnit) break;
    c = clang_getCursorSemanticParent(c);
  }
  return clang_getNullCursor();
}

/* Drops loops that contain no op (host-side loops such as batch
 * generation): they only add noise to the graph and its readers. */
static void prune_loops(graph *g) {
  if (!g->n_loops) return;
  int *keep = calloc((size_t)g->n_loops, sizeof *keep);
  if (!keep) return;
  for (int i = 0; i < g->n_ops; i++)
    for (int l = g->ops[i].loop; l >= 0; l = g->loops[l].parent) keep[l] = 1;
  int n = 0;
  for (int l = 0; l < g->n_loops; l++) {
    if (!keep[l]) {
      free(g->loops[l].var);
      free(g->loops[l].file);
      keep[l] = -1;
      continue;
    }
    keep[l] = n;
    g->loops[n] = g->loops[l];
    g->loops[n].id = n;
    n++;
  }
  for (int l = 0; l < n; l++)
    if (g->loops[l].parent >= 0) g->loops[l].parent = keep[g->loops[l].parent];
  for (int i = 0; i < g->n_ops; i++) {
    if (g->ops[i].loop >= 0) g->ops[i].loop = keep[g->ops[i].loop];
    if (g->ops[i].top_loop >= 0) g->ops[i].top_loop = keep[g->ops[i].top_loop];
  }
  g->n_loops = n;
  free(keep);
}

/* Does some tensor get written and then, after other ops, read again in a
 * later op (activations saved for backward)? */
static int forward_then_backward(const graph *g) { return g->n_candidates > 0; }

int graph_build(pass_tu *t, const graph_options *opt, graph *g) {
  memset(g, 0, sizeof *g);
  g->tu = t;
  g->unrolled_ops = -1;
  int rc = kernels_analyze(t, &g->kernels);
  if (rc != 0) return rc;
  if (opt)
    for (int i = 0; i < opt->n_binds; i++)
      bind_set(&g->binds, opt->bind_names[i], opt->bind_values[i], BIND_USER);
  gb b;
  memset(&b, 0, sizeof b);
  b.g = g;
  b.t = t;
  b.a = t->arena;
  b.train_loop = clang_getNullCursor();
  b.unroll_product = 1;
  rc = loop_choose(&b, opt, &b.train_loop);
  if (rc != 0) goto out;
  CXCursor fn = function_of(b.train_loop);
  if (!clang_Cursor_isNull(fn)) g->loop_function = string_and_dispose(clang_getCursorSpelling(fn));
  CXCursor mainfn = graph_find_main(t);
  if (!clang_Cursor_isNull(mainfn)) {
    CXCursor ch[64];
    int n = gb_children(mainfn, ch, 64);
    for (int i = 0; i < n && i < 64; i++)
      if (clang_getCursorKind(ch[i]) == CXCursor_CompoundStmt) {
        g->main_body = gb_range(&b, ch[i], 0);
        ret_scan rs = {&b, g};
        clang_visitChildren(ch[i], returns_visitor, &rs);
      }
    gb_run_function(&b, mainfn, NULL, clang_getNullCursor(), NULL, 0, NULL);
  }
  if (!b.reached_loop && !clang_Cursor_isNull(fn)) {
    /* The loop's function is not reached from main (or there is no main):
     * walk it on its own, its parameters symbolic. */
    b.mode = GB_SETUP;
    gb_run_function(&b, fn, NULL, clang_getNullCursor(), NULL, 0, NULL);
    if (b.reached_loop)
      gb_note(&b, b.train_loop, "the training loop's function is not called from main(); "
              "its parameters are treated as unknown");
  }
  if (!b.reached_loop) {
    diag_error(g->loop_file, g->loop_line, g->loop_col,
               "internal error: the training loop was not reached by the analysis");
    rc = TIDAL_EXIT_INTERNAL;
    goto out;
  }
  prune_loops(g);
  liveness_phases(g);
  liveness_candidates(g);
  if (strncmp(g->loop_reason, "heuristic", 9) == 0 && forward_then_backward(g)) {
    size_t len = strlen(g->loop_reason) + 32;
    char *r = malloc(len);
    if (r) {
      snprintf(r, len, "%s, forward-then-backward", g->loop_reason);
      free(g->loop_reason);
      g->loop_reason = r;
    }
  }
out:
  for (size_t i = 0; i < b.n_strs; i++) free(b.strs[i]);
  free(b.strs);
  free(b.tab);
  return rc;
}

void graph_free(graph *g) {
  if (!g) return;
  kernels_free(&g->kernels);
  free(g->loop_file);
  free(g->loop_reason);
  free(g->loop_function);
  free(g->main_returns);
  for (int i = 0; i < g->n_ops; i++) {
    graph_op *op = &g->ops[i];
    free(op->callee);
    free(op->label);
    free(op->file);
    for (int j = 0; j < op->n_calls; j++) {
      free(op->calls[j].function);
      free(op->calls[j].file);
    }
    free(op->calls);
    free(op->grid);
    free(op->block);
    free(op->shmem);
    free(op->stream);
    for (int j = 0; j < op->n_args; j++) {
      if (op->arg_text) free(op->arg_text[j]);
      if (op->arg_type) free(op->arg_type[j]);
    }
    free(op->arg_text);
    free(op->arg_type);
    for (int j = 0; j < op->n_acc; j++) {
      free(op->acc[j].ptr_text);
      free(op->acc[j].ptr_local);
      free(op->acc[j].param);
      calltext_free(&op->acc[j], op->n_calls + 1);
    }
    free(op->acc);
  }
  free(g->ops);
  for (int i = 0; i < g->n_loops; i++) {
    free(g->loops[i].var);
    free(g->loops[i].file);
  }
  free(g->loops);
  for (int i = 0; i < g->n_allocs; i++) {
    free(g->allocs[i].name);
    free(g->allocs[i].file);
  }
  free(g->allocs);
  for (int i = 0; i < g->n_frees; i++) free(g->frees[i].file);
  free(g->frees);
  for (int i = 0; i < g->n_regions; i++) free(g->regions[i].name);
  free(g->regions);
  for (int i = 0; i < g->n_tensors; i++) {
    free(g->tensors[i].name);
    for (int j = 0; j < g->tensors[i].n_aliases; j++) free(g->tensors[i].aliases[j]);
    free(g->tensors[i].aliases);
  }
  free(g->tensors);
  for (int i = 0; i < g->n_candidates; i++) free(g->candidates[i].instance);
  free(g->candidates);
  bind_free(&g->binds);
  for (int i = 0; i < g->n_notes; i++) {
    free(g->notes[i].file);
    free(g->notes[i].message);
  }
  free(g->notes);
  memset(g, 0, sizeof *g);
}
