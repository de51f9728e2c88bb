/* kernels.c - what each __global__ kernel does to its pointer parameters.
 *
 * One abstract interpretation of the kernel body, in program order, with
 * __device__ helpers analysed inline at each call (their parameters bound
 * to the caller's argument values, so extents stay exact through helpers).
 * Note [values]: every integer expression is read as an affine form
 *   k + sum(coef_i * v_i)
 * where k and coef_i are symbolic over the kernel's parameters and each v_i
 * is a "base variable": a thread/block index, a loop variable, a local
 * bounded by a guard, or an opaque value.  Base variables carry an
 * exclusive upper bound (from `if (i < N)`, `if (i >= N) return;`, loop
 * conditions, `x % M`, `x / M`) and whether they are known >= 0.
 * Note [extents]: an access through pointer parameter p at byte offset
 * off (affine) of len bytes touches [min(off), max(off) + len); the extent
 * is max(off)+len over the parameter's element size, kept only if min(off)
 * is provably >= 0 and every variable is bounded - otherwise `unknown`
 * with the reason.  Names (kernel parameters) are assumed >= 0: they are
 * sizes and counts.
 * Note [conservative]: anything not understood degrades to "readwrite,
 * unknown extent" (a pointer that escapes, a call with no body) or to an
 * unbounded variable - never to a smaller extent or a weaker mode.
 * Note [dense]: a written parameter is dense - every element of
 * [0, extent) is overwritten - only when one store proves it: the store
 * (a plain `p[idx] = v` or `*q = v` of whole elements, in the kernel body,
 * not a helper) runs under no condition but bound guards (`if (v < E)`,
 * `if (v >= E) return;`, recognised loops) with no earlier early exit,
 * and its byte offset is a mixed-radix number over exactly the guarded
 * "covering" variables: sum(coef_i * v_i) with the smallest coefficient
 * the store's size and each next one the previous times its variable's
 * bound.  Covering variables (base_var.cover) are:
 *   - blockIdx.x*blockDim.x + threadIdx.x guarded by E: every value of
 *     [0, E) if the launch has grid.x*block.x >= E (threads_needed E);
 *   - blockIdx.x guarded by E: [0, E) if grid.x >= E (blocks_needed E);
 *   - a loop variable of `for (v = 0; v < E; v++)`, of a grid-stride loop
 *     `for (v = <global thread index>; v < E; v += blockDim.x*gridDim.x)`
 *     or of a block loop `for (v = threadIdx.x; v < E; v += blockDim.x)`:
 *     every value of [0, E) for any launch.
 * E must be over parameters only.  A store inside any other conditional
 * (data-dependent if, switch, ?:, &&, while, other loops), after a
 * return/break/continue that is not a bound guard, or through atomics,
 * member fields or indices read from memory proves nothing.  Anything not
 * understood leaves the parameter not dense: the runtime then keeps its old
 * bytes (docs/pass-frontend.md).
 * Memory: the environment and the base-variable table live for one
 * kernel; symbolic expressions live in the TU's arena.
 *
 * The analysis is split by topic, the pieces sharing kernels_impl.h:
 *   kernels.c         this overview; recorded accesses (Note [extents]),
 *                     one kernel's analysis, the table of kernels
 *   kernels_value.c   affine values, base variables, the environment
 *   kernels_expr.c    expressions: integers, pointers, loads and stores
 *   kernels_call.c    calls: __device__ helpers inline, methods, atomics
 *   kernels_guard.c   guards narrowing values, covering paths
 *   kernels_stmt.c    statements: blocks, declarations, loops
 *   kernels_launch.c  a launch's grid and block, dense-write coverage */
#include <stdlib.h>
#include <string.h>

#include "analysis/kernels_impl.h"
#include "base/diag.h"
#include "base/stack.h"
#include "analysis/split.h"

const char *access_mode_name(access_mode m) {
  switch (m) {
  case ACCESS_READ: return "read";
  case ACCESS_WRITE: return "write";
  case ACCESS_READWRITE: return "readwrite";
  default: return "none";
  }
}

/* y <= x for every value of the names (x may be a max of several). */
int ka_dominates(kctx *c, const sym *x, sym *y) {
  if (sym_nonneg(sym_sub(c->a, (sym *)x, y))) return 1;
  if (sym_get_kind(x) == SYM_MAX)
    return ka_dominates(c, sym_lhs(x), y) || ka_dominates(c, sym_rhs(x), y);
  return 0;
}

