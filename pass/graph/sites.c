/* sites.c - every op site and edit point of the program (graph.sites,
 * graph.files; graph.h).
 *
 * The graph's ops are those one iteration of the training loop runs, but
 * every op site of the program must be instrumented: init kernels and
 * cudaMemcpy of parameters before the loop also touch tidal memory, and a
 * fresh tidal allocation is not mapped until an op declares a write to it.
 * So this file walks every host function defined in each file of the
 * program (inputs and the project headers they include), statement by
 * statement, once, and records:
 *   - op statements (kernel launches and modelled library ops): the
 *     statement range to wrap, the graph ops at it (one per call path), and
 *     through siteacc.c the accesses it declares and its arguments;
 *   - cudaMalloc/cudaFree (and Async) call expressions to replace;
 *   - every host function's body, main's body and return statements;
 *   - continue/break/return/goto statements that leave an iteration of the
 *     training loop (tidal_iteration_end must run before them);
 *   - notes on what cannot be instrumented.
 * `tidal rewrite` and `tidal replay` read these and walk nothing.
 *
 * Statement ranges use expansion locations (a statement may start with a
 * macro such as cublasCheck(...)); argument texts use file locations,
 * which for a macro argument are where the argument is spelled.  Every text
 * taken from the file is checked against the callee name before it is
 * recorded as an edit: a call produced by a macro body is never edited
 * (Note [macros] in docs/rewrite.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/libcalls.h"
#include "base/cursor.h"
#include "graph/opsites.h"
#include "graph/sites.h"

typedef struct scan_ctx {
  pass_tu *t;           /* the file walked */
  graph *g;
  int file;             /* its index (graph.files) */
  CXCursor fn;          /* function being walked */
  char *fn_name;
  unsigned fn_begin;
  int is_main;
  int in_loop;          /* inside the training loop's body */
  unsigned ret_begin;   /* the return statement being scanned: its expression's offset */
  int loop_depth;       /* loops nested in the training loop body */
  int switch_depth;     /* switches nested in it (break leaves the switch) */
  int oom;
  int cap_sites;        /* of g->sites */
  int cap_mems, cap_fns, cap_returns, cap_exits; /* of the file's arrays */
  callee_index **callees; /* the program's indirect calls (callees.h), built on first use */
  int *op_order;        /* graph ops by (file, stmt.begin), NULL until needed */
  unsigned *op_maxend;  /* max stmt.end over op_order[0..i] */
} scan_ctx;

/* ---- small helpers ---- */

#define GROW(arr, n, cap, oomflag)                                              \
  do {                                                                          \
    if ((n) == (cap)) {                                                         \
      int ncap_ = (cap) ? (cap) * 2 : 16;                                       \
      void *p_ = realloc((arr), (size_t)ncap_ * sizeof *(arr));                 \
      if (!p_) {                                                                \
        (oomflag) = 1;                                                          \
        break;                                                                  \
      }                                                                         \
      (arr) = p_;                                                               \
      (cap) = ncap_;                                                            \
    }                                                                           \
  } while (0)

static graph_file *file_of(scan_ctx *x) { return &x->g->files[x->file]; }

static char *xstrdup(const char *s) { return s ? strdup(s) : NULL; }

static char *fmt_str(const char *fmt, const char *a, const char *b) {
  size_t n = strlen(fmt) + (a ? strlen(a) : 0) + (b ? strlen(b) : 0) + 1;
  char *r = malloc(n);
  if (r) snprintf(r, n, fmt, a ? a : "", b ? b : "");
  return r;
}

static void location(CXCursor c, unsigned *line, unsigned *col) {
  clang_getExpansionLocation(clang_getCursorLocation(c), NULL, line, col, NULL);
}

typedef struct kids {
  CXCursor *v;
  int n, cap;
} kids;

static enum CXChildVisitResult kids_visitor(CXCursor c, CXCursor parent, CXClientData d) {
  kids *k = d;
  if (k->n == k->cap) {
    int cap = k->cap ? k->cap * 2 : 8;
    CXCursor *v = realloc(k->v, (size_t)cap * sizeof *v);
    if (!v) return CXChildVisit_Break;
    k->v = v;
    k->cap = cap;
  }
  k->v[k->n++] = c;
  return CXChildVisit_Continue;
}

static kids children(CXCursor c) {
  kids k = {0};
  clang_visitChildren(c, kids_visitor, &k);
  return k;
}

static void note(scan_ctx *x, CXCursor at, const char *text) {
  if (site_note(x->t, file_of(x), at, text) != 0) x->oom = 1;
}

/* Skips whitespace and comments backwards from off (exclusive). */
static unsigned skip_back(const char *src, unsigned off) {
  for (;;) {
    while (off > 0 && strchr(" \t\r\n", src[off - 1])) off--;
    if (off >= 2 && src[off - 1] == '/' && src[off - 2] == '*') {
      off -= 2;
      while (off >= 2 && !(src[off - 2] == '/' && src[off - 1] == '*')) off--;
      off = off >= 2 ? off - 2 : 0;
      continue;
    }
    return off;
  }
}

/* Offset just past the statement that ends at `end`: past a following ';'
 * when the extent stops before it (expression, return, break statements). */
static unsigned stmt_end(const pass_tu *t, unsigned end) {
  const char *src = t->main_source;
  if (end > 0 && src[end - 1] == ';') return end;
  unsigned i = end;
  while (i < t->main_size && strchr(" \t\r\n", src[i])) i++;
  return i < t->main_size && src[i] == ';' ? i + 1 : end;
}

