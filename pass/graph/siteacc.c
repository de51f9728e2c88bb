/* siteacc.c - what one op site declares and passes: its accesses (the
 * tidal_access list of its TIDAL_OP_BEGIN) and its arguments as written
 * (graph_site_access, graph_site_arg in graph.h).  sites.c calls it for
 * each op call it meets in a statement.
 *
 * Note [accesses at a site]
 * A site's accesses are in the local context: valid just before its
 * statement, in the function it is written in.  They come first from the
 * graph ops at the statement (opsites.c recorded each one's ptr_local and
 * bytes_local while the interpreter walked the training loop), merged over
 * every call path reaching it: the local text is the same on each, but a
 * path may have left an argument unresolved, and a write is declared exact
 * only when every path proved it.  An argument no graph op covers - every
 * argument of an op outside the training loop (setup, evaluation, a helper
 * the loop never calls), or one whose graph text is unusable (inside a
 * macro argument) - gets its access from the call's own argument texts:
 * the kernel parameter's extent with the launch's arguments substituted,
 * or the library-call model over the arguments (descriptors are only
 * resolved for ops the loop reaches).  Such a write is exact only when the
 * launch provably covers it symbolically (kernels_launch_covers), as
 * opsites.c decides it in the local context.  cudaLaunchKernel's pointer
 * parameters come from its argument array the same way, `*(T **)(args)[i]`
 * of unknown extent, for a launch outside the loop and for one whose array
 * the interpreter could not follow; none at all when the array is written
 * in a macro's body (its text at the op would be the macro's invocation:
 * sitehomes.c then keeps every allocation at home).  Memory tidal does not
 * manage and NULL arguments are never declared.
 *
 * Texts from the file use file locations (a macro argument is where it is
 * spelled); argument ranges use expansion locations, the places an edit
 * can go.  Nothing here edits: the rewriter checks a range before it does
 * (Note [macros] in docs/rewrite.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/libcalls.h"
#include "base/cursor.h"
#include "graph/sites.h"

#define MAX_LIB_ACCESSES 16 /* more than any modelled routine has */

/* ---- texts and places ---- */

int site_offset(const pass_tu *t, CXSourceLocation loc, int expand, unsigned *off) {
  CXFile f = NULL;
  if (expand)
    clang_getExpansionLocation(loc, &f, NULL, NULL, off);
  else
    clang_getFileLocation(loc, &f, NULL, NULL, off);
  return f && t->main_file && clang_File_isEqual(f, t->main_file) && *off <= t->main_size;
}