static sym *extent_max(kctx *c, sym *x, sym *y) {
  if (ka_dominates(c, x, y)) return x;
  if (ka_dominates(c, y, x)) return y;
  return sym_max(c->a, x, y);
}

static void set_unknown(kctx *c, int p, const char *why) {
  param_state *ps = &c->ps[p];
  ps->extent = sym_unknown(c->a);
  if (!ps->why) ps->why = strdup(why);
}

void ka_record(kctx *c, ptrval p, unsigned mode, int len_bytes, const char *why_unknown) {
  if (mode & ACCESS_READ) c->n_loads++;
  if (p.param < 0 || p.param >= c->n_params) return;
  param_state *ps = &c->ps[p.param];
  ps->mode |= mode;
  if (ps->extent && sym_is_unknown(ps->extent)) return;
  int eb = c->param_elem_bytes[p.param];
  if (why_unknown) return set_unknown(c, p.param, why_unknown);
  if (eb <= 0) return set_unknown(c, p.param, "element size unknown (void, incomplete or template-dependent type)");
  if (len_bytes <= 0) return set_unknown(c, p.param, "access size unknown");
  if (!p.off.ok)
    return set_unknown(c, p.param,
                       "index is not affine in thread indices, loop variables and parameters");
  sym *mx = ka_lin_max(c, p.off);
  if (!mx) {
    for (int i = 0; i < p.off.n; i++) {
      const base_var *v = &c->vars[p.off.var[i]];
      if (v->data && !v->bound && !v->lbound)
        return set_unknown(c, p.param, "index depends on a value read from memory");
    }
    return set_unknown(c, p.param, "index not bounded by a guard or loop condition");
  }
  if (!ka_lin_nonneg(c, p.off)) return set_unknown(c, p.param, "index may be negative");
  sym *end = sym_add(c->a, mx, sym_const(c->a, len_bytes));
  sym *elems = sym_div_exact(c->a, end, sym_const(c->a, eb));
  if (!elems)
    elems = sym_div(c->a, sym_add(c->a, end, sym_const(c->a, eb - 1)), sym_const(c->a, eb));
  if (sym_is_unknown(elems)) return set_unknown(c, p.param, "extent overflow");
  ps->extent = ps->extent ? extent_max(c, ps->extent, elems) : elems;
}

/* A whole-element store of len bytes at p: remembered as a covering store
 * if it proves every byte of a prefix written (Note [dense]). */
void ka_note_cover(kctx *c, ptrval p, int len) {
  if (p.param < 0 || p.param >= c->n_params || len <= 0 || !p.off.ok) return;
  if (c->cond || c->ctl_unsafe || c->depth || c->n_path > PATH_MAX_VARS) return;
  int64_t k;
  if (!sym_get_const(p.off.k, &k) || k != 0) return;
  /* the offset's variables are exactly the guarded covering ones: each
   * guard restricts a variable the index runs over */
  if (p.off.n != c->n_path) return;
  for (int i = 0; i < p.off.n; i++) {
    int in_path = 0;
    for (int j = 0; j < c->n_path; j++) in_path |= c->path[j] == p.off.var[i];
    const base_var *v = &c->vars[p.off.var[i]];
    if (!in_path || !v->bound || !v->nonneg ||
        (v->cover != COV_ALL && v->cover != COV_THREADS && v->cover != COV_BLOCKS))
      return;
  }
  /* mixed radix: coefficients len, len*b1, len*b1*b2, ... */
  cover_cand cc = {sym_const(c->a, len), NULL, NULL};
  int used[LIN_MAX_TERMS] = {0};
  for (int n = 0; n < p.off.n; n++) {
    int j;
    for (j = 0; j < p.off.n && (used[j] || !sym_equal(p.off.coef[j], cc.bytes)); j++) {}
    if (j == p.off.n) return;
    used[j] = 1;
    const base_var *v = &c->vars[p.off.var[j]];
    if (v->cover != COV_ALL) {
      if (cc.threads || cc.blocks) return; /* one launch condition at most */
      if (v->cover == COV_THREADS) cc.threads = v->bound;
      else cc.blocks = v->bound;
    }
    cc.bytes = sym_mul(c->a, cc.bytes, v->bound);
  }
  if (sym_is_unknown(cc.bytes)) return;
  param_state *ps = &c->ps[p.param];
  if (ps->n_cand < COVER_MAX_CANDS) ps->cand[ps->n_cand++] = cc;
}