/* Statement range by expansion locations; 0 if not in the main file. */
static int stmt_range(const pass_tu *t, CXCursor s, unsigned *b, unsigned *e) {
  CXSourceRange r = clang_getCursorExtent(s);
  if (!site_offset(t, clang_getRangeStart(r), 1, b) || !site_offset(t, clang_getRangeEnd(r), 1, e))
    return 0;
  if (*e <= *b) return 0;
  *e = stmt_end(t, *e);
  return 1;
}

static int starts_with_word(const char *s, const char *w) {
  size_t n = strlen(w);
  return !strncmp(s, w, n) && !(s[n] == '_' || (s[n] >= 'a' && s[n] <= 'z') ||
                                (s[n] >= 'A' && s[n] <= 'Z') || (s[n] >= '0' && s[n] <= '9'));
}

/* ---- the graph ops at a statement ---- */

static const graph *order_graph; /* qsort has no user data */

static int by_stmt_begin(const void *pa, const void *pb) {
  const graph_op *x = &order_graph->ops[*(const int *)pa], *y = &order_graph->ops[*(const int *)pb];
  if (x->stmt.file != y->stmt.file) return x->stmt.file < y->stmt.file ? -1 : 1;
  if (x->stmt.begin != y->stmt.begin) return x->stmt.begin < y->stmt.begin ? -1 : 1;
  return *(const int *)pa - *(const int *)pb;
}

static int by_value(const void *pa, const void *pb) {
  return *(const int *)pa - *(const int *)pb;
}

/* The graph ops whose statement overlaps [b, e) and call callee (one per
 * call path reaching the statement) in the file walked, in op order, as a
 * malloc'd array in *out (NULL when none); returns how many, -1 when out
 * of memory.  A scan over every op per site made this quadratic in the op
 * statements (50,000 launches: minutes): the ops are sorted by (file,
 * statement start) once, and the search walks back from the last start
 * before e while some earlier statement of the file may still reach past b
 * (op_maxend restarts at each file). */
static int graph_ops_at(scan_ctx *x, unsigned b, unsigned e, const char *callee, int **out) {
  const graph *g = x->g;
  *out = NULL;
  if (!x->op_order && g->n_ops > 0) {
    x->op_order = malloc((size_t)g->n_ops * sizeof *x->op_order);
    x->op_maxend = malloc((size_t)g->n_ops * sizeof *x->op_maxend);
    if (!x->op_order || !x->op_maxend) {
      free(x->op_order);
      free(x->op_maxend);
      x->op_order = NULL;
      x->op_maxend = NULL;
      return -1;
    }
    for (int i = 0; i < g->n_ops; i++) x->op_order[i] = i;
    order_graph = g;
    qsort(x->op_order, (size_t)g->n_ops, sizeof *x->op_order, by_stmt_begin);
    for (int i = 0; i < g->n_ops; i++) {
      const graph_op *op = &g->ops[x->op_order[i]];
      int same = i && g->ops[x->op_order[i - 1]].stmt.file == op->stmt.file;
      x->op_maxend[i] = same && x->op_maxend[i - 1] > op->stmt.end ? x->op_maxend[i - 1] : op->stmt.end;
    }
  }
  if (!x->op_order) return 0;
  int file = x->file;
  int lo = 0, hi = g->n_ops; /* first index at or after (file, e) */
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    const graph_op *op = &g->ops[x->op_order[mid]];
    if (op->stmt.file < file || (op->stmt.file == file && op->stmt.begin < e)) lo = mid + 1;
    else hi = mid;
  }
  int n = 0, cap = 0, *v = NULL;
  for (int i = lo - 1; i >= 0 && x->op_maxend[i] > b; i--) {
    const graph_op *op = &g->ops[x->op_order[i]];
    if (op->stmt.file != file) break;
    if (op->stmt.end <= b || strcmp(op->callee, callee)) continue;
    if (n == cap) {
      cap = cap ? cap * 2 : 4;
      int *nv = realloc(v, (size_t)cap * sizeof *nv);
      if (!nv) {
        free(v);
        return -1;
      }
      v = nv;
    }
    v[n++] = x->op_order[i];
  }
  if (n > 1) qsort(v, (size_t)n, sizeof *v, by_value);
  *out = v;
  return n;
}

/* ---- op sites and allocation calls ---- */

typedef struct expr_walk {
  scan_ctx *x;
  CXCursor stmt;   /* statement the expression belongs to */
  int stmt_pos;    /* 1: stmt is a plain statement we may wrap */
  int braces;      /* wrap in braces */
  int is_return;
  int site;        /* index into g->sites, created on the first op; -1 until then */
  unsigned seen[16][2]; /* op calls met (spelling, expansion offsets): a check macro
                           evaluating its argument twice repeats one in the AST */
  int n_seen;
} expr_walk;

/* 1 if the op call c was already met in this statement (the same call
 * written once, duplicated by a macro); else remembers it. */
static int op_seen(expr_walk *w, CXCursor c) {
  CXSourceLocation loc = clang_getRangeStart(clang_getCursorExtent(c));
  unsigned so = 0, eo = 0;
  clang_getFileLocation(loc, NULL, NULL, NULL, &so);
  clang_getExpansionLocation(loc, NULL, NULL, NULL, &eo);
  for (int i = 0; i < w->n_seen && i < 16; i++)
    if (w->seen[i][0] == so && w->seen[i][1] == eo) return 1;
  if (w->n_seen < 16) {
    w->seen[w->n_seen][0] = so;
    w->seen[w->n_seen][1] = eo;
    w->n_seen++;
  }
  return 0;
}