char *site_expr_text(const pass_tu *t, CXCursor c, unsigned *b, unsigned *e) {
  CXSourceRange r = clang_getCursorExtent(c);
  unsigned bb, ee;
  if (!site_offset(t, clang_getRangeStart(r), 0, &bb) || !site_offset(t, clang_getRangeEnd(r), 0, &ee) ||
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

char *site_arg_text(const pass_tu *t, CXCursor a) {
  char *s = site_expr_text(t, a, NULL, NULL);
  return s ? s : frontend_cursor_text(t, a);
}

char *site_stmt_text(const pass_tu *t, const graph_site *site, CXCursor a) {
  unsigned b, e, sb = 0;
  char *s = site_expr_text(t, a, &b, &e);
  /* a macro body's tokens have their file location at the expansion and
   * their spelling location in the #define (as graph_site.call_spelled) */
  CXFile sf = NULL;
  clang_getSpellingLocation(clang_getRangeStart(clang_getCursorExtent(a)), &sf, NULL, NULL, &sb);
  if (s && (b < site->stmt_begin || e > site->stmt_end || !sf || !t->main_file ||
            !clang_File_isEqual(sf, t->main_file) || sb != b)) {
    free(s);
    s = NULL;
  }
  return s;
}

int site_note(const pass_tu *t, graph_file *f, CXCursor at, const char *text) {
  graph_note *v = realloc(f->notes, (size_t)(f->n_notes + 1) * sizeof *v);
  if (!v) return -1;
  f->notes = v;
  graph_note *n = &v[f->n_notes];
  memset(n, 0, sizeof *n);
  clang_getExpansionLocation(clang_getCursorLocation(at), NULL, &n->line, &n->col, NULL);
  n->file = strdup(t->main_path ? t->main_path : "");
  n->message = strdup(text);
  f->n_notes++;
  return n->file && n->message ? 0 : -1;
}

/* ---- accesses ---- */

typedef struct acc_ctx {
  pass_tu *t;
  const graph *g;
  graph_site *site;
  int call;       /* the statement's op call number */
  unsigned flags; /* SITEACC_* */
  graph_file *f;
  int oom;
} acc_ctx;

static void add_acc(acc_ctx *x, int arg, const char *ptr, char *bytes, access_mode mode,
                    int exact, const char *why) {
  graph_site *site = x->site;
  graph_site_access *v = realloc(site->acc, (size_t)(site->n_acc + 1) * sizeof *v);
  if (!v) {
    free(bytes);
    x->oom = 1;
    return;
  }
  site->acc = v;
  v[site->n_acc++] = (graph_site_access){ptr ? strdup(ptr) : NULL, bytes, mode, exact && bytes,
                                         bytes ? NULL : strdup(why), x->call, arg, -1};
}

/* The pointer parameter of kernel ki named param, or -1 (a struct's field
 * `p.a`, a parameter that is not a pointer). */
static int pointer_param(const kernel_info *ki, const char *param) {
  for (int p = 0; ki && param && p < ki->n_params; p++)
    if (ki->params[p].is_pointer && ki->params[p].name && !strcmp(ki->params[p].name, param))
      return p;
  return -1;
}

static void note(acc_ctx *x, CXCursor at, const char *text) {
  if (site_note(x->t, x->f, at, text) != 0) x->oom = 1;
}

/* 1 if C text taken from the graph is usable: non-empty, and no name in it
 * came out empty (the graph cannot always read text inside a macro
 * argument; then the access is computed from the call instead).  The one
 * call a text may hold is a smart pointer's `.get()`/`->get()` (interp_cxx.c,
 * Note [smart pointers]): an accessor, safe to evaluate again at the op. */
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
static int exact_on_every_path(const graph *g, const int *ops, int n_ops, int arg) {
  for (int k = 0; k < n_ops; k++) {
    const graph_op *op = &g->ops[ops[k]];
    for (int i = 0; i < op->n_acc; i++)
      if (op->acc[i].arg == arg && op->acc[i].mode != ACCESS_NONE && !op->acc[i].exact) return 0;
  }
  return 1;
}

/* 1 if the site already declares an access through pointer text ptr (for
 * this op call). */
static int declared(const acc_ctx *x, const char *ptr) {
  const graph_site *site = x->site;
  for (int i = 0; i < site->n_acc; i++)
    if (site->acc[i].call == x->call && site->acc[i].ptr && !strcmp(site->acc[i].ptr, ptr))
      return 1;
  return 0;
}

/* Note [paths that disagree]: an access declared already from another op
 * at the statement (another call path reaching it) is widened to cover
 * this one too: the modes join (a path that reads and one that writes
 * make a readwrite), and the extents the paths give, each distinct text
 * once, become their maximum, `tidal_size_max(A, tidal_size_max(B, C))`
 * (tidal.h; each argument evaluated once), or unknown when any is.
 * llm.c's bf16 matmul_cublaslt is called with a batch (attention: B*NH
 * matrices) and without: declaring the first path's `2*m*n` let the
 * batched call write B*NH times past its unit (CUresult 700 on an H200).
 * A pointer a descriptor carries (desc) becomes unknown rather than a max:
 * its texts come from where each path set it. */
typedef struct alt_text {
  int acc;    /* the site access it widens */
  char *text; /* NULL: unknown */
} alt_text;

typedef struct alt_list {
  alt_text *v;
  int n, cap;
} alt_list;

static void widen(acc_ctx *x, alt_list *alts, const graph_access *a, int desc) {
  graph_site *site = x->site;
  char *bytes = sym_is_unknown(a->bytes_local) ? NULL : sym_to_c(a->bytes_local);
  if (bytes && !text_ok(bytes)) {
    free(bytes);
    bytes = NULL;
  }
  for (int i = 0; i < site->n_acc; i++) {
    graph_site_access *d = &site->acc[i];
    if (d->call != x->call || !d->ptr || strcmp(d->ptr, a->ptr_local) || (!desc && d->arg != a->arg))
      continue;
    if (!desc)
      d->mode = (access_mode)(d->mode | a->mode);
    if (!d->bytes || (bytes && !strcmp(bytes, d->bytes)))
      continue;
    int seen = 0;
    for (int k = 0; k < alts->n && !seen; k++)
      seen = alts->v[k].acc == i && ((!bytes && !alts->v[k].text) ||
                                     (bytes && alts->v[k].text && !strcmp(bytes, alts->v[k].text)));
    if (seen)
      continue;
    if (alts->n == alts->cap) {
      int cap = alts->cap ? 2 * alts->cap : 8;
      alt_text *v = realloc(alts->v, (size_t)cap * sizeof *v);
      if (!v) {
        x->oom = 1;
        break;
      }
      alts->v = v;
      alts->cap = cap;
    }
    alts->v[alts->n++] = (alt_text){i, desc || !bytes ? NULL : strdup(bytes)};
  }
  free(bytes);
}

/* The widened extents (Note [paths that disagree]). */
static void apply_alts(acc_ctx *x, alt_list *alts) {
  graph_site *site = x->site;
  for (int k = 0; k < alts->n; k++) {
    graph_site_access *d = &site->acc[alts->v[k].acc];
    const char *t = alts->v[k].text;
    d->exact = 0;
    if (!d->bytes)
      continue;
    char *w = NULL;
    if (t) {
      size_t n = strlen(t) + strlen(d->bytes) + 32;
      if ((w = malloc(n)))
        snprintf(w, n, "tidal_size_max(%s, %s)", d->bytes, t);
      else
        x->oom = 1;
    }
    free(d->bytes);
    d->bytes = w;
    if (!w) {
      free(d->why);
      d->why = strdup("the calls that reach here give it different extents, one of them unknown");
    }
  }
  for (int k = 0; k < alts->n; k++) free(alts->v[k].text);
  free(alts->v);
}

/* Note [accesses at a site]: the accesses of the graph ops at the
 * statement.  covered[arg] is set for each argument taken.  An access
 * through cudaLaunchKernel's argument array (arg -1, opsites.c) is taken
 * once per pointer text. */
static void graph_accesses(acc_ctx *x, const int *ops, int n_ops, char *covered, int nargs,
                           int array_ok) {
  alt_list alts = {0};
  for (int k = 0; k < n_ops; k++) {
    const graph_op *op = &x->g->ops[ops[k]];
    const kernel_info *ki =
        op->kind == GRAPH_OP_LAUNCH ? kernels_find_name(&x->g->kernels, op->callee) : NULL;
    for (int i = 0; i < op->n_acc; i++) {
      const graph_access *a = &op->acc[i];
      if (a->unmanaged && a->arg >= 0 && a->arg < nargs) covered[a->arg] = 1; /* not tidal memory */
      if (a->unmanaged || a->mode == ACCESS_NONE || !text_ok(a->ptr_local)) continue;
      int in_array = a->arg < 0 && (x->flags & SITEACC_ARGS_ARRAY);
      /* the graph's text names the array as the expansion writes it: in a
       * macro's body, not something to evaluate at the op (sitehomes.c) */
      if (in_array && !array_ok) continue;
      /* a pointer a cuBLASLt matmul descriptor carries (its bias, its
       * epilogue's aux buffer: opsites.c, Note [cublasLt descriptors]): the
       * library touches it although no argument names it, so it is declared
       * as written where it was set, once per text, read and written,
       * never exact */
      int in_desc = a->arg < 0 && a->param && (!strcmp(a->param, "bias") || !strcmp(a->param, "aux"));
      if (in_desc && declared(x, a->ptr_local)) {
        widen(x, &alts, a, 1);
        continue;
      }
      if (in_array && declared(x, a->ptr_local)) continue;
      if (!in_array && !in_desc && a->arg >= 0 && a->arg < nargs && covered[a->arg] &&
          declared(x, a->ptr_local)) {
        widen(x, &alts, a, 0); /* Note [paths that disagree] */
        continue;
      }
      /* a struct argument declares one access per pointer field (opsites.c) */
      if (!in_array && !in_desc && (a->arg < 0 || a->arg >= nargs)) continue;
      char *bytes = sym_is_unknown(a->bytes_local) ? NULL : sym_to_c(a->bytes_local);
      if (bytes && !text_ok(bytes)) {
        free(bytes);
        continue;
      }
      if (!in_array && !in_desc) covered[a->arg] = 1;
      const char *why = "the analysis found no bound for this access";
      if (ki)
        for (int p = 0; p < ki->n_params; p++)
          if (a->param && !strcmp(ki->params[p].name, a->param) && ki->params[p].why)
            why = ki->params[p].why;
      if (!ki && !bytes) {
        const char *lw = libcall_unknown_why(op->callee, a->arg);
        why = lw ? lw : "the library-call model gives no bound for this argument";
      }
      /* the same text may be read by one call's epilogue and written by
       * another's (BIAS, then BGRADB): declared once, read and written */
      int n0 = x->site->n_acc;
      add_acc(x, a->arg, a->ptr_local, bytes, in_desc ? ACCESS_READWRITE : a->mode,
              !in_desc && exact_on_every_path(x->g, ops, n_ops, a->arg), why);
      if (in_array && x->site->n_acc > n0)
        x->site->acc[n0].array_param = pointer_param(ki, a->param);
    }
  }
  apply_alts(x, &alts);
}

/* NULL, nullptr or 0 written as a pointer argument (an optional input left
 * out): not an access, never declared (tidal_op_begin would reject it).
 * Under implicit conversions, parentheses and explicit casts, however many
 * children the cast's type spells (`(P<1, ..., 8>)0`: a TemplateRef and
 * eight arguments before the operand).  An UnexposedExpr with several
 * children is an expression of its own: GNU `p ?: 0` ends in a 0 and is p. */
static int null_constant(CXCursor a) {
  a = cursor_strip_casts(a);
  enum CXCursorKind k = clang_getCursorKind(a);
  if (k == CXCursor_GNUNullExpr || k == CXCursor_CXXNullPtrLiteralExpr) return 1;
  int64_t v;
  return k == CXCursor_IntegerLiteral && cursor_eval_int(a, &v) && v == 0;
}

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

/* An integer expression at an op site: its constant value, else its text
 * parsed as a symbolic expression; unknown when neither works. */
static sym *local_int(acc_ctx *x, CXCursor e) {
  sym_arena *a = x->t->arena;
  if (clang_Cursor_isNull(e) || clang_getCursorType(e).kind == CXType_Pointer) return sym_unknown(a);
  sym *r = NULL;
  int64_t c;
  if (cursor_eval_int(e, &c)) r = sym_const(a, c);
  if (!r) {
    char *t = site_arg_text(x->t, e);
    r = t ? sym_parse(a, t) : NULL;
    free(t);
  }
  return r ? r : sym_unknown(a);
}

static void not_declared(acc_ctx *x, CXCursor call, int arg, const char *callee, const char *text) {
  /* never silently: the runtime cannot see this access */
  char msg[256];
  snprintf(msg, sizeof msg, "argument %d of %s ('%.80s') is not declared to the runtime: "
           "its text holds a call tidal does not evaluate again at the op", arg, callee,
           text ? text : "");
  note(x, call, msg);
}

/* Note [accesses at a site]: the accesses of the arguments no graph op
 * covered, from the call's own texts: kernel parameter extents with the
 * launch's argument texts substituted, or the library-call model over the
 * argument texts. */
static void text_accesses(acc_ctx *x, CXCursor call, const char *callee, const kernel_info *ki,
                          const char *covered) {
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
    args[i] = site_arg_text(x->t, a);
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
          null_constant(clang_Cursor_getArgument(call, (unsigned)p)))
        continue;
      if (!text_ok(args[p])) {
        not_declared(x, call, p, callee, args[p]);
        continue;
      }
      char *bytes = NULL;
      const char *why = kp->why ? kp->why : "the kernel's index range is not bounded";
      if (!sym_is_unknown(kp->extent) && kp->elem_bytes > 0) {
        sym *ext = sym_subst(x->t->arena, kp->extent, param_lookup, &u);
        sym *b = sym_mul(x->t->arena, ext, sym_const(x->t->arena, kp->elem_bytes));
        bytes = sym_is_unknown(b) ? NULL : sym_to_c(b);
      } else if (kp->elem_bytes <= 0) {
        why = "the pointee size is unknown (void, incomplete or template-dependent type)";
      }
      /* as the graph's op sites (opsites.c) decide it, symbolically only */
      int exact = kp->mode == ACCESS_WRITE && iv &&
                  kernels_launch_covers(x->t->arena, ki, kp, iv, grid, block, NULL, NULL);
      add_acc(x, p, args[p], bytes, kp->mode, exact, why);
    }
    free(iv);
  } else {
    libcall_access acc[MAX_LIB_ACCESSES];
    libcall_env env = {x->t->arena, NULL, NULL, NULL, NULL};
    int n = libcall_accesses(callee, largs, nargs, &env, acc, MAX_LIB_ACCESSES);
    for (int i = 0; i < n && i < MAX_LIB_ACCESSES; i++) {
      if (acc[i].arg < 0 || acc[i].arg >= nargs || covered[acc[i].arg] ||
          null_constant(clang_Cursor_getArgument(call, (unsigned)acc[i].arg)))
        continue;
      if (!text_ok(args[acc[i].arg])) {
        not_declared(x, call, acc[i].arg, callee, args[acc[i].arg]);
        continue;
      }
      char *bytes = sym_is_unknown(acc[i].bytes) ? NULL : sym_to_c(acc[i].bytes);
      const char *lw = libcall_unknown_why(callee, acc[i].arg);
      add_acc(x, acc[i].arg, args[acc[i].arg], bytes, acc[i].mode, acc[i].exact,
              lw ? "its size comes from a descriptor, whose sizes are only tracked for ops "
                   "the training loop reaches"
                 : "the library-call model gives no bound for this argument");
    }
  }