/* A pointer we cannot follow (stored, passed to code without a body). */
void ka_escape(kctx *c, ptrval p, unsigned mode, const char *why) {
  if (p.param < 0) return;
  ka_record(c, p, mode, 0, why);
}

static enum CXChildVisitResult attr_visitor(CXCursor cur, CXCursor parent, CXClientData d) {
  unsigned *bits = d;
  if (clang_getCursorKind(cur) == CXCursor_CUDAGlobalAttr) *bits |= 1;
  return CXChildVisit_Continue;
}

static int is_global(CXCursor f) {
  unsigned bits = 0;
  clang_visitChildren(f, attr_visitor, &bits);
  return bits & 1;
}

static char *elem_type_name(CXType t) {
  CXType p = clang_getPointeeType(t);
  p = clang_getUnqualifiedType(p);
  return string_and_dispose(clang_getTypeSpelling(p));
}

static int analyze_kernel(pass_tu *t, CXCursor f, kernel_info *ki) {
  memset(ki, 0, sizeof *ki);
  ki->name = string_and_dispose(clang_getCursorSpelling(f));
  ki->usr = string_and_dispose(clang_getCursorUSR(f));
  CXFile file;
  unsigned line;
  clang_getSpellingLocation(clang_getCursorLocation(f), &file, &line, NULL, NULL);
  ki->file = file ? string_and_dispose(clang_getFileName(file)) : strdup("");
  ki->line = line;
  ki->has_body = clang_isCursorDefinition(f);
  CXCursor *parms;
  int np = cursor_fn_params(f, &parms);
  if (np < 0) return -1;
  ki->n_params = np;
  ki->params = calloc((size_t)(np ? np : 1), sizeof *ki->params);
  int *eb = calloc((size_t)(np ? np : 1), sizeof *eb);
  kctx c;
  memset(&c, 0, sizeof c);
  c.t = t;
  c.a = t->arena;
  c.n_params = np;
  c.ps = calloc((size_t)(np ? np : 1), sizeof *c.ps);
  c.param_elem_bytes = eb;
  if (!ki->name || !ki->usr || !ki->file || !ki->params || !eb || !c.ps) {
    free(eb);
    free(c.ps);
    free(parms);
    return -1;
  }
  for (int i = 0; i < np; i++) {
    CXCursor p = parms[i];
    CXType pt = clang_getCursorType(p);
    kernel_param *kp = &ki->params[i];
    kp->name = string_and_dispose(clang_getCursorSpelling(p));
    kp->is_pointer = cursor_is_pointer_type(pt);
    if (kp->is_pointer) {
      kp->elem_type = elem_type_name(pt);
      kp->elem_bytes = eb[i] = cursor_pointee_bytes(pt);
      if (kp->elem_type && strstr(kp->elem_type, "curandState")) c.flags |= KERNEL_RNG;
      ptrval pv;
      pv.param = i;
      pv.off = ka_lin_const(&c, sym_const(c.a, 0));
      pv.elem_bytes = eb[i];
      ka_bind_ptr(&c, p, pv);
    } else {
      /* Scalars are names in the extents; Note [extents] assumes them >= 0. */
      ka_bind_int(&c, p,
                  cursor_is_integer_type(pt)
                      ? ka_lin_const(&c, sym_var(c.a, kp->name ? kp->name : "?"))
                      : ka_lin_opaque(&c, 0));
    }
  }
  free(parms);
  char **names = calloc((size_t)(np ? np : 1), sizeof *names);
  for (int i = 0; names && i < np; i++) names[i] = ki->params[i].name;
  c.param_names = names;
  if (ki->has_body) ka_visit_stmt(&c, cursor_fn_body(f));
  for (int i = 0; i < np; i++) {
    kernel_param *kp = &ki->params[i];
    if (!kp->is_pointer) {
      kp->mode = ACCESS_NONE;
      kp->extent = NULL;
      continue;
    }
    kp->mode = (access_mode)(c.ps[i].mode & 3u);
    if (!ki->has_body) {
      kp->mode = ACCESS_READWRITE;
      kp->extent = sym_unknown(c.a);
      kp->why = strdup("kernel has no body in this file");
    } else if (kp->mode == ACCESS_NONE) {
      kp->extent = sym_const(c.a, 0);
    } else {
      kp->extent = c.ps[i].extent ? c.ps[i].extent : sym_unknown(c.a);
      if (sym_is_unknown(kp->extent))
        kp->why = c.ps[i].why ? c.ps[i].why : strdup("unknown");
      else
        free(c.ps[i].why);
      c.ps[i].why = NULL;
    }
    free(c.ps[i].why);
    if (kp->mode == ACCESS_READWRITE) c.flags |= KERNEL_INPLACE;
    /* dense: a covering store reaches the whole extent; prefer one that
     * needs nothing of the launch (Note [dense]) */
    if (ki->has_body && kp->mode == ACCESS_WRITE && kp->elem_bytes > 0 &&
        !sym_is_unknown(kp->extent)) {
      sym *need = sym_mul(c.a, kp->extent, sym_const(c.a, kp->elem_bytes));
      const cover_cand *best = NULL;
      for (int j = 0; j < c.ps[i].n_cand; j++) {
        const cover_cand *cc = &c.ps[i].cand[j];
        sym *slack = sym_sub(c.a, cc->bytes, need);
        if (sym_is_unknown(slack) || !sym_nonneg(slack)) continue;
        if (!best || (!cc->threads && !cc->blocks)) best = cc;
      }
      if (best) {
        kp->dense = 1;
        kp->threads_needed = best->threads;
        kp->blocks_needed = best->blocks;
      }
    }
    /* over parameters only (Note [derived sizes]) */
    kp->extent = ka_unsize(&c, kp->extent);
    kp->threads_needed = ka_unsize(&c, kp->threads_needed);
    kp->blocks_needed = ka_unsize(&c, kp->blocks_needed);
  }
  ki->flags = c.flags;
  /* Note [elementwise split] (split.c): needs the modes, extents and flags */
  int rc = kernels_split_analyze(f, ki, c.a);
  free(c.ps);
  free(c.vars);
  free(c.env);
  free(c.trail);
  free(c.gsums);
  free(c.sizes);
  free(names);
  free(eb);
  return rc;
}