static int is_mem_callee(const char *n) {
  return !strcmp(n, "cudaMalloc") || !strcmp(n, "cudaMallocAsync") || !strcmp(n, "cudaFree") ||
         !strcmp(n, "cudaFreeAsync");
}

/* Stream creations whose stream may not wait for the legacy default
 * stream: a sync of the legacy stream would not cover work on it. */
static int nonblocking_stream_callee(const char *n) {
  return !strcmp(n, "cudaStreamCreateWithFlags") || !strcmp(n, "cudaStreamCreateWithPriority") ||
         !strcmp(n, "cuStreamCreate") || !strcmp(n, "cuStreamCreateWithPriority");
}

static void record_mem(scan_ctx *x, CXCursor call, const char *callee, int dependent) {
  unsigned b, e;
  char *text = site_expr_text(x->t, call, &b, &e);
  int ok = text && starts_with_word(text, callee) && text[strlen(text) - 1] == ')';
  free(text);
  int nargs = clang_Cursor_getNumArguments(call);
  int want = strstr(callee, "Malloc") ? 2 : strstr(callee, "Free") ? 1 : 0;
  if (!ok && graph_device_sync_call(callee) == 1)
    return; /* written inside a macro: stays as written (waits for tidal's copies too) */
  if (!ok || nargs < want) {
    char msg[160];
    snprintf(msg, sizeof msg, "%s is written inside a macro: left as is (not a tidal allocation)",
             callee);
    note(x, call, msg);
    return;
  }
  graph_file *f = file_of(x);
  /* a check macro evaluating its argument twice puts the call in the AST
   * twice, written once: one replacement */
  for (int i = 0; i < f->n_mems; i++)
    if (f->mems[i].begin == b && f->mems[i].end == e) return;
  GROW(f->mems, f->n_mems, x->cap_mems, x->oom);
  if (x->oom) return;
  graph_memcall *m = &f->mems[f->n_mems++];
  memset(m, 0, sizeof *m);
  m->begin = b;
  m->end = e;
  m->callee = xstrdup(callee);
  m->dependent = dependent;
  m->args = calloc((size_t)nargs, sizeof *m->args);
  if (!m->args) {
    x->oom = 1;
    return;
  }
  m->n_args = nargs;
  for (int i = 0; i < nargs; i++)
    m->args[i] = site_arg_text(x->t, clang_Cursor_getArgument(call, (unsigned)i));
  location(call, &m->line, &m->col);
}

static int new_site(expr_walk *w, CXCursor call, const char *callee, graph_op_kind kind,
                    const kernel_info *ki) {
  scan_ctx *x = w->x;
  graph *g = x->g;
  GROW(g->sites, g->n_sites, x->cap_sites, x->oom);
  if (x->oom) return -1;
  graph_site *site = &g->sites[g->n_sites];
  memset(site, 0, sizeof *site);
  file_of(x)->n_sites++;
  site->file = x->file;
  site->braces = w->braces;
  site->is_return = w->is_return;
  site->function = xstrdup(x->fn_name);
  site->callee = xstrdup(callee);
  site->label = fmt_str("%s -> %s", x->fn_name, callee);
  site->kind = kind;
  site->kernel = ki ? (int)(ki - g->kernels.items) : -1;
  site->fn_begin = x->fn_begin;
  location(call, &site->line, &site->col);
  if (!w->stmt_pos) {
    site->skip = xstrdup("the op is inside a condition or loop header: not instrumented "
                         "(move it into its own statement)");
  } else if (w->is_return == 1) {
    site->skip = xstrdup("the op is in a return statement: not instrumented (tidal_op_end "
                         "could not follow it; assign the result first)");
  } else if (!stmt_range(x->t, w->stmt, &site->stmt_begin, &site->stmt_end)) {
    site->skip = xstrdup("the statement is not editable (written by a macro or outside the "
                         "main file): not instrumented");
  } else if (w->is_return == 2) {
    site->ret_expr_begin = x->ret_begin;
    site->braces = 1; /* the result's variable needs a scope of its own */
  }
  return g->n_sites++;
}

/* Note [op calls in templates]
 * In a function template's body a call whose arguments depend on the
 * template's parameters (`k<<<g, b>>>(p, n)` with p a T *) is left
 * unresolved by clang: the CallExpr has no spelling and no referenced
 * declaration.  The interpreter never sees it so: it walks the
 * instantiations, whose calls are resolved, and records their ops at the
 * template's statement (one per instantiation and call path).  Here the
 * candidate its callee expression names gives the callee
 * (kernels_dependent_callee, kernels.c Note [launches in templates]): a
 * kernel of the kernel table, else its name for the library model.  The
 * site keeps those ops, but its accesses come from the call's own texts,
 * as for a site the loop does not reach (siteacc.c): the ops' texts have
 * sizeof(T) folded for the instantiations the interpreter walked (`4*n`
 * for float), and one statement serves every instantiation, walked or not
 * (a double one, `8*n`, run after the loop), while a text such as
 * `n * sizeof(T)` is compiled in each.  A template kernel's extents are
 * then unknown (its element size is the instantiation's). */
static char *dependent_callee(const kernel_table *kt, CXCursor call, const kernel_info **ki) {
  *ki = NULL;
  CXCursor d = kernels_dependent_callee(call);
  if (clang_Cursor_isNull(d)) return NULL;
  *ki = kernels_find(kt, d);
  char *name = string_and_dispose(clang_getCursorSpelling(d));
  if (name && !*name) {
    free(name);
    name = NULL;
  }
  return name;
}