out:
  if (args)
    for (int i = 0; i < nargs; i++) free(args[i]);
  free(args);
  free(largs);
}

/* cudaLaunchKernel(func, grid, block, args, shmem, stream) outside what the
 * training loop reaches: each pointer parameter of the kernel as the
 * element of `args` holding its address, `*(T **)(args)[i]` (as opsites.c
 * names it), of unknown extent - the array's contents are only followed by
 * the interpreter.  (A struct parameter's pointer fields are declared only
 * for launches the loop reaches.) */
static void array_text_accesses(acc_ctx *x, CXCursor call, const char *callee,
                                const kernel_info *ki, const char *why) {
  if (!ki || clang_Cursor_getNumArguments(call) < 4) return;
  char *arr = site_stmt_text(x->t, x->site, clang_Cursor_getArgument(call, 3));
  if (!text_ok(arr)) { /* (a macro's body: siteacc_add said so) */
    if (arr) not_declared(x, call, 3, callee, arr);
    free(arr);
    return;
  }
  for (int p = 0; p < ki->n_params; p++) {
    const kernel_param *kp = &ki->params[p];
    if (!kp->is_pointer || kp->mode == ACCESS_NONE) continue;
    size_t n = strlen(arr) + (kp->elem_type ? strlen(kp->elem_type) : 4) + 32;
    char *ptr = malloc(n);
    if (!ptr) {
      x->oom = 1;
      break;
    }
    snprintf(ptr, n, "*(%s **)(%s)[%d]", kp->elem_type ? kp->elem_type : "void", arr, p);
    if (!declared(x, ptr)) {
      add_acc(x, -1, ptr, NULL, kp->mode, 0, why);
      if (!x->oom) x->site->acc[x->site->n_acc - 1].array_param = p;
    }
    free(ptr);
  }
  free(arr);
}