static void kernel_info_free(kernel_info *k);

typedef struct kcollect {
  pass_tu *t;
  kernel_table *kt;
  int err;
} kcollect;

static enum CXChildVisitResult kernel_visitor(CXCursor cur, CXCursor parent, CXClientData d) {
  kcollect *kc = d;
  enum CXCursorKind k = clang_getCursorKind(cur);
  if (clang_Location_isInSystemHeader(clang_getCursorLocation(cur))) return CXChildVisit_Continue;
  if (k == CXCursor_Namespace || k == CXCursor_LinkageSpec || k == CXCursor_UnexposedDecl)
    return CXChildVisit_Recurse;
  if ((k != CXCursor_FunctionDecl && k != CXCursor_FunctionTemplate) || !is_global(cur))
    return CXChildVisit_Continue;
  /* One entry per kernel: the definition if there is one, else the first declaration. */
  char *usr = string_and_dispose(clang_getCursorUSR(cur));
  int def = clang_isCursorDefinition(cur);
  for (int i = 0; i < kc->kt->n; i++)
    if (!strcmp(kc->kt->items[i].usr, usr)) {
      if (def && !kc->kt->items[i].has_body) {
        /* the definition after a declaration (a kernel declared in a
         * header): it replaces the bodiless entry */
        kernel_info fresh;
        if (analyze_kernel(kc->t, cur, &fresh) == 0) {
          kernel_info_free(&kc->kt->items[i]);
          kc->kt->items[i] = fresh;
        }
      }
      free(usr);
      return CXChildVisit_Continue;
    }
  free(usr);
  kernel_info *ni = realloc(kc->kt->items, sizeof *ni * (size_t)(kc->kt->n + 1));
  if (!ni) {
    kc->err = 1;
    return CXChildVisit_Break;
  }
  kc->kt->items = ni;
  if (analyze_kernel(kc->t, cur, &kc->kt->items[kc->kt->n]) != 0) {
    kc->err = 1;
    return CXChildVisit_Break;
  }
  kc->kt->n++;
  return CXChildVisit_Continue;
}

