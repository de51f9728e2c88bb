/* relocatable.c - which allocations the runtime may relocate
 * (graph_alloc.relocatable, graph.home_all_why).
 *
 * Note [relocatable allocations]
 * A relocatable allocation (TIDAL_GROUP_RELOCATABLE, docs/runtime-design.md
 * "Relocatable tensors") keeps its bytes anywhere in the runtime's device
 * pool: its stable pointer is only a name, and every device use of an
 * address inside it must go through TIDAL_AT inside the op that declared
 * it.  The pass can promise that for an allocation when every use of its
 * addresses it sees is
 *   - an argument of an instrumented op passed as TIDAL_AT(arg): a pointer
 *     argument the site declares an access through, whose text can be
 *     edited (graph_site_arg_wrapped), or a pointer parameter of the kernel
 *     cudaLaunchKernel launches, passed through a copy of its argument
 *     array (Note [argument arrays], sitehomes.c), or
 *   - an escape the rewriter neutralises with tidal_home(p) emitted just
 *     before it, which the runtime makes exact: whichever allocation p
 *     points into at run time stays at its stable address from then on.
 *     At an op site these are the accesses that do not reach the op through
 *     a wrapped argument (a pointer field of a struct passed by value, a
 *     pointer the argument array of cudaLaunchKernel holds, an argument in
 *     a macro's body, the op calls after the first in one statement), a
 *     pointer argument that points to pointers (its own allocation goes
 *     home; `&p` passed to a memcpy: p's), and the pointers a kernel is
 *     passed that no access declares (graph_site.homes, Note [pointer
 *     values at a site] in sitehomes.c); elsewhere the calls escapes.c
 *     lists (Note [escapes]).
 * Where pointer values escape so that no tidal_home can catch them - an op
 * site that is not instrumented, pointers an op is passed that tidal_home
 * cannot name (graph_site.unnamed), a memcpy of an array of pointers, the
 * escapes escapes.c could not neutralise, an op site in a file this rewrite
 * leaves alone - the pass cannot tell which allocations they may be, so no
 * allocation is relocatable (home_all_why says why: conservative).
 * An allocation that a graph op of the training loop passes through an
 * unwrapped access goes home at run time on its first such use: it is
 * marked home here too, so that replay and the plan model it as it runs.
 * Kernels that store a pointer argument's value into memory are not
 * looked for (docs/limitations.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"

int graph_site_arg_wrapped(const graph_site *s, int i) {
  if (i < 0 || i >= s->n_args || s->skip) return 0;
  const graph_site_arg *a = &s->args[i];
  return a->pointer && !a->null_const && a->n_acc > 0 && !a->holds_ptrs && a->wrappable;
}

int graph_site_acc_wrapped(const graph_site *s, int i) {
  const graph_site_access *ac = &s->acc[i];
  if (ac->call == 0 && ac->arg < 0) /* Note [argument arrays] (sitehomes.c) */
    return s->array_wrapped && !s->skip && ac->array_param >= 0;
  return ac->call == 0 && graph_site_arg_wrapped(s, ac->arg);
}

/* 1 if graph access ac of an op at site s reaches it through TIDAL_AT:
 * a wrapped argument, or a pointer parameter of cudaLaunchKernel's kernel
 * the site passes through its array's copy (Note [argument arrays]). */
static int graph_acc_wrapped(const graph *g, const graph_site *s, const graph_access *ac) {
  if (!s) return 0;
  if (ac->arg >= 0) return graph_site_arg_wrapped(s, ac->arg);
  if (!s->array_wrapped || s->kernel < 0 || s->kernel >= g->kernels.n || !ac->param) return 0;
  const kernel_info *ki = &g->kernels.items[s->kernel];
  for (int i = 0; i < s->n_acc; i++) {
    int p = s->acc[i].array_param;
    if (graph_site_acc_wrapped(s, i) && p < ki->n_params && ki->params[p].name &&
        !strcmp(ki->params[p].name, ac->param))
      return 1;
  }
  return 0;
}

static char *fmt(const char *f, const char *a, const char *b, unsigned line, const char *c) {
  size_t n = strlen(f) + strlen(a) + strlen(b) + strlen(c) + 16;
  char *s = malloc(n);
  if (s) snprintf(s, n, f, a, b, line, c);
  return s;
}

static const char *base_name(const char *p) {
  const char *s = p ? strrchr(p, '/') : NULL;
  return s ? s + 1 : p ? p : "?";
}

/* The program file path of file index fi. */
static const char *file_path(const graph *g, int fi) {
  const pass_tu *t = g->tu && g->tu->prog && fi < g->tu->prog->n_files ? g->tu->prog->files[fi]
                                                                       : g->tu;
  return t && t->main_path ? t->main_path : "?";
}

