/* rewrite_sites.c - finds what `tidal rewrite` edits in the main file.
 *
 * The graph (graph.h) only holds ops reachable from the training loop, but
 * every op site in the main file must be instrumented: init kernels and
 * cudaMemcpy of parameters before the loop also touch tidal memory, and a
 * fresh tidal allocation is not mapped until an op declares a write to it.
 * So this file walks every host function defined in the main file itself,
 * statement by statement, and records:
 *   - op statements (kernel launches and modelled library ops) with the
 *     statement range to wrap and the op-local access descriptors: taken
 *     from the graph op at that statement when there is one (its
 *     ptr_local/bytes_local), else computed here from the kernel table and
 *     the library-call model over the call's own argument texts;
 *   - cudaMalloc/cudaFree (and Async) call expressions to replace;
 *   - main's body and return statements;
 *   - continue/break/return/goto statements that leave an iteration of the
 *     training loop (tidal_iteration_end must run before them).
 *
 * Statement ranges use expansion locations (a statement may start with a
 * macro such as cublasCheck(...)); argument texts use file locations,
 * which for a macro argument are where the argument is spelled.  Every text
 * taken from the file is checked against the callee name before it is
 * edited: a call produced by a macro body is never edited (Note [macros]
 * in docs/rewrite.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/libcalls.h"
#include "base/cursor.h"
#include "rewrite/rewrite.h"

#define MAX_LIB_ACCESSES 16 /* more than any modelled routine has */
#define MAX_PATHS 256        /* graph ops (call paths) read per statement */