/* One op call of the statement: the site (on the first), the graph ops at
 * it and its accesses.  flags: SITEACC_*. */
static void op_call(expr_walk *w, CXCursor c, const char *callee, const kernel_info *ki,
                    const libcall_info *li, unsigned flags) {
  scan_ctx *x = w->x;
  graph_op_kind kind = ki || (flags & SITEACC_ARGS_ARRAY) ? GRAPH_OP_LAUNCH
                       : !strncmp(callee, "cudaMemcpy", 10) ? GRAPH_OP_MEMCPY
                       : !strncmp(callee, "cudaMemset", 10) ? GRAPH_OP_MEMSET
                       : li->family == LIBCALL_NCCL ? GRAPH_OP_COLLECTIVE : GRAPH_OP_LIBRARY;
  int first = w->site < 0;
  if (first) w->site = new_site(w, c, callee, kind, ki);
  if (w->site < 0) return;
  graph_site *site = &x->g->sites[w->site];
  int call = site->n_calls++;
  if (!site->skip) {
    int *ops = NULL;
    int n = graph_ops_at(x, site->stmt_begin, site->stmt_end, callee, &ops);
    if (n < 0 ||
        siteacc_add(x->t, x->g, site, call, c, callee, ki, ops, n, flags, file_of(x)) != 0)
      x->oom = 1;
    if (first && n > 0) {
      site->ops = ops;
      site->n_ops = n;
    } else {
      free(ops);
    }
  }
  if (first && siteacc_args(x->t, site, w->stmt, c) != 0) x->oom = 1;
  if (!x->oom && sitehomes_add(x->t, site, call, c, ki, flags) != 0) x->oom = 1;
}

static void walk_stmt(scan_ctx *x, CXCursor s, int braces);

static void walk_lambda(scan_ctx *x, CXCursor lambda) {
  kids k = children(lambda);
  CXCursor body = clang_getNullCursor();
  for (int i = 0; i < k.n; i++)
    if (clang_getCursorKind(k.v[i]) == CXCursor_CompoundStmt) body = k.v[i];
  free(k.v);
  if (clang_Cursor_isNull(body)) return;
  int in_loop = x->in_loop, depth = x->loop_depth, sw = x->switch_depth, is_main = x->is_main;
  x->in_loop = x->loop_depth = x->switch_depth = x->is_main = 0;
  walk_stmt(x, body, 1);
  x->in_loop = in_loop;
  x->loop_depth = depth;
  x->switch_depth = sw;
  x->is_main = is_main;
}

/* A call that is neither an op nor an allocation: what it may do with
 * device addresses (Note [escapes], escapes.c). */
static void escape(expr_walk *w, CXCursor c, const char *callee, const libcall_info *li) {
  scan_ctx *x = w->x;
  /* an overload forwarding to the call it is named after (CUDA's template
   * cudaLaunchKernel, cudaMalloc): the program's calls of it are the op
   * sites, instrumented where they are written */
  if (x->fn_name && !strcmp(x->fn_name, callee)) return;
  unsigned sb = 0, se = 0;
  int editable = w->stmt_pos && stmt_range(x->t, w->stmt, &sb, &se);
  if (escape_call(x->t, file_of(x), c, callee, li, editable, w->braces, sb, se) != 0) x->oom = 1;
}

/* For a call of std::function's operator() (a system header's class
 * `function` in namespace std): 1, and *first the first argument the
 * function held receives (1 when argument 0 is the object); else 0. */
static int std_function_call(CXCursor c, int *first) {
  CXCursor m = clang_getCursorReferenced(c);
  if (clang_getCursorKind(m) != CXCursor_CXXMethod ||
      !clang_Location_isInSystemHeader(clang_getCursorLocation(m)))
    return 0;
  char *mn = string_and_dispose(clang_getCursorSpelling(m));
  CXCursor cls = clang_getCursorSemanticParent(m);
  char *cn = string_and_dispose(clang_getCursorSpelling(cls));
  CXCursor ns = clang_getCursorSemanticParent(cls);
  while (clang_getCursorKind(ns) == CXCursor_Namespace &&
         clang_Cursor_isInlineNamespace(ns)) /* libc++'s std::__1 */
    ns = clang_getCursorSemanticParent(ns);
  char *nn = string_and_dispose(clang_getCursorSpelling(ns));
  int hit = mn && cn && nn && !strcmp(mn, "operator()") && !strcmp(cn, "function") &&
            !strcmp(nn, "std") && clang_getCursorKind(ns) == CXCursor_Namespace;
  free(mn);
  free(cn);
  free(nn);
  *first = hit && clang_Cursor_getNumArguments(c) == clang_Cursor_getNumArguments(m) + 1;
  return hit;
}

/* A call through a function pointer (callees.c, Note [library functions
 * through pointers]): nothing when it runs functions of the program (their
 * op sites are instrumented where they are written), the op site of the
 * one library op it runs, else an escape: the device pointers it is passed
 * go home before it, and the header says why.  A std::function's call
 * (std_fn) is one whose target the pass does not follow. */