/* 1 if the site declares an access through cudaLaunchKernel's argument
 * array for this op call. */
static int array_declared(const acc_ctx *x) {
  for (int i = 0; i < x->site->n_acc; i++)
    if (x->site->acc[i].call == x->call && x->site->acc[i].arg < 0) return 1;
  return 0;
}

int siteacc_add(pass_tu *t, const graph *g, graph_site *site, int call_index, CXCursor call,
                const char *callee, const kernel_info *ki, const int *ops, int n_ops,
                unsigned flags, graph_file *f) {
  acc_ctx x = {t, g, site, call_index, flags, f, 0};
  int nargs = clang_Cursor_getNumArguments(call);
  char *covered = calloc((size_t)(nargs > 0 ? nargs : 0) + 1, 1);
  if (!covered) return -1;
  /* a call in a template: the graph ops' texts are the instantiations'
   * the interpreter walked, with sizeof(T) folded (`4*n` for float), which
   * need not hold for another (Note [op calls in templates], sites.c); the
   * call's own texts hold for every one */
  int from_graph = !(flags & SITEACC_DEPENDENT);
  int array_ok = 1;
  if ((flags & SITEACC_ARGS_ARRAY) && nargs >= 4) {
    char *arr = site_stmt_text(t, site, clang_Cursor_getArgument(call, 3));
    array_ok = arr != NULL;
    free(arr);
  }
  if (from_graph) graph_accesses(&x, ops, n_ops, covered, nargs, array_ok);
  if (flags & SITEACC_ARGS_ARRAY) {
    if (!array_ok)
      note(&x, call, "cudaLaunchKernel's argument array is written in a macro's body: the "
                     "accesses through it are not declared to the runtime");
    else if (n_ops == 0 || !from_graph)
      array_text_accesses(&x, call, callee, ki,
                          "cudaLaunchKernel's argument array is only followed for launches the "
                          "training loop reaches");
    else if (!array_declared(&x)) /* the interpreter could not follow the array (opsites.c) */
      array_text_accesses(&x, call, callee, ki,
                          "the analysis could not follow cudaLaunchKernel's argument array");
  } else {
    text_accesses(&x, call, callee, ki, covered);
  }
  free(covered);
  return x.oom ? -1 : 0;
}