typedef struct scan_ctx {
  pass_tu *t;
  const graph *g;
  rw_scan *s;
  CXCursor fn;          /* function being walked */
  char *fn_name;
  unsigned fn_begin;
  int is_main;
  int in_loop;          /* inside the training loop's body */
  unsigned ret_begin;   /* the return statement being scanned: its expression's offset */
  int loop_depth;       /* loops nested in the training loop body */
  int switch_depth;     /* switches nested in it (break leaves the switch) */
  int oom;
  int *op_order;        /* graph ops by stmt.begin (graph_ops_at), NULL until needed */
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

static char *xstrdup(const char *s) { return s ? strdup(s) : NULL; }

static char *fmt_str(const char *fmt, const char *a, const char *b) {
  size_t n = strlen(fmt) + (a ? strlen(a) : 0) + (b ? strlen(b) : 0) + 1;
  char *r = malloc(n);
  if (r) snprintf(r, n, fmt, a ? a : "", b ? b : "");
  return r;
}

/* Offset of loc in the main file; expand: expansion location (statements),
 * else the file location (spelling, for macro arguments).  1 if in it. */
static int main_offset(const pass_tu *t, CXSourceLocation loc, int expand, unsigned *off) {
  CXFile f = NULL;
  if (expand)
    clang_getExpansionLocation(loc, &f, NULL, NULL, off);
  else
    clang_getFileLocation(loc, &f, NULL, NULL, off);
  return f && t->main_file && clang_File_isEqual(f, t->main_file) && *off <= t->main_size;
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
  rw_scan *s = x->s;
  GROW(s->notes, s->n_notes, s->cap_notes, x->oom);
  if (x->oom) return;
  rw_note *n = &s->notes[s->n_notes++];
  location(at, &n->line, &n->col);
  n->text = xstrdup(text);
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
  if (!main_offset(t, clang_getRangeStart(r), 1, b) || !main_offset(t, clang_getRangeEnd(r), 1, e))
    return 0;
  if (*e <= *b) return 0;
  *e = stmt_end(t, *e);
  return 1;
}

/* The exact source text of an expression, for an argument or a call: file
 * locations (spelling of macro arguments); NULL when the range is not one
 * contiguous piece of the main file.  b and e receive the range. */
static char *expr_text(const pass_tu *t, CXCursor c, unsigned *b, unsigned *e) {
  CXSourceRange r = clang_getCursorExtent(c);
  unsigned bb, ee;
  if (!main_offset(t, clang_getRangeStart(r), 0, &bb) || !main_offset(t, clang_getRangeEnd(r), 0, &ee) ||
      ee <= bb)
    return NULL;
  char *s = malloc(ee - bb + 1);
  if (!s) return NULL;
  memcpy(s, t->main_source + bb, ee - bb);
  s[ee - bb] = '\0';
  if (b) *b = bb;
  if (e) *e = ee;
  return s;
}

/* Argument text for an access or a captured value: the file text when it
 * is contiguous, else the tokens (frontend_cursor_text). */
static char *arg_text(const pass_tu *t, CXCursor a) {
  char *s = expr_text(t, a, NULL, NULL);
  return s ? s : frontend_cursor_text(t, a);
}

static int starts_with_word(const char *s, const char *w) {
  size_t n = strlen(w);
  return !strncmp(s, w, n) && !(s[n] == '_' || (s[n] >= 'a' && s[n] <= 'z') ||
                                (s[n] >= 'A' && s[n] <= 'Z') || (s[n] >= '0' && s[n] <= '9'));
}

/* ---- accesses ---- */

static int tidal_mode_of(access_mode m) { return (int)m; } /* same values: 1 2 3 */

typedef struct subst_ud {
  sym_arena *a;
  const kernel_info *ki;
  char **args;
  int nargs;
  sym *grid, *block; /* the launch's grid.x and block.x, for extents that name them */
} subst_ud;

static sym *param_lookup(void *ud, const char *name) {
  subst_ud *u = ud;
  for (int i = 0; i < u->ki->n_params && i < u->nargs; i++)
    if (!strcmp(u->ki->params[i].name, name) && u->args[i]) return sym_var(u->a, u->args[i]);
  return kernels_launch_dim(u->a, name, u->grid, u->block);
}

static void add_acc(rw_site *site, int arg, const char *ptr, char *bytes, int mode, int exact,
                    const char *why, int *oom) {
  rw_acc *v = realloc(site->acc, (size_t)(site->n_acc + 1) * sizeof *v);
  if (!v) {
    free(bytes);
    *oom = 1;
    return;
  }
  site->acc = v;
  v[site->n_acc++] =
      (rw_acc){xstrdup(ptr), bytes, mode, bytes ? NULL : xstrdup(why), exact && bytes, arg};
}

/* 1 if C text taken from the graph is usable: non-empty, and no name in it
 * came out empty (the graph cannot always read text inside a macro
 * argument; then the access is computed here instead).  The one call a
 * text may hold is a smart pointer's `.get()`/`->get()` (interp.c Note
 * [smart pointers]): an accessor, safe to evaluate again at the op. */
static int text_ok(const char *s) {
  if (!s || !*s) return 0;
  for (const char *p = strstr(s, "()"); p; p = strstr(p + 2, "()"))
    if (!((p - s >= 4 && !strncmp(p - 4, ".get", 4)) || (p - s >= 5 && !strncmp(p - 5, "->get", 5))))
      return 0;
  return 1;
}

/* 1 if argument `arg` is an exact access on every call path reaching the
 * statement: the declared mode is shared by all paths, so a write counts as
 * covering every byte only if each path proved it (opsites.c). */
static int exact_on_every_path(const scan_ctx *x, const int *ops, int n_ops, int arg) {
  for (int k = 0; k < n_ops; k++) {
    const graph_op *op = &x->g->ops[ops[k]];
    for (int i = 0; i < op->n_acc; i++)
      if (op->acc[i].arg == arg && op->acc[i].mode != ACCESS_NONE && !op->acc[i].exact) return 0;
  }
  return 1;
}

/* 1 if site already declares an access through pointer text ptr. */
static int declared(const rw_site *site, const char *ptr) {
  for (int i = 0; i < site->n_acc; i++)
    if (site->acc[i].ptr && !strcmp(site->acc[i].ptr, ptr)) return 1;
  return 0;
}

/* Accesses of one op call from the graph ops at this statement (every call
 * path: the local text is the same on each, but a path may have left an
 * argument unresolved).  covered[arg] is set for each argument taken. */
static void graph_accesses(scan_ctx *x, rw_site *site, const int *ops, int n_ops, char *covered,
                           int nargs) {
  for (int k = 0; k < n_ops; k++) {
    const graph_op *op = &x->g->ops[ops[k]];
    const kernel_info *ki =
        op->kind == GRAPH_OP_LAUNCH ? kernels_find_name(&x->g->kernels, op->callee) : NULL;
    for (int i = 0; i < op->n_acc; i++) {
      const graph_access *a = &op->acc[i];
      if (a->unmanaged && a->arg >= 0 && a->arg < nargs) covered[a->arg] = 1; /* not tidal memory */
      if (a->unmanaged || a->mode == ACCESS_NONE || !text_ok(a->ptr_local)) continue;
      /* a struct argument declares one access per pointer field (opsites.c) */
      if (a->arg < 0 || a->arg >= nargs || (covered[a->arg] && declared(site, a->ptr_local))) continue;
      char *bytes = sym_is_unknown(a->bytes_local) ? NULL : sym_to_c(a->bytes_local);
      if (bytes && !text_ok(bytes)) {
        free(bytes);
        continue;
      }
      covered[a->arg] = 1;
      const char *why = "the analysis found no bound for this access";
      if (ki)
        for (int p = 0; p < ki->n_params; p++)
          if (a->param && !strcmp(ki->params[p].name, a->param) && ki->params[p].why)
            why = ki->params[p].why;
      if (!ki && !bytes) {
        const char *lw = libcall_unknown_why(op->callee, a->arg);
        why = lw ? lw : "the library-call model gives no bound for this argument";
      }
      add_acc(site, a->arg, a->ptr_local, bytes, tidal_mode_of(a->mode),
              exact_on_every_path(x, ops, n_ops, a->arg), why, &x->oom);
    }
  }
}

/* An integer expression at an op site: its constant value, else its text
 * parsed as a symbolic expression; unknown when neither works. */
static sym *local_int(scan_ctx *x, CXCursor e) {
  sym_arena *a = x->t->arena;
  if (clang_Cursor_isNull(e) || clang_getCursorType(e).kind == CXType_Pointer) return sym_unknown(a);
  sym *r = NULL;
  int64_t c;
  if (cursor_eval_int(e, &c)) r = sym_const(a, c);
  if (!r) {
    char *t = arg_text(x->t, e);
    r = t ? sym_parse(a, t) : NULL;
    free(t);
  }
  return r ? r : sym_unknown(a);
}

/* Accesses computed here, for op sites the graph does not hold (outside
 * the training loop): kernel parameter extents with the launch's argument
 * texts substituted, or the library-call model over the argument texts. */
static void local_accesses(scan_ctx *x, rw_site *site, CXCursor call, const char *callee,
                           const kernel_info *ki, const char *covered) {
  int nargs = clang_Cursor_getNumArguments(call);
  if (nargs < 0) nargs = 0;
  char **args = calloc((size_t)nargs + 1, sizeof *args);
  libcall_arg *largs = calloc((size_t)nargs + 1, sizeof *largs);
  if (!args || !largs) {
    x->oom = 1;
    goto out;
  }
  for (int i = 0; i < nargs; i++) {
    CXCursor a = clang_Cursor_getArgument(call, (unsigned)i);
    args[i] = arg_text(x->t, a);
    largs[i].text = args[i];
    int64_t c;
    if (cursor_eval_int(a, &c))
      largs[i].value = sym_const(x->t->arena, c);
    else if (args[i] && clang_getCursorType(a).kind != CXType_Pointer)
      largs[i].value = sym_var(x->t->arena, args[i]);
    else
      largs[i].value = sym_unknown(x->t->arena);
  }
  if (ki) {
    subst_ud u = {x->t->arena, ki, args, nargs, NULL, NULL};
    /* the launch's arguments and dimensions as integers, for the dense
     * proof (kernels_launch_covers): constants, else the text parsed */
    sym **iv = calloc((size_t)ki->n_params + 1, sizeof *iv);
    CXCursor gx, bx;
    kernels_launch_dims(call, &gx, &bx);
    sym *grid = local_int(x, gx), *block = local_int(x, bx);
    u.grid = grid;
    u.block = block;
    for (int p = 0; iv && p < ki->n_params && p < nargs; p++)
      iv[p] = local_int(x, clang_Cursor_getArgument(call, (unsigned)p));
    for (int p = 0; p < ki->n_params && p < nargs; p++) {
      const kernel_param *kp = &ki->params[p];
      if (!kp->is_pointer || kp->mode == ACCESS_NONE || covered[p] ||
          rw_is_null_constant(clang_Cursor_getArgument(call, (unsigned)p)))
        continue;
      if (!text_ok(args[p])) {
        /* never silently: the runtime cannot see this access */
        char msg[256];
        snprintf(msg, sizeof msg, "argument %d of %s ('%.80s') is not declared to the runtime: "
                 "its text holds a call tidal does not evaluate again at the op", p, callee,
                 args[p] ? args[p] : "");
        note(x, call, msg);
        continue;
      }
      char *bytes = NULL;
      const char *why = kp->why ? kp->why : "the kernel's index range is not bounded";
      if (!sym_is_unknown(kp->extent) && kp->elem_bytes > 0) {
        sym *ext = sym_subst(x->t->arena, kp->extent, param_lookup, &u);
        sym *b = sym_mul(x->t->arena, ext, sym_const(x->t->arena, kp->elem_bytes));
        bytes = sym_is_unknown(b) ? NULL : sym_to_c(b);
      } else if (kp->elem_bytes <= 0) {
        why = "the pointee size is unknown (void pointer)";
      }
      /* as the graph's op sites (opsites.c) decide it, symbolically only */
      int exact = kp->mode == ACCESS_WRITE && iv &&
                  kernels_launch_covers(x->t->arena, ki, kp, iv, grid, block, NULL, NULL);
      add_acc(site, p, args[p], bytes, tidal_mode_of(kp->mode), exact, why, &x->oom);
    }
    free(iv);
  } else {
    libcall_access acc[MAX_LIB_ACCESSES];
    libcall_env env = {x->t->arena, NULL, NULL, NULL, NULL};
    int n = libcall_accesses(callee, largs, nargs, &env, acc, MAX_LIB_ACCESSES);
    for (int i = 0; i < n && i < MAX_LIB_ACCESSES; i++) {
      if (acc[i].arg < 0 || acc[i].arg >= nargs || covered[acc[i].arg] ||
          rw_is_null_constant(clang_Cursor_getArgument(call, (unsigned)acc[i].arg)))
        continue;
      if (!text_ok(args[acc[i].arg])) {
        char msg[256];
        snprintf(msg, sizeof msg, "argument %d of %s ('%.80s') is not declared to the runtime: "
                 "its text holds a call tidal does not evaluate again at the op", acc[i].arg,
                 callee, args[acc[i].arg] ? args[acc[i].arg] : "");
        note(x, call, msg);
        continue;
      }
      char *bytes = sym_is_unknown(acc[i].bytes) ? NULL : sym_to_c(acc[i].bytes);
      const char *lw = libcall_unknown_why(callee, acc[i].arg);
      add_acc(site, acc[i].arg, args[acc[i].arg], bytes, tidal_mode_of(acc[i].mode), acc[i].exact,
              lw ? "its size comes from a descriptor, whose sizes are only tracked for ops "
                   "the training loop reaches"
                 : "the library-call model gives no bound for this argument",
              &x->oom);
    }
  }
out:
  if (args)
    for (int i = 0; i < nargs; i++) free(args[i]);
  free(args);
  free(largs);
}

/* ---- op sites and allocation calls ---- */

static const graph *order_graph; /* qsort has no user data */

static int by_stmt_begin(const void *pa, const void *pb) {
  const graph_op *x = &order_graph->ops[*(const int *)pa], *y = &order_graph->ops[*(const int *)pb];
  if (x->stmt.file != y->stmt.file) return x->stmt.file < y->stmt.file ? -1 : 1;
  if (x->stmt.begin != y->stmt.begin) return x->stmt.begin < y->stmt.begin ? -1 : 1;
  return *(const int *)pa - *(const int *)pb;
}

/* The graph ops whose statement overlaps [b, e) and call callee (one per
 * call path reaching the statement) in input `file`, in op order; returns
 * how many, up to max.  A scan over every op per site made rewriting
 * quadratic in the op statements (50,000 launches: minutes): the ops are
 * sorted by (file, statement start) once, and the search walks back from
 * the last start before e while some earlier statement of the file may
 * still reach past b (op_maxend restarts at each file). */
static int graph_ops_at(scan_ctx *x, int file, unsigned b, unsigned e, const char *callee,
                        int *out, int max) {
  const graph *g = x->g;
  if (!x->op_order && g->n_ops > 0) {
    x->op_order = malloc((size_t)g->n_ops * sizeof *x->op_order);
    x->op_maxend = malloc((size_t)g->n_ops * sizeof *x->op_maxend);
    if (!x->op_order || !x->op_maxend) {
      free(x->op_order);
      free(x->op_maxend);
      x->op_order = NULL;
      x->op_maxend = NULL;
      x->oom = 1;
      return 0;
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
  int lo = 0, hi = g->n_ops; /* first index at or after (file, e) */
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    const graph_op *op = &g->ops[x->op_order[mid]];
    if (op->stmt.file < file || (op->stmt.file == file && op->stmt.begin < e)) lo = mid + 1;
    else hi = mid;
  }
  /* the first MAX_PATHS matches in op order (callers take the first as
   * the site's op), kept sorted as they are found */
  int n = 0, k = 0, found[MAX_PATHS];
  for (int i = lo - 1; i >= 0 && x->op_maxend[i] > b; i--) {
    const graph_op *op = &g->ops[x->op_order[i]];
    if (op->stmt.file != file) break;
    if (op->stmt.end <= b || strcmp(op->callee, callee)) continue;
    n++;
    int v = x->op_order[i];
    if (k == MAX_PATHS && found[k - 1] < v) continue;
    int j = k < MAX_PATHS ? k++ : k - 1;
    for (; j > 0 && found[j - 1] > v; j--) found[j] = found[j - 1];
    found[j] = v;
  }
  for (int i = 0; i < k && i < max; i++) out[i] = found[i];
  return n;
}

typedef struct expr_walk {
  scan_ctx *x;
  CXCursor stmt;   /* statement the expression belongs to */
  int stmt_pos;    /* 1: stmt is a plain statement we may wrap */
  int braces;      /* wrap in braces */
  int is_return;
  rw_site *site;   /* created on the first op */
  CXCursor first_call; /* that op's call */
  int n_calls;     /* op calls met in the statement */
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

static void record_mem(scan_ctx *x, CXCursor call, const char *callee) {
  unsigned b, e;
  char *text = expr_text(x->t, call, &b, &e);
  int ok = text && starts_with_word(text, callee) && text[strlen(text) - 1] == ')';
  free(text);
  int nargs = clang_Cursor_getNumArguments(call);
  int want = strstr(callee, "Malloc") ? 2 : 1;
  if (!ok || nargs < want) {
    char msg[160];
    snprintf(msg, sizeof msg, "%s is written inside a macro: left as is (not a tidal allocation)",
             callee);
    note(x, call, msg);
    return;
  }
  rw_scan *s = x->s;
  /* a check macro evaluating its argument twice puts the call in the AST
   * twice, written once: one replacement */
  for (int i = 0; i < s->n_mems; i++)
    if (s->mems[i].begin == b && s->mems[i].end == e) return;
  GROW(s->mems, s->n_mems, s->cap_mems, x->oom);
  if (x->oom) return;
  rw_mem *m = &s->mems[s->n_mems++];
  memset(m, 0, sizeof *m);
  m->begin = b;
  m->end = e;
  m->callee = xstrdup(callee);
  m->args = calloc((size_t)nargs, sizeof *m->args);
  if (!m->args) {
    x->oom = 1;
    return;
  }
  m->n_args = nargs;
  for (int i = 0; i < nargs; i++) m->args[i] = arg_text(x->t, clang_Cursor_getArgument(call, (unsigned)i));
  location(call, &m->line, &m->col);
}

static rw_site *new_site(expr_walk *w, CXCursor call, const char *callee, int kind) {
  scan_ctx *x = w->x;
  rw_scan *s = x->s;
  GROW(s->sites, s->n_sites, s->cap_sites, x->oom);
  if (x->oom) return NULL;
  rw_site *site = &s->sites[s->n_sites++];
  memset(site, 0, sizeof *site);
  site->graph_op = -1;
  site->braces = w->braces;
  site->is_return = w->is_return;
  site->function = xstrdup(x->fn_name);
  site->callee = xstrdup(callee);
  site->label = fmt_str("%s -> %s", x->fn_name, callee);
  site->kind = kind;
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
  return site;
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

static enum CXChildVisitResult expr_visitor(CXCursor c, CXCursor parent, CXClientData d) {
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
  char *callee = string_and_dispose(clang_getCursorSpelling(c));
  const kernel_info *ki = kernels_find(&x->g->kernels, c);
  if ((!callee || !*callee) && ki) { /* a launch in a template (kernels.c Note [launches in templates]) */
    free(callee);
    callee = strdup(ki->name);
  }
  if (!callee || !*callee) {
    free(callee);
    return CXChildVisit_Recurse;
  }
  const libcall_info *li = ki ? NULL : libcall_find(callee);
  if (is_mem_callee(callee)) {
    record_mem(x, c, callee);
  } else if ((ki || (li && (li->flags & LIBCALL_OP))) && !op_seen(w, c)) {
    int kind = ki ? GRAPH_OP_LAUNCH
                  : !strncmp(callee, "cudaMemcpy", 10) ? GRAPH_OP_MEMCPY
                  : !strncmp(callee, "cudaMemset", 10) ? GRAPH_OP_MEMSET
                  : li->family == LIBCALL_NCCL ? GRAPH_OP_COLLECTIVE : GRAPH_OP_LIBRARY;
    int first = !w->site;
    if (first) {
      w->site = new_site(w, c, callee, kind);
      w->first_call = c;
    }
    w->n_calls++;
    rw_site *site = w->site;
    if (site && !site->skip) {
      int ops[MAX_PATHS];
      int n = graph_ops_at(x, x->t->file_index, site->stmt_begin, site->stmt_end, callee, ops, MAX_PATHS);
      if (first) {
        site->graph_op = n > 0 ? ops[0] : -1;
        site->n_graph_ops = n;
      }
      int nargs = clang_Cursor_getNumArguments(c);
      char *covered = calloc((size_t)(nargs > 0 ? nargs : 0) + 1, 1);
      if (!covered) {
        x->oom = 1;
      } else {
        graph_accesses(x, site, ops, n < MAX_PATHS ? n : MAX_PATHS, covered, nargs);
        local_accesses(x, site, c, callee, ki, covered);
      }
      free(covered);
    }
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
      main_offset(x->t, clang_getRangeStart(clang_getCursorExtent(s)), 1, &sb) &&
      main_offset(x->t, clang_getRangeStart(clang_getCursorExtent(k.v[0])), 1, &eb) &&
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
  expr_walk w = {x, stmt, stmt_pos, braces, is_return, NULL, clang_getNullCursor(), 0, {{0}}, 0};
  /* The statement cursor itself may be the call (an expression statement). */
  if (clang_getCursorKind(e) == CXCursor_CallExpr)
    expr_visitor(e, clang_getNullCursor(), &w);
  clang_visitChildren(e, expr_visitor, &w);
  /* A split op (graph_op.split) runs in pieces when the launch can be
   * rewritten so (rewrite_split.c). */
  rw_site *site = w.site;
  if (site && !site->skip && site->kind == GRAPH_OP_LAUNCH && site->n_graph_ops > 0 && !x->oom) {
    int ops[MAX_PATHS];
    int n = graph_ops_at(x, x->t->file_index, site->stmt_begin, site->stmt_end, site->callee, ops,
                         MAX_PATHS);
    if (rw_split_plan(x->t, x->g, site, stmt, w.first_call, w.n_calls, ops,
                      n < MAX_PATHS ? n : MAX_PATHS) != 0)
      x->oom = 1;
    else if (site->no_split)
      note(x, w.first_call, site->no_split);
  }
}

/* ---- statements ---- */

static void loop_exit(scan_ctx *x, CXCursor s, int kind) {
  rw_scan *sc = x->s;
  rw_span sp = {0, 0, kind, 0, 0};
  if (!stmt_range(x->t, s, &sp.begin, &sp.end)) {
    note(x, s, "a jump out of the training loop's iteration is inside a macro: "
               "tidal_iteration_end is not called before it");
    return;
  }
  location(s, &sp.line, &sp.col);
  if (kind == RW_SPAN_GOTO) {
    note(x, s, "goto inside the training loop: tidal_iteration_end is not inserted before it "
               "(unsupported; the iteration's statistics may merge)");
    return;
  }
  GROW(sc->loop_exits, sc->n_loop_exits, sc->cap_loop_exits, x->oom);
  if (!x->oom) sc->loop_exits[sc->n_loop_exits++] = sp;
}

/* 1 if child c of a control statement is one of its bodies (not its
 * condition, init or increment): a body follows ')' of the header, or
 * `else` / `do`. */
static int is_body(const pass_tu *t, CXCursor c) {
  unsigned b;
  if (!main_offset(t, clang_getRangeStart(clang_getCursorExtent(c)), 1, &b)) return 0;
  unsigned p = skip_back(t->main_source, b);
  if (p == 0) return 0;
  if (t->main_source[p - 1] == ')') return 1;
  const char *src = t->main_source;
  if (p >= 4 && !strncmp(src + p - 4, "else", 4)) return 1;
  if (p >= 2 && !strncmp(src + p - 2, "do", 2)) return 1;
  return 0;
}

static void walk_stmt(scan_ctx *x, CXCursor s, int braces);

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
                 main_offset(x->t, clang_getRangeStart(clang_getCursorExtent(s)), 1, &b) &&
                 b == x->g->loop_stmt.begin && x->g->loop_stmt.file == x->t->file_index;
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
      x->s->have_loop = 1;
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
      rw_span sp = {0, 0, RW_SPAN_RETURN, 0, 0};
      if (stmt_range(x->t, s, &sp.begin, &sp.end)) {
        location(s, &sp.line, &sp.col);
        GROW(x->s->main_returns, x->s->n_main_returns, x->s->cap_main_returns, x->oom);
        if (!x->oom) x->s->main_returns[x->s->n_main_returns++] = sp;
      } else {
        note(x, s, "a return of main is inside a macro: tidal_shutdown is not called before it");
      }
    }
    if (x->in_loop) loop_exit(x, s, RW_SPAN_RETURN);
    scan_expr(x, s, s, 1, braces, return_mode(x, s));
    return;
  }
  case CXCursor_ContinueStmt:
    if (x->in_loop && x->loop_depth == 0) loop_exit(x, s, RW_SPAN_CONTINUE);
    return;
  case CXCursor_BreakStmt:
    if (x->in_loop && x->loop_depth == 0 && x->switch_depth == 0) loop_exit(x, s, RW_SPAN_BREAK);
    return;
  case CXCursor_GotoStmt:
    if (x->in_loop) loop_exit(x, s, RW_SPAN_GOTO);
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
  unsigned *mask = d;
  switch (clang_getCursorKind(c)) {
  case CXCursor_CUDAGlobalAttr: *mask |= 1; break;
  case CXCursor_CUDADeviceAttr: *mask |= 2; break;
  case CXCursor_CUDAHostAttr: *mask |= 4; break;
  default: break;
  }
  return CXChildVisit_Continue;
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
  x->fn = fn;
  x->fn_name = string_and_dispose(clang_getCursorSpelling(fn));
  x->is_main = x->fn_name && !strcmp(x->fn_name, "main") &&
               clang_getCursorSemanticParent(fn).kind == CXCursor_TranslationUnit;
  x->in_loop = x->loop_depth = x->switch_depth = 0;
  if (!main_offset(x->t, clang_getRangeStart(clang_getCursorExtent(fn)), 1, &x->fn_begin))
    x->fn_begin = 0;
  {
    unsigned b, e;
    if (main_offset(x->t, clang_getRangeStart(clang_getCursorExtent(body)), 1, &b) &&
        main_offset(x->t, clang_getRangeEnd(clang_getCursorExtent(body)), 1, &e) && e > b &&
        x->t->main_source[b] == '{' && x->t->main_source[e - 1] == '}') {
      GROW(x->s->fns, x->s->n_fns, x->s->cap_fns, x->oom);
      if (!x->oom) x->s->fns[x->s->n_fns++] = (rw_fn_body){b, e};
    }
  }
  if (x->is_main) {
    unsigned b, e;
    if (main_offset(x->t, clang_getRangeStart(clang_getCursorExtent(body)), 1, &b) &&
        main_offset(x->t, clang_getRangeEnd(clang_getCursorExtent(body)), 1, &e) && e > b &&
        x->t->main_source[b] == '{' && x->t->main_source[e - 1] == '}') {
      x->s->have_main = 1;
      x->s->main_body_begin = b;
      x->s->main_body_end = e;
      kids bk = children(body);
      x->s->main_ends_in_return =
          bk.n > 0 && clang_getCursorKind(bk.v[bk.n - 1]) == CXCursor_ReturnStmt;
      free(bk.v);
    }
  }
  walk_stmt(x, body, 1);
  free(x->fn_name);
  x->fn_name = NULL;
}

static enum CXChildVisitResult top_visitor(CXCursor c, CXCursor parent, CXClientData d) {
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

int rw_scan_tu(pass_tu *t, const graph *g, rw_scan *out) {
  memset(out, 0, sizeof *out);
  scan_ctx x = {0};
  x.t = t;
  x.g = g;
  x.s = out;
  clang_visitChildren(clang_getTranslationUnitCursor(t->tu), top_visitor, &x);
  free(x.op_order);
  free(x.op_maxend);
  return x.oom ? -1 : 0;
}

/* Project headers reach the program through the inputs' #includes. */
static void inclusion_visitor(CXFile f, CXSourceLocation *stack, unsigned n, CXClientData d) {
  (void)stack;
  (void)n;
  pass_tu *u = d;
  (void)program_view_of_file(u, clang_getTranslationUnitCursor(u->tu), f);
}

int rw_scan_program(pass_tu *t, const graph *g, rw_scan **scans, int *n) {
  *scans = NULL;
  *n = 0;
  pass_tu *const *units;
  int n_units = program_units(t, &units);
  /* registering a view may move the program's file array: index it afresh */
  for (int i = 0; i < n_units; i++) {
    pass_tu *u = t->prog ? t->prog->files[i] : t;
    clang_getInclusions(u->tu, inclusion_visitor, u);
  }
  int nf = t->prog ? t->prog->n_files : 1;
  rw_scan *v = calloc((size_t)nf, sizeof *v);
  if (!v) return -1;
  for (int i = 0; i < nf; i++) {
    pass_tu *f = t->prog ? t->prog->files[i] : t;
    if (rw_scan_tu(f, g, &v[i]) != 0) {
      rw_scans_free(v, i + 1);
      return -1;
    }
  }
  *scans = v;
  *n = nf;
  return 0;
}

void rw_scans_free(rw_scan *scans, int n) {
  for (int i = 0; scans && i < n; i++) rw_scan_free(&scans[i]);
  free(scans);
}

void rw_scan_free(rw_scan *s) {
  if (!s) return;
  free(s->fns);
  for (int i = 0; i < s->n_sites; i++) {
    rw_site *site = &s->sites[i];
    for (int j = 0; j < site->n_acc; j++) {
      free(site->acc[j].ptr);
      free(site->acc[j].bytes);
      free(site->acc[j].why);
    }
    free(site->acc);
    free(site->function);
    free(site->callee);
    free(site->label);
    free(site->skip);
    rw_split_free(site->split);
    free(site->no_split);
  }
  free(s->sites);
  for (int i = 0; i < s->n_mems; i++) {
    for (int j = 0; j < s->mems[i].n_args; j++) free(s->mems[i].args[j]);
    free(s->mems[i].args);
    free(s->mems[i].callee);
  }
  free(s->mems);
  free(s->main_returns);
  free(s->loop_exits);
  for (int i = 0; i < s->n_notes; i++) free(s->notes[i].text);
  free(s->notes);
  memset(s, 0, sizeof *s);
}