static void pointer_call(expr_walk *w, CXCursor c, int std_fn, int first) {
  scan_ctx *x = w->x;
  if (!*x->callees) *x->callees = callees_build(x->g->tu);
  if (!*x->callees) {
    x->oom = 1;
    return;
  }
  CXCursor lib = clang_getNullCursor();
  callee_reach r = std_fn ? CALLEE_REACH_UNKNOWN : callees_reach(*x->callees, x->t, c, &lib);
  if (r == CALLEE_REACH_USER) return;
  CXCursor ch[1];
  char *ptr = std_fn ? (first ? site_arg_text(x->t, clang_Cursor_getArgument(c, 0)) : NULL)
              : cursor_children(c, ch, 1) >= 1 ? site_arg_text(x->t, ch[0])
                                               : NULL;
  char *name = r == CALLEE_REACH_LIBRARY ? string_and_dispose(clang_getCursorSpelling(lib)) : NULL;
  const libcall_info *li = name ? libcall_find(name) : NULL;
  char *label = NULL;
  if (name && li && (li->flags & LIBCALL_OP) && strcmp(name, "cudaLaunchKernel") != 0) {
    if (!op_seen(w, c)) op_call(w, c, name, NULL, li, 0);
    goto out;
  }
  if (name && is_mem_callee(name)) {
    label = fmt_str("%s through function pointer '%s' is left as is (not a tidal allocation or "
                    "free: write the call by its name)", name, ptr ? ptr : "?");
    if (label) note(x, c, label);
    else x->oom = 1;
    goto out;
  }
  if (r == CALLEE_REACH_DEVICE) {
    char *k = string_and_dispose(clang_getCursorSpelling(lib));
    label = fmt_str("kernel '%s' launched through function pointer '%s' (not instrumented as an "
                    "op)", k ? k : "?", ptr ? ptr : "?");
    free(k);
  } else {
    label = name ? fmt_str("%s (through function pointer '%s')", name, ptr ? ptr : "?")
                 : fmt_str(std_fn ? "the call through std::function '%s'%s"
                                  : "the call through function pointer '%s'%s",
                           ptr ? ptr : "?", ", whose target tidal cannot tell,");
  }
  if (!label) {
    x->oom = 1;
    goto out;
  }
  unsigned sb = 0, se = 0;
  int editable = w->stmt_pos && stmt_range(x->t, w->stmt, &sb, &se);
  int before = file_of(x)->n_escapes;
  if (escape_pointer_call(x->t, file_of(x), c, label, r == CALLEE_REACH_LIBRARY ? lib
                                                                             : clang_getNullCursor(),
                          li, first, editable, w->braces, sb, se) != 0)
    x->oom = 1;
  if (!name && file_of(x)->n_escapes > before) {
    char *msg = r == CALLEE_REACH_DEVICE
                    ? fmt_str("%s: its device pointers stay at home%s", label,
                              " (tidal_home before the launch)")
                    : fmt_str(std_fn ? "call through std::function '%s': which function it runs "
                                       "is not followed (a library routine may receive its "
                                       "arguments); its device pointers stay at home%s"
                                     : "call through function pointer '%s': which function it runs "
                                       "is not known (a library routine may receive its "
                                       "arguments); its device pointers stay at home%s",
                              ptr ? ptr : "?", " (tidal_home before the call)");
    if (msg) note(x, c, msg);
    else x->oom = 1;
    free(msg);
  }
out:
  free(label);
  free(name);
  free(ptr);
}

static enum CXChildVisitResult expr_visitor(CXCursor c, CXCursor parent, CXClientData d) {
  (void)parent;
  expr_walk *w = d;
  scan_ctx *x = w->x;
  enum CXCursorKind k = clang_getCursorKind(c);
  if (k == CXCursor_LambdaExpr) {
    /* its body is code of its own, run where the lambda is called: its op
     * statements are instrumented like a function's; a return there leaves
     * the lambda, not main or the training loop */
    walk_lambda(x, c);
    return CXChildVisit_Continue;
  }
  if (k != CXCursor_CallExpr) return CXChildVisit_Recurse;
  CXCursor key;
  int first = 0;
  if (callees_kind(c, &key) == CALLEE_POINTER) {
    pointer_call(w, c, 0, 0);
    return CXChildVisit_Recurse;
  }
  if (std_function_call(c, &first)) {
    pointer_call(w, c, 1, first);
    return CXChildVisit_Recurse;
  }
  char *callee = string_and_dispose(clang_getCursorSpelling(c));
  const kernel_info *ki = NULL;
  unsigned flags = 0;
  if (!callee || !*callee) { /* Note [op calls in templates] */
    free(callee);
    callee = dependent_callee(&x->g->kernels, c, &ki);
    if (!callee) return CXChildVisit_Recurse;
    flags |= SITEACC_DEPENDENT;
  } else {
    ki = kernels_find(&x->g->kernels, c);
  }
  const libcall_info *li = ki ? NULL : libcall_find(callee);
  if (!ki && nonblocking_stream_callee(callee) && !x->g->sync_keep_why) {
    unsigned line, col;
    char at[32];
    location(c, &line, &col);
    snprintf(at, sizeof at, "%u", line);
    x->g->sync_keep_why = fmt_str("it calls %s (line %s), whose stream may not wait for the "
                                  "legacy default stream", callee, at);
    if (!x->g->sync_keep_why) x->oom = 1;
  }
  if (!ki && !strcmp(callee, "cudaLaunchKernel") && !(li && (li->flags & LIBCALL_OP))) {
    /* the kernel it names is the op (opsites.c records it so) */
    CXCursor kd = opsite_launched_kernel(c);
    const kernel_info *lk = clang_Cursor_isNull(kd) ? NULL : kernels_find(&x->g->kernels, kd);
    if (lk && !op_seen(w, c)) /* a kernel the analysis knows, not a function pointer */
      op_call(w, c, lk->name, lk, NULL, flags | SITEACC_ARGS_ARRAY);
    else if (!lk && !(flags & SITEACC_DEPENDENT))
      escape(w, c, callee, li);
  } else if (graph_device_sync_call(callee) == 1) { /* the rewrite replaces it */
    if (!(flags & SITEACC_DEPENDENT))
      record_mem(x, c, callee, 0);
  } else if (is_mem_callee(callee)) {
    /* in a template only a free: its pointer's type depends (llm.c's
     * cudaFreeCheck(T **ptr) frees *ptr), so it is freed whichever it is
     * (TIDAL_CUDA_FREE); an allocation there stays cudaMalloc */
    if (!(flags & SITEACC_DEPENDENT) || !strcmp(callee, "cudaFree"))
      record_mem(x, c, callee, (flags & SITEACC_DEPENDENT) != 0);
  } else if ((ki || (li && (li->flags & LIBCALL_OP))) && !op_seen(w, c)) {
    op_call(w, c, callee, ki, li, flags);
  } else if (!ki && !(li && (li->flags & LIBCALL_OP)) && !(flags & SITEACC_DEPENDENT)) {
    escape(w, c, callee, li);
  }
  free(callee);
  return CXChildVisit_Recurse;
}