int kernels_analyze(pass_tu *t, kernel_table *out) {
  out->items = NULL;
  out->n = 0;
  kcollect kc = {t, out, 0};
  /* Every input of the program: a kernel defined in another .cu than its
   * launch is found there (one entry per USR, the definition preferred). */
  pass_tu *const *units;
  int n_units = program_units(t, &units);
  for (int u = 0; u < n_units && !kc.err; u++) {
    kc.t = units[u];
    clang_visitChildren(clang_getTranslationUnitCursor(units[u]->tu), kernel_visitor, &kc);
  }
  if (kc.err) {
    diag_error(t->main_path, 0, 0, "out of memory analysing kernels");
    return TIDAL_EXIT_INTERNAL;
  }
  /* A kernel too deep to walk has incomplete accesses: no result. */
  if (stack_exhausted()) return TIDAL_EXIT_BAD_INPUT;
  return TIDAL_EXIT_OK;
}

/* Note [launches in templates]: in a function template's body a launch
 * whose arguments depend on the template's parameters (`adamw_kernel3<<<g,
 * b>>>(params, ...)` in llm.c's adamw_update<Tp, Tg>) is a call libclang
 * resolves to nothing: no referenced declaration, an empty spelling.  Its
 * callee expression still names the kernel template (an overload set of
 * one), which is the entry in the table.  The op sites are found in
 * template bodies as written (graph/sites.c, Note [op calls in templates]),
 * so without this the launch was no op site: never instrumented, and never
 * said. */
CXCursor kernels_dependent_callee(CXCursor call) {
  if (clang_getCursorKind(call) != CXCursor_CallExpr) return clang_getNullCursor();
  CXCursor ch[1];
  CXCursor c = cursor_children(call, ch, 1) >= 1 ? ch[0] : clang_getNullCursor();
  for (int depth = 0; depth < 4 && !clang_Cursor_isNull(c); depth++) {
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_DeclRefExpr) { /* an unresolved name refers to its overload set */
      CXCursor r = clang_getCursorReferenced(c);
      if (clang_getCursorKind(r) == CXCursor_OverloadedDeclRef) c = r, k = CXCursor_OverloadedDeclRef;
      else if (!clang_Cursor_isNull(r)) return r;
    }
    if (k == CXCursor_OverloadedDeclRef)
      return clang_getNumOverloadedDecls(c) >= 1 ? clang_getOverloadedDecl(c, 0) : clang_getNullCursor();
    if (k != CXCursor_DeclRefExpr && k != CXCursor_UnexposedExpr) break;
    CXCursor g[2];
    c = cursor_children(c, g, 2) == 1 ? g[0] : clang_getNullCursor();
  }
  return clang_getNullCursor();
}

const kernel_info *kernels_find(const kernel_table *kt, CXCursor callee) {
  CXCursor ref = clang_getCursorReferenced(callee);
  if (clang_Cursor_isNull(ref)) ref = kernels_dependent_callee(callee); /* Note [launches in templates] */
  if (clang_Cursor_isNull(ref)) ref = callee;
  /* A template specialisation's USR differs from the template's. */
  CXCursor tmpl = clang_getSpecializedCursorTemplate(ref);
  char *usr = string_and_dispose(clang_getCursorUSR(ref));
  char *tusr = clang_Cursor_isNull(tmpl) ? NULL : string_and_dispose(clang_getCursorUSR(tmpl));
  const kernel_info *r = NULL;
  for (int i = 0; i < kt->n && !r; i++)
    if (!strcmp(kt->items[i].usr, usr) || (tusr && !strcmp(kt->items[i].usr, tusr)))
      r = &kt->items[i];
  free(usr);
  free(tusr);
  return r;
}

const kernel_info *kernels_find_name(const kernel_table *kt, const char *name) {
  for (int i = 0; i < kt->n; i++)
    if (!strcmp(kt->items[i].name, name)) return &kt->items[i];
  return NULL;
}

/* The strings and parameters of one entry (not the entry itself). */
static void kernel_info_free(kernel_info *k) {
  for (int j = 0; j < k->n_params; j++) {
    free(k->params[j].name);
    free(k->params[j].elem_type);
    free(k->params[j].why);
  }
  free(k->params);
  free(k->split_why);
  free(k->name);
  free(k->usr);
  free(k->file);
}

void kernels_free(kernel_table *kt) {
  if (!kt) return;
  for (int i = 0; i < kt->n; i++) kernel_info_free(&kt->items[i]);
  free(kt->items);
  kt->items = NULL;
  kt->n = 0;
}