/* ---- arguments as written ---- */

/* The expansion range of c in the main file; 0 if it is not one there. */
static int range_of(const pass_tu *t, CXCursor c, unsigned *b, unsigned *e) {
  CXSourceRange r = clang_getCursorExtent(c);
  CXFile fb = NULL, fe = NULL;
  clang_getExpansionLocation(clang_getRangeStart(r), &fb, NULL, NULL, b);
  clang_getExpansionLocation(clang_getRangeEnd(r), &fe, NULL, NULL, e);
  return fb && fe && t->main_file && clang_File_isEqual(fb, t->main_file) &&
         clang_File_isEqual(fe, t->main_file) && *b < *e && *e <= t->main_size;
}

/* The expression as written: implicit conversions (same extent) removed,
 * the implicit dim3 construction of a launch's integer grid among them
 * (its other arguments are defaults, with no extent). */
static CXCursor written(const pass_tu *t, CXCursor e) {
  unsigned b0, e0, b, en;
  if (!range_of(t, e, &b0, &e0)) return e;
  for (int depth = 0; depth < 16; depth++) {
    CXCursor next = clang_getNullCursor();
    if (clang_getCursorKind(e) == CXCursor_CallExpr && clang_Cursor_getNumArguments(e) >= 1) {
      next = clang_Cursor_getArgument(e, 0);
    } else {
      CXCursor ch[1];
      if (cursor_children(e, ch, 1) == 1) next = ch[0];
    }
    if (clang_Cursor_isNull(next) || !clang_isExpression(clang_getCursorKind(next)) ||
        !range_of(t, next, &b, &en) || b != b0 || en != e0)
      return e;
    e = next;
  }
  return e;
}