/* Note [ops in return statements]: `return cudaMemset(*p, 0, n);` in a
 * helper (alloc_zero, a wrapper returning the status) is common, and its op
 * must end after the call and before the function returns.  Such a
 * statement becomes `{ ...; TIDAL_OP_BEGIN(..); auto &&tidal_ret_N = EXPR;
 * TIDAL_OP_END(..); return tidal_ret_N; }` (the return after any plan call
 * placed after the statement, RW_PRIO_RETURN).  Not in main (its returns
 * get tidal_shutdown) nor in the training loop (its exits end the
 * iteration), and not for a void expression or one whose start is not
 * plain text after `return`: those stay uninstrumented, with a warning.
 * Returns 2 (instrument; x->ret_begin set) or 1. */
static int return_mode(scan_ctx *x, CXCursor s) {
  if (x->is_main || x->in_loop) return 1;
  kids k = children(s);
  int mode = 1;
  unsigned sb, eb;
  if (k.n == 1 && clang_getCanonicalType(clang_getCursorType(k.v[0])).kind != CXType_Void &&
      site_offset(x->t, clang_getRangeStart(clang_getCursorExtent(s)), 1, &sb) &&
      site_offset(x->t, clang_getRangeStart(clang_getCursorExtent(k.v[0])), 1, &eb) &&
      eb > sb + 6 && strncmp(x->t->main_source + sb, "return", 6) == 0) {
    mode = 2;
    for (unsigned i = sb + 6; i < eb; i++)
      if (!strchr(" \t\r\n", x->t->main_source[i])) mode = 1;
    if (mode == 2) x->ret_begin = eb;
  }
  free(k.v);
  return mode;
}

static void scan_expr(scan_ctx *x, CXCursor e, CXCursor stmt, int stmt_pos, int braces,
                      int is_return) {
  expr_walk w = {x, stmt, stmt_pos, braces, is_return, -1, {{0}}, 0};
  /* The statement cursor itself may be the call (an expression statement). */
  if (clang_getCursorKind(e) == CXCursor_CallExpr)
    expr_visitor(e, clang_getNullCursor(), &w);
  clang_visitChildren(e, expr_visitor, &w);
  /* the rewriter's note on this site, if it has one, comes after the
   * statement's own */
  if (w.site >= 0) x->g->sites[w.site].notes_before = file_of(x)->n_notes;
}

/* ---- statements ---- */

static void add_span(scan_ctx *x, graph_span **arr, int *n, int *cap, graph_span sp) {
  GROW(*arr, *n, *cap, x->oom);
  if (!x->oom) (*arr)[(*n)++] = sp;
}

static void loop_exit(scan_ctx *x, CXCursor s, graph_span_kind kind) {
  graph_span sp = {0, 0, kind, 0, 0};
  if (!stmt_range(x->t, s, &sp.begin, &sp.end)) {
    note(x, s, "a jump out of the training loop's iteration is inside a macro: "
               "tidal_iteration_end is not called before it");
    return;
  }
  location(s, &sp.line, &sp.col);
  if (kind == GRAPH_SPAN_GOTO) {
    note(x, s, "goto inside the training loop: tidal_iteration_end is not inserted before it "
               "(unsupported; the iteration's statistics may merge)");
    return;
  }
  graph_file *f = file_of(x);
  add_span(x, &f->loop_exits, &f->n_loop_exits, &x->cap_exits, sp);
}

/* 1 if child c of a control statement is one of its bodies (not its
 * condition, init or increment): a body follows ')' of the header, or
 * `else` / `do`. */
static int is_body(const pass_tu *t, CXCursor c) {
  unsigned b;
  if (!site_offset(t, clang_getRangeStart(clang_getCursorExtent(c)), 1, &b)) return 0;
  unsigned p = skip_back(t->main_source, b);
  if (p == 0) return 0;
  if (t->main_source[p - 1] == ')') return 1;
  const char *src = t->main_source;
  if (p >= 4 && !strncmp(src + p - 4, "else", 4)) return 1;
  if (p >= 2 && !strncmp(src + p - 2, "do", 2)) return 1;
  return 0;
}

static void walk_children_as_stmts(scan_ctx *x, CXCursor s) {
  kids k = children(s);
  for (int i = 0; i < k.n; i++) walk_stmt(x, k.v[i], 1);
  free(k.v);
}

