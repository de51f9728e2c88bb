/* graph.c - the graph data model: growing its arrays, evaluating its
 * sizes under its bindings, and freeing it.  The lowest file of the graph
 * stage: it calls nothing above bind.c (building the graph is build.c's
 * job).  Syms live in the pass_tu's arena. */
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"

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

int graph_add_op(graph *g) {
  int id = grow((void **)&g->ops, &g->n_ops, sizeof *g->ops);
  if (id >= 0) g->ops[id].branch = -1;
  return id;
}
int graph_add_tensor(graph *g) { return grow((void **)&g->tensors, &g->n_tensors, sizeof *g->tensors); }
int graph_add_alloc(graph *g) { return grow((void **)&g->allocs, &g->n_allocs, sizeof *g->allocs); }
int graph_add_region(graph *g) { return grow((void **)&g->regions, &g->n_regions, sizeof *g->regions); }
int graph_add_loop(graph *g) { return grow((void **)&g->loops, &g->n_loops, sizeof *g->loops); }
int graph_add_branch(graph *g) {
  return grow((void **)&g->branches, &g->n_branches, sizeof *g->branches);
}

int graph_device_sync_call(const char *name) {
  if (strcmp(name, "cudaDeviceSynchronize") == 0 || strcmp(name, "cudaThreadSynchronize") == 0)
    return 1;
  return strcmp(name, "cuCtxSynchronize") == 0 ? 2 : 0;
}

const char *graph_branch_kind_name(graph_branch_kind k) {
  return k == GRAPH_BRANCH_ONCE ? "once" : "periodic";
}

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

void graph_access_free_texts(graph_access *a, int n_levels) {
  for (int k = 0; k < n_levels; k++) {
    if (a->ptr_text_at) free(a->ptr_text_at[k]);
    if (a->bytes_text_at) free(a->bytes_text_at[k]);
  }
  free(a->ptr_text_at);
  free(a->bytes_text_at);
  free(a->text_valid_at);
  free(a->text_span_at);
}

static void free_arg(graph_site_arg *a) {
  free(a->text);
  free(a->type);
  free(a->acc);
  free(a->home_text);
}

static void free_sites(graph *g) {
  for (int i = 0; i < g->n_sites; i++) {
    graph_site *s = &g->sites[i];
    for (int j = 0; j < s->n_acc; j++) {
      free(s->acc[j].ptr);
      free(s->acc[j].bytes);
      free(s->acc[j].why);
    }
    free(s->acc);
    for (int j = 0; j < s->n_args; j++) free_arg(&s->args[j]);
    free(s->args);
    for (int j = 0; j < s->n_config; j++) free_arg(&s->config[j]);
    free(s->config);
    free(s->ops);
    free(s->function);
    free(s->callee);
    free(s->label);
    free(s->skip);
    for (int j = 0; j < s->n_homes; j++) free(s->homes[j]);
    free(s->homes);
    free(s->unnamed);
    free(s->array_text);
  }
  free(g->sites);
  for (int i = 0; i < g->n_files; i++) {
    graph_file *f = &g->files[i];
    for (int j = 0; j < f->n_mems; j++) {
      for (int k = 0; k < f->mems[j].n_args; k++) free(f->mems[j].args[k]);
      free(f->mems[j].args);
      free(f->mems[j].callee);
    }
    free(f->mems);
    free(f->fns);
    free(f->main_returns);
    free(f->loop_exits);
    for (int j = 0; j < f->n_notes; j++) {
      free(f->notes[j].file);
      free(f->notes[j].message);
    }
    free(f->notes);
    for (int j = 0; j < f->n_escapes; j++) {
      graph_escape *e = &f->escapes[j];
      for (int k = 0; k < e->n_homes; k++) free(e->homes[k]);
      free(e->homes);
      free(e->callee);
      free(e->why);
    }
    free(f->escapes);
  }
  free(g->files);
}

void graph_free(graph *g) {
  if (!g) return;
  kernels_free(&g->kernels);
  free(g->loop_file);
  free(g->loop_reason);
  free(g->loop_function);
  free(g->train_var);
  free_sites(g);
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
      free(op->acc[j].why_local);
      graph_access_free_texts(&op->acc[j], op->n_calls + 1);
    }
    free(op->acc);
  }
  free(g->ops);
  for (int i = 0; i < g->n_loops; i++) {
    free(g->loops[i].var);
    free(g->loops[i].file);
  }
  free(g->loops);
  for (int i = 0; i < g->n_branches; i++) {
    free(g->branches[i].cond);
    free(g->branches[i].function);
    free(g->branches[i].file);
    for (int k = 0; k < g->branches[i].n_sched; k++) free(g->branches[i].sched[k].text);
    free(g->branches[i].sched);
    free(g->branches[i].sched_why);
  }
  free(g->branches);
  for (int i = 0; i < g->n_allocs; i++) {
    free(g->allocs[i].name);
    free(g->allocs[i].file);
    free(g->allocs[i].home_why);
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
    free(g->tensors[i].family);
    free(g->tensors[i].family_off);
    free(g->tensors[i].family_region);
    for (int k = 0; g->tensors[i].family_name && k < g->tensors[i].n_family; k++)
      free(g->tensors[i].family_name[k]);
    free(g->tensors[i].family_name);
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
  free(g->home_all_why);
  free(g->sync_keep_why);
  memset(g, 0, sizeof *g);
}