static int is_integer(CXType ty) {
  ty = clang_getCanonicalType(ty);
  return (ty.kind >= CXType_Bool && ty.kind <= CXType_Int128 && ty.kind != CXType_Char16 &&
          ty.kind != CXType_Char32) ||
         ty.kind == CXType_Enum;
}

/* graph_site_arg.pure: 1 if evaluating e once per use instead of once is
 * the same - no call (but a POD copy), no assignment, increment or other
 * side effect (rewrite_split.c, Note [split launch], relies on it). */
static enum CXChildVisitResult pure_visitor(CXCursor c, CXCursor parent, CXClientData d) {
  (void)parent;
  int *ok = d;
  switch (clang_getCursorKind(c)) {
  case CXCursor_DeclRefExpr:
  case CXCursor_MemberRefExpr:
  case CXCursor_IntegerLiteral:
  case CXCursor_FloatingLiteral:
  case CXCursor_ImaginaryLiteral:
  case CXCursor_CharacterLiteral:
  case CXCursor_StringLiteral:
  case CXCursor_CXXBoolLiteralExpr:
  case CXCursor_CXXNullPtrLiteralExpr:
  case CXCursor_GNUNullExpr:
  case CXCursor_CXXThisExpr:
  case CXCursor_ParenExpr:
  case CXCursor_UnexposedExpr: /* implicit conversions, default arguments */
  case CXCursor_CStyleCastExpr:
  case CXCursor_CXXStaticCastExpr:
  case CXCursor_CXXReinterpretCastExpr:
  case CXCursor_CXXConstCastExpr:
  case CXCursor_CXXFunctionalCastExpr:
  case CXCursor_ConditionalOperator:
  case CXCursor_ArraySubscriptExpr:
  case CXCursor_UnaryExpr: /* sizeof, alignof */
  case CXCursor_TypeRef:
  case CXCursor_TemplateRef:
  case CXCursor_NamespaceRef:
  case CXCursor_MemberRef:
    return CXChildVisit_Recurse;
  case CXCursor_UnaryOperator: {
    enum CXUnaryOperatorKind k = clang_getCursorUnaryOperatorKind(c);
    if (k == CXUnaryOperator_PostInc || k == CXUnaryOperator_PostDec ||
        k == CXUnaryOperator_PreInc || k == CXUnaryOperator_PreDec || k == CXUnaryOperator_Coawait)
      break;
    return CXChildVisit_Recurse;
  }
  case CXCursor_BinaryOperator: {
    enum CXBinaryOperatorKind k = clang_getCursorBinaryOperatorKind(c);
    if (k >= CXBinaryOperator_Assign && k <= CXBinaryOperator_OrAssign) break;
    return CXChildVisit_Recurse;
  }
  case CXCursor_CallExpr: {
    /* a struct argument passed by value is copied by its constructor: a
     * plain copy of a POD is no call */
    CXCursor ref = clang_getCursorReferenced(c);
    if (clang_getCursorKind(ref) == CXCursor_Constructor &&
        (clang_CXXConstructor_isCopyConstructor(ref) ||
         clang_CXXConstructor_isMoveConstructor(ref)) &&
        clang_isPODType(clang_getCursorType(c)))
      return CXChildVisit_Recurse;
    break;
  }
  default:
    break;
  }
  *ok = 0;
  return CXChildVisit_Break;
}

static int pure_expr(CXCursor e) {
  int ok = 1;
  pure_visitor(e, clang_getNullCursor(), &ok);
  if (ok) clang_visitChildren(e, pure_visitor, &ok);
  return ok;
}

int site_pure(CXCursor e) { return pure_expr(e); }

/* The configuration call (__cudaPushCallConfiguration / cudaConfigureCall)
 * of a <<<...>>> launch, or a null cursor. */
static CXCursor config_call(CXCursor call) {
  CXCursor ch[3]; /* the configuration call comes before the arguments */
  int nch = cursor_children(call, ch, 3);
  for (int i = 0; i < nch && i < 3; i++) {
    CXCursor c = cursor_strip(ch[i]);
    if (clang_getCursorKind(c) != CXCursor_CallExpr) continue;
    char *n = string_and_dispose(clang_getCursorSpelling(c));
    int is_cfg = n && (strstr(n, "PushCallConfiguration") || !strcmp(n, "cudaConfigureCall"));
    free(n);
    if (is_cfg) return c;
  }
  return clang_getNullCursor();
}

/* Skips whitespace and comments from off in direction dir (+1 / -1);
 * returns the offset of the next significant byte (dir -1: one past it). */