static void walk_control(scan_ctx *x, CXCursor s, enum CXCursorKind kind) {
  int is_loop = kind == CXCursor_ForStmt || kind == CXCursor_WhileStmt ||
                kind == CXCursor_DoStmt || kind == CXCursor_CXXForRangeStmt;
  unsigned b = 0;
  int is_train = is_loop && x->g->loop_stmt.end > 0 &&
                 site_offset(x->t, clang_getRangeStart(clang_getCursorExtent(s)), 1, &b) &&
                 b == x->g->loop_stmt.begin && x->g->loop_stmt.file == x->file;
  kids k = children(s);
  for (int i = 0; i < k.n; i++) {
    CXCursor c = k.v[i];
    int body = kind == CXCursor_CXXForRangeStmt ? i == k.n - 1
               : kind == CXCursor_DoStmt        ? i == 0
                                                : is_body(x->t, c);
    if (!body) {
      scan_expr(x, c, s, 0, 0, 0);
      continue;
    }
    /* Save and set the training-loop context for the body. */
    int in_loop = x->in_loop, loop_depth = x->loop_depth, switch_depth = x->switch_depth;
    if (is_train) {
      file_of(x)->have_loop = 1;
      x->in_loop = 1;
      x->loop_depth = 0;
      x->switch_depth = 0;
    } else if (x->in_loop && is_loop) {
      x->loop_depth++;
    } else if (x->in_loop && kind == CXCursor_SwitchStmt) {
      x->switch_depth++;
    }
    walk_stmt(x, c, 1);
    x->in_loop = in_loop;
    x->loop_depth = loop_depth;
    x->switch_depth = switch_depth;
  }
  free(k.v);
}

/* 1 if the statement is written by a macro expansion (its first token is a
 * macro name, e.g. `CHECK(op);` expanding to `do { ... } while (0)`). */
static int from_macro(CXCursor s) {
  CXSourceLocation loc = clang_getRangeStart(clang_getCursorExtent(s));
  unsigned eo, so;
  CXFile ef, sf;
  clang_getExpansionLocation(loc, &ef, NULL, NULL, &eo);
  clang_getSpellingLocation(loc, &sf, NULL, NULL, &so);
  return !(ef && sf && clang_File_isEqual(ef, sf) && eo == so);
}

static void walk_stmt(scan_ctx *x, CXCursor s, int braces) {
  enum CXCursorKind kind = clang_getCursorKind(s);
  /* A statement a macro writes is one opaque statement here: wrap it whole
   * (its inner statements have no place in the file to edit). */
  if (kind != CXCursor_DeclStmt && !clang_isExpression(kind) && kind != CXCursor_NullStmt &&
      from_macro(s)) {
    scan_expr(x, s, s, 1, braces, 0);
    return;
  }
  switch (kind) {
  case CXCursor_CompoundStmt:
    walk_children_as_stmts(x, s);
    return;
  case CXCursor_IfStmt:
  case CXCursor_ForStmt:
  case CXCursor_WhileStmt:
  case CXCursor_DoStmt:
  case CXCursor_SwitchStmt:
  case CXCursor_CXXForRangeStmt:
    walk_control(x, s, kind);
    return;
  case CXCursor_CaseStmt:
  case CXCursor_DefaultStmt:
  case CXCursor_LabelStmt: {
    kids k = children(s); /* the sub-statement is the last child */
    if (k.n > 0) walk_stmt(x, k.v[k.n - 1], 1);
    free(k.v);
    return;
  }
  case CXCursor_ReturnStmt: {
    if (x->is_main) {
      graph_span sp = {0, 0, GRAPH_SPAN_RETURN, 0, 0};
      if (stmt_range(x->t, s, &sp.begin, &sp.end)) {
        location(s, &sp.line, &sp.col);
        graph_file *f = file_of(x);
        add_span(x, &f->main_returns, &f->n_main_returns, &x->cap_returns, sp);
      } else {
        note(x, s, "a return of main is inside a macro: tidal_shutdown is not called before it");
      }
    }
    if (x->in_loop) loop_exit(x, s, GRAPH_SPAN_RETURN);
    scan_expr(x, s, s, 1, braces, return_mode(x, s));
    return;
  }
  case CXCursor_ContinueStmt:
    if (x->in_loop && x->loop_depth == 0) loop_exit(x, s, GRAPH_SPAN_CONTINUE);
    return;
  case CXCursor_BreakStmt:
    if (x->in_loop && x->loop_depth == 0 && x->switch_depth == 0) loop_exit(x, s, GRAPH_SPAN_BREAK);
    return;
  case CXCursor_GotoStmt:
    if (x->in_loop) loop_exit(x, s, GRAPH_SPAN_GOTO);
    return;
  case CXCursor_DeclStmt:
    scan_expr(x, s, s, 1, 0, 0);
    return;
  default:
    if (clang_isExpression(kind)) scan_expr(x, s, s, 1, braces, 0);
    return;
  }
}

/* ---- functions ---- */

static enum CXChildVisitResult attr_visitor(CXCursor c, CXCursor parent, CXClientData d) {
  (void)parent;
  unsigned *mask = d;
  switch (clang_getCursorKind(c)) {
  case CXCursor_CUDAGlobalAttr: *mask |= 1; break;
  case CXCursor_CUDADeviceAttr: *mask |= 2; break;
  case CXCursor_CUDAHostAttr: *mask |= 4; break;
  default: break;
  }
  return CXChildVisit_Continue;
}

/* The body's '{' and one past its '}' in the file walked; 0 if it is not
 * there as braces. */