/* Why no allocation can be relocatable, or NULL (malloc'd; *oom on failure). */
static char *home_all(const graph *g, int file, int *oom) {
  char *why = NULL;
  for (int fi = 0; fi < g->n_files && !why; fi++) {
    const graph_file *f = &g->files[fi];
    const char *path = base_name(file_path(g, fi));
    for (int k = 0; k < f->n_sites && !why; k++) {
      const graph_site *s = &g->sites[f->first_site + k];
      if (file >= 0 && fi != file)
        why = fmt("op site %s (%s:%u) is in a file this rewrite leaves alone%s", s->label, path,
                  s->line, "");
      else if (s->skip)
        why = fmt("op site %s (%s:%u) is not instrumented: %s", s->label, path, s->line, s->skip);
      else if (s->unnamed) /* Note [pointer values at a site] (sitehomes.c) */
        why = fmt("op site %s (%s:%u) is passed pointers the pass cannot name (%s)", s->label,
                  path, s->line, s->unnamed);
      for (int i = 0; i < s->n_args && !why && !s->skip; i++) {
        const graph_site_arg *a = &s->args[i];
        /* a memcpy's source holding pointers: their values reach the device */
        if (s->kind == GRAPH_OP_MEMCPY && i > 0 && a->holds_ptrs && !a->home_text)
          why = fmt("%s (%s:%u) copies pointer values ('%s') the pass cannot follow", s->label,
                    path, s->line, a->text ? a->text : "?");
        else if (a->holds_ptrs && !a->home_text && !a->pure && s->kind != GRAPH_OP_MEMCPY)
          why = fmt("%s (%s:%u) is passed pointers to pointers ('%s') through an expression with "
                    "side effects",
                    s->label, path, s->line, a->text ? a->text : "?");
      }
    }
    for (int k = 0; k < f->n_escapes && !why; k++) {
      const graph_escape *e = &f->escapes[k];
      if (e->why)
        why = fmt("%s (%s:%u): %s", e->callee, path, e->line, e->why);
      else if (file >= 0 && fi != file)
        why = fmt("%s (%s:%u) is passed a device pointer in a file this rewrite leaves alone%s",
                  e->callee, path, e->line, "");
    }
  }
  (void)oom;
  return why;
}

/* The instrumented site whose statement graph op `op` is, or NULL. */
static const graph_site *site_of(const graph *g, int op) {
  for (int i = 0; i < g->n_sites; i++) {
    const graph_site *s = &g->sites[i];
    for (int k = 0; k < s->n_ops; k++)
      if (s->ops[k] == op) return s;
  }
  return NULL;
}

static void set_home(graph *g, int a, const char *why, int *oom) {
  if (a < 0 || a >= g->n_allocs || g->allocs[a].home_why) return;
  g->allocs[a].home_why = strdup(why);
  if (!g->allocs[a].home_why) *oom = 1;
}

int graph_relocatable(graph *g, int file) {
  int oom = 0;
  for (int a = 0; a < g->n_allocs; a++) {
    free(g->allocs[a].home_why);
    g->allocs[a].home_why = NULL;
    g->allocs[a].relocatable = 0;
  }
  free(g->home_all_why);
  g->home_all_why = home_all(g, file, &oom);
  g->n_relocatable = 0;
  unsigned char *replaced = graph_allocs_replaced(g, file);
  if (!replaced) return -1;
  /* allocations a graph op passes through an access it cannot wrap: they
   * go home at run time on that use (Note [relocatable allocations]) */
  for (int o = 0; o < g->n_ops && !oom; o++) {
    const graph_op *op = &g->ops[o];
    const graph_site *s = site_of(g, o);
    if (s && s->skip) s = NULL;
    for (int i = 0; i < op->n_acc && !oom; i++) {
      const graph_access *ac = &op->acc[i];
      if (ac->unmanaged || ac->null_arg || ac->tensor < 0) continue;
      if (graph_acc_wrapped(g, s, ac)) continue;
      const graph_tensor *t = &g->tensors[ac->tensor];
      const char *how = !s ? "an op site that is not instrumented"
                        : ac->arg < 0 ? (s->args_array ? "cudaLaunchKernel's argument array"
                                                       : "a pointer a cuBLASLt descriptor carries")
                        : ac->arg < s->n_args && !s->args[ac->arg].pointer
                            ? "a struct argument"
                        : ac->arg < s->n_args && s->args[ac->arg].holds_ptrs
                            ? "an array of pointers"
                            : "an argument the rewriter cannot edit (a macro's text)";
      /* an op site not instrumented sends nothing home: it is at home from the start */
      char *why = fmt(s ? "%s (%s:%u) passes it through %s: tidal_home at run time"
                        : "%s (%s:%u) passes it through %s",
                      op->label, base_name(op->file), op->line, how);
      if (!why) {
        oom = 1;
        break;
      }
      if (t->n_family > 0)
        for (int k = 0; k < t->n_family; k++) set_home(g, t->family[k], why, &oom);
      else
        set_home(g, t->alloc, why, &oom);
      free(why);
    }
  }
  for (int a = 0; a < g->n_allocs; a++) {
    graph_alloc *al = &g->allocs[a];
    if (!replaced[a]) {
      if (!al->home_why) al->home_why = strdup("not allocated through tidal_malloc");
    } else if (g->home_all_why) { /* the reason the rewrite's annotation gives first */
      free(al->home_why);
      al->home_why = strdup(g->home_all_why);
    }
    al->relocatable = replaced[a] && !al->home_why;
    if (!al->relocatable && !al->home_why) oom = 1;
    g->n_relocatable += al->relocatable;
  }
  free(replaced);
  return oom ? -1 : 0;
}