static unsigned skip_space(const char *src, size_t n, unsigned off, int dir) {
  if (dir > 0) {
    while (off < n) {
      if (strchr(" \t\r\n", src[off]))
        off++;
      else if (off + 1 < n && src[off] == '/' && src[off + 1] == '*') {
        const char *e = strstr(src + off + 2, "*/");
        off = e ? (unsigned)(e - src) + 2 : (unsigned)n;
      } else
        break;
    }
    return off;
  }
  while (off > 0) {
    if (strchr(" \t\r\n", src[off - 1]))
      off--;
    else if (off >= 2 && src[off - 1] == '/' && src[off - 2] == '*') {
      off -= 2;
      while (off >= 2 && !(src[off - 2] == '/' && src[off - 1] == '*'))
        off--;
      off = off >= 2 ? off - 2 : 0;
    } else
      break;
  }
  return off;
}

/* 1 if [b, e) is one whole argument as written: an opening bracket or
 * comma before it, a comma or closing bracket after it (not a piece of a
 * macro that expands to several arguments). */
static int whole_arg(const pass_tu *t, unsigned b, unsigned e) {
  unsigned p = skip_space(t->main_source, t->main_size, b, -1);
  unsigned q = skip_space(t->main_source, t->main_size, e, +1);
  return p > 0 && q < t->main_size && strchr("(,<", t->main_source[p - 1]) &&
         strchr(",)>", t->main_source[q]);
}

static char *type_spelling(CXType ty) {
  return string_and_dispose(clang_getTypeSpelling(clang_getCanonicalType(ty)));
}

/* ---- pointer values an argument carries (Note [relocatable allocations]) ---- */

typedef struct fields_ctx {
  int depth;
  int found;
} fields_ctx;

static int type_holds_ptrs_d(CXType ty, int depth);

static enum CXVisitorResult field_visitor(CXCursor c, CXClientData d) {
  fields_ctx *x = d;
  if (type_holds_ptrs_d(clang_getCursorType(c), x->depth + 1)) {
    x->found = 1;
    return CXVisit_Break;
  }
  return CXVisit_Continue;
}

/* 1 if a value of type ty is or contains a pointer (an array of them, a
 * record with a pointer field, at any depth up to 6); an opaque (incomplete)
 * record holds none the program can see. */
static int type_holds_ptrs_d(CXType ty, int depth) {
  ty = clang_getCanonicalType(ty);
  if (depth > 6) return 0;
  switch (ty.kind) {
  case CXType_Pointer:
    return clang_getCanonicalType(clang_getPointeeType(ty)).kind != CXType_FunctionProto &&
           clang_getCanonicalType(clang_getPointeeType(ty)).kind != CXType_FunctionNoProto;
  case CXType_ConstantArray:
  case CXType_IncompleteArray:
  case CXType_VariableArray:
  case CXType_DependentSizedArray:
    return type_holds_ptrs_d(clang_getArrayElementType(ty), depth + 1);
  case CXType_Record: {
    fields_ctx x = {depth, 0};
    clang_Type_visitFields(ty, field_visitor, &x);
    return x.found;
  }
  default:
    return 0;
  }
}

int site_type_holds_ptrs(CXType ty) { return type_holds_ptrs_d(ty, 0); }

int site_points_to_ptrs(CXType ty) {
  ty = clang_getCanonicalType(ty);
  CXType pe = ty.kind == CXType_Pointer ? clang_getPointeeType(ty) : clang_getArrayElementType(ty);
  return pe.kind != CXType_Invalid && type_holds_ptrs_d(pe, 1);
}

int site_opaque_ptr(CXType ty) {
  ty = clang_getCanonicalType(ty);
  if (ty.kind != CXType_Pointer) return 0;
  CXType pe = clang_getCanonicalType(clang_getPointeeType(ty));
  if (pe.kind == CXType_FunctionProto || pe.kind == CXType_FunctionNoProto) return 1;
  return pe.kind == CXType_Record && clang_Type_getSizeOf(pe) < 0; /* incomplete: a handle */
}

CXCursor site_addr_of(CXCursor a) {
  CXCursor e = cursor_strip_casts(a), ch[4];
  if (clang_getCursorKind(e) == CXCursor_UnaryOperator &&
      clang_getCursorUnaryOperatorKind(e) == CXUnaryOperator_AddrOf && cursor_children(e, ch, 4) == 1)
    return cursor_strip(ch[0]);
  return clang_getNullCursor();
}

/* 1 if src[b, e) is one expression as far as brackets and commas tell:
 * balanced, no comma outside them.  A range whose two ends are spelled in
 * two arguments of one macro (`OFF(p, 3)` expanding to `p + 3`) is not. */
static int one_expression(const char *src, unsigned b, unsigned e) {
  int depth = 0;
  for (unsigned i = b; i < e; i++) {
    char c = src[i];
    if (c == '(' || c == '[' || c == '{') depth++;
    else if (c == ')' || c == ']' || c == '}') {
      if (--depth < 0) return 0;
    } else if (c == ',' && depth == 0)
      return 0;
  }
  return depth == 0;
}

/* One argument a (a configuration argument when config: its type is the
 * written expression's). */