static int body_range(scan_ctx *x, CXCursor body, unsigned *b, unsigned *e) {
  return site_offset(x->t, clang_getRangeStart(clang_getCursorExtent(body)), 1, b) &&
         site_offset(x->t, clang_getRangeEnd(clang_getCursorExtent(body)), 1, e) && *e > *b &&
         x->t->main_source[*b] == '{' && x->t->main_source[*e - 1] == '}';
}

static void walk_function(scan_ctx *x, CXCursor fn) {
  if (!clang_isCursorDefinition(fn) || !frontend_in_main_file(x->t, fn)) return;
  unsigned mask = 0;
  clang_visitChildren(fn, attr_visitor, &mask);
  if ((mask & 1) || ((mask & 2) && !(mask & 4))) return; /* device code: no host ops */
  kids k = children(fn);
  CXCursor body = clang_getNullCursor();
  for (int i = 0; i < k.n; i++)
    if (clang_getCursorKind(k.v[i]) == CXCursor_CompoundStmt) body = k.v[i];
  free(k.v);
  if (clang_Cursor_isNull(body)) return;
  graph_file *f = file_of(x);
  x->fn = fn;
  x->fn_name = string_and_dispose(clang_getCursorSpelling(fn));
  x->is_main = x->fn_name && !strcmp(x->fn_name, "main") &&
               clang_getCursorSemanticParent(fn).kind == CXCursor_TranslationUnit;
  x->in_loop = x->loop_depth = x->switch_depth = 0;
  if (!site_offset(x->t, clang_getRangeStart(clang_getCursorExtent(fn)), 1, &x->fn_begin))
    x->fn_begin = 0;
  unsigned b, e;
  if (body_range(x, body, &b, &e)) {
    GROW(f->fns, f->n_fns, x->cap_fns, x->oom);
    if (!x->oom) f->fns[f->n_fns++] = (graph_range){b, e, 1, x->file};
  }
  if (x->is_main && body_range(x, body, &b, &e)) {
    f->have_main = 1;
    f->main_body_begin = b;
    f->main_body_end = e;
    kids bk = children(body);
    f->main_ends_in_return = bk.n > 0 && clang_getCursorKind(bk.v[bk.n - 1]) == CXCursor_ReturnStmt;
    free(bk.v);
  }
  walk_stmt(x, body, 1);
  free(x->fn_name);
  x->fn_name = NULL;
}

static enum CXChildVisitResult top_visitor(CXCursor c, CXCursor parent, CXClientData d) {
  (void)parent;
  scan_ctx *x = d;
  switch (clang_getCursorKind(c)) {
  case CXCursor_Namespace:
  case CXCursor_LinkageSpec:
  /* member functions defined in the class body, constructors included */
  case CXCursor_StructDecl:
  case CXCursor_ClassDecl:
  case CXCursor_ClassTemplate:
    return CXChildVisit_Recurse;
  case CXCursor_FunctionDecl:
  case CXCursor_CXXMethod:
  case CXCursor_Constructor:
  case CXCursor_Destructor:
  case CXCursor_FunctionTemplate:
    walk_function(x, c);
    return CXChildVisit_Continue;
  default:
    return CXChildVisit_Continue;
  }
}

/* Project headers reach the program through the inputs' #includes. */
static void inclusion_visitor(CXFile f, CXSourceLocation *stack, unsigned n, CXClientData d) {
  (void)stack;
  (void)n;
  pass_tu *u = d;
  (void)program_view_of_file(u, clang_getTranslationUnitCursor(u->tu), f);
}

int sites_build(graph *g, callee_index **callees) {
  pass_tu *t = g->tu;
  pass_tu *const *units;
  int n_units = program_units(t, &units);
  /* registering a view may move the program's file array: index it afresh */
  for (int i = 0; i < n_units; i++) {
    pass_tu *u = t->prog ? t->prog->files[i] : t;
    clang_getInclusions(u->tu, inclusion_visitor, u);
  }
  int nf = t->prog ? t->prog->n_files : 1;
  g->files = calloc((size_t)nf, sizeof *g->files);
  if (!g->files) return -1;
  g->n_files = nf;
  scan_ctx x;
  memset(&x, 0, sizeof x);
  x.g = g;
  x.callees = callees;
  for (int i = 0; i < nf && !x.oom; i++) {
    x.t = t->prog ? t->prog->files[i] : t;
    x.file = i;
    x.cap_mems = x.cap_fns = x.cap_returns = x.cap_exits = 0;
    g->files[i].first_site = g->n_sites;
    clang_visitChildren(clang_getTranslationUnitCursor(x.t->tu), top_visitor, &x);
  }
  free(x.op_order);
  free(x.op_maxend);
  return x.oom ? -1 : 0;
}

unsigned char *graph_allocs_replaced(const graph *g, int file) {
  unsigned char *m = calloc((size_t)g->n_allocs + 1, 1);
  if (!m) return NULL;
  for (int fi = 0; fi < g->n_files; fi++) {
    if (file >= 0 && fi != file) continue;
    const pass_tu *t = g->tu && g->tu->prog && fi < g->tu->prog->n_files ? g->tu->prog->files[fi]
                                                                         : g->tu;
    const char *path = t ? t->main_path : NULL;
    const graph_file *f = &g->files[fi];
    for (int i = 0; i < g->n_allocs; i++) {
      const graph_alloc *a = &g->allocs[i];
      if (!a->file || !path || strcmp(a->file, path) != 0) continue;
      for (int k = 0; k < f->n_mems && !m[i]; k++)
        m[i] = f->mems[k].line == a->line && f->mems[k].col == a->col &&
               strstr(f->mems[k].callee, "Malloc") != NULL;
    }
  }
  return m;
}