static int fill_arg(const pass_tu *t, CXCursor a, int config, graph_site_arg *out) {
  memset(out, 0, sizeof *out);
  CXCursor w = written(t, a);
  out->in_file = range_of(t, w, &out->begin, &out->end);
  if (!out->in_file) out->begin = out->end = 0;
  out->whole = out->in_file && whole_arg(t, out->begin, out->end);
  char *spelled = site_expr_text(t, w, &out->spell_begin, &out->spell_end);
  out->spelled = spelled != NULL;
  free(spelled);
  CXType ty = clang_getCursorType(config ? w : a);
  out->type = type_spelling(ty);
  out->pointer = clang_getCanonicalType(ty).kind == CXType_Pointer;
  out->integer = is_integer(ty);
  CXType wt = clang_getCanonicalType(clang_getCursorType(w));
  CXType pe = wt.kind == CXType_Pointer ? clang_getPointeeType(wt) : clang_getArrayElementType(wt);
  long long sz = pe.kind == CXType_Invalid ? -1 : clang_Type_getSizeOf(pe);
  out->pointee_bytes = sz > 0 && sz <= 0x7fffffff ? (int)sz : -1;
  out->null_const = out->pointer && null_constant(a);
  out->pure = pure_expr(a);
  out->text = frontend_cursor_text(t, a);
  if (out->in_file && out->whole) {
    out->wrappable = 1;
    out->wrap_begin = out->begin;
    out->wrap_end = out->end;
  } else if (out->spelled && one_expression(t->main_source, out->spell_begin, out->spell_end)) {
    out->wrappable = 1;
    out->wrap_begin = out->spell_begin;
    out->wrap_end = out->spell_end;
  }
  if (!config && out->pointer && !out->null_const) {
    CXCursor x = site_addr_of(a);
    /* `&X`: what X holds escapes; else what the written pointer points to */
    out->holds_ptrs = clang_Cursor_isNull(x) ? site_points_to_ptrs(wt)
                                             : site_type_holds_ptrs(clang_getCursorType(x));
    if (out->holds_ptrs && !clang_Cursor_isNull(x) &&
        clang_getCanonicalType(clang_getCursorType(x)).kind == CXType_Pointer && pure_expr(x) &&
        !site_points_to_ptrs(clang_getCursorType(x)))
      out->home_text = site_arg_text(t, x);
  }
  return out->type && out->text ? 0 : -1;
}

/* Links each argument to the accesses of the first op call through it. */
static int link_args(graph_site *site) {
  for (int i = 0; i < site->n_acc; i++) {
    const graph_site_access *ac = &site->acc[i];
    if (ac->call != 0 || ac->arg < 0 || ac->arg >= site->n_args) continue;
    graph_site_arg *a = &site->args[ac->arg];
    int *v = realloc(a->acc, (size_t)(a->n_acc + 1) * sizeof *v);
    if (!v) return -1;
    a->acc = v;
    a->acc[a->n_acc++] = i;
  }
  return 0;
}

int siteacc_args(pass_tu *t, graph_site *site, CXCursor stmt, CXCursor call) {
  int n = clang_Cursor_getNumArguments(call);
  if (n > 0) {
    site->args = calloc((size_t)n, sizeof *site->args);
    if (!site->args) return -1;
    site->n_args = n;
    for (int i = 0; i < n; i++)
      if (fill_arg(t, clang_Cursor_getArgument(call, (unsigned)i), 0, &site->args[i]) != 0)
        return -1;
  }
  CXCursor cfg = site->kind == GRAPH_OP_LAUNCH ? config_call(call) : clang_getNullCursor();
  int nc = clang_Cursor_isNull(cfg) ? 0 : clang_Cursor_getNumArguments(cfg);
  if (nc > 0) {
    site->config = calloc((size_t)nc, sizeof *site->config);
    if (!site->config) return -1;
    site->n_config = nc;
    for (int i = 0; i < nc; i++)
      if (fill_arg(t, clang_Cursor_getArgument(cfg, (unsigned)i), 1, &site->config[i]) != 0)
        return -1;
  }
  site->call_in_file = range_of(t, call, &site->call_begin, &site->call_end);
  if (!site->call_in_file) site->call_begin = site->call_end = 0;
  CXFile sf = NULL;
  unsigned so = 0;
  clang_getSpellingLocation(clang_getRangeStart(clang_getCursorExtent(call)), &sf, NULL, NULL, &so);
  site->call_spelled =
      site->call_in_file && sf && clang_File_isEqual(sf, t->main_file) && so == site->call_begin;
  site->call_spell_in_file = sf && clang_File_isEqual(sf, t->main_file);
  site->call_spell = site->call_spell_in_file ? so : 0;
  unsigned sb, se;
  site->call_is_stmt = clang_equalCursors(cursor_strip(stmt), call) && range_of(t, stmt, &sb, &se) &&
                       sb == site->stmt_begin && site->call_in_file;
  return link_args(site);
}
