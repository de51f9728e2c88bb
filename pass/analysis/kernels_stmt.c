/* kernels_stmt.c - statements of a kernel body: blocks (a guard's early exit
 * narrowing what follows), declarations (locals derived from parameters
 * as sizes, Note [derived sizes]; references), loops (recognised
 * induction variables, grid-stride and block loops), and what a loop or
 * a branch assigns, forgotten where its value is not known. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/kernels_impl.h"
#include "base/stack.h"

/* Collects every local assigned inside s (for loops: those are not the
 * values they had on entry). */
typedef struct assigned {
  CXCursor *v; /* heap; free */
  int n, cap;
} assigned;

static enum CXChildVisitResult assigned_visitor(CXCursor cur, CXCursor parent, CXClientData d) {
  assigned *as = d;
  enum CXCursorKind k = clang_getCursorKind(cur);
  CXCursor target = clang_getNullCursor();
  if (k == CXCursor_BinaryOperator || k == CXCursor_CompoundAssignOperator) {
    enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(cur);
    if (op >= CXBinaryOperator_Assign && op <= CXBinaryOperator_OrAssign) {
      CXCursor ch[1];
      int n_ch = cursor_children(cur, ch, 1);
      if (n_ch == 2) target = ka_local_decl(ch[0]);
    }
  } else if (k == CXCursor_UnaryOperator) {
    enum CXUnaryOperatorKind op = clang_getCursorUnaryOperatorKind(cur);
    if (op >= CXUnaryOperator_PostInc && op <= CXUnaryOperator_PreDec) {
      CXCursor ch[1];
      int n_ch = cursor_children(cur, ch, 1);
      if (n_ch == 1) target = ka_local_decl(ch[0]);
    }
  }
  if (!clang_Cursor_isNull(target)) {
    int seen = 0;
    for (int i = 0; i < as->n && !seen; i++) seen = clang_equalCursors(as->v[i], target);
    if (!seen && as->n == as->cap) {
      int cap = as->cap ? as->cap * 2 : 32;
      CXCursor *nv = realloc(as->v, sizeof *nv * (size_t)cap);
      if (!nv) return CXChildVisit_Break;
      as->v = nv;
      as->cap = cap;
    }
    if (!seen) as->v[as->n++] = target;
  }
  return CXChildVisit_Recurse;
}

/* Before a loop body: every local it assigns becomes opaque (keeping
 * non-negativity only for pure increments is not attempted). */
static void havoc_assigned(kctx *c, CXCursor s, CXCursor except) {
  assigned as = {NULL, 0, 0};
  /* s itself too: a for-increment `i = i + 1` or a loop body that is one
   * expression statement is the assignment */
  assigned_visitor(s, clang_getNullCursor(), &as);
  clang_visitChildren(s, assigned_visitor, &as);
  for (int i = 0; i < as.n; i++) {
    if (!clang_Cursor_isNull(except) && clang_equalCursors(as.v[i], except)) continue;
    binding *b = ka_lookup(c, as.v[i]);
    if (!b || b->kind == BIND_REF) continue; /* assigning through a reference keeps its target */
    if (b->kind == BIND_PTR) {
      ptrval p = b->ptr;
      p.off = ka_lin_bad(c);
      ka_bind_ptr(c, as.v[i], p);
    } else {
      ka_bind_int(c, as.v[i], ka_lin_opaque(c, 0));
    }
  }
  free(as.v);
}

static int is_return_only(CXCursor s) {
  enum CXCursorKind k = clang_getCursorKind(s);
  if (k == CXCursor_ReturnStmt || k == CXCursor_ContinueStmt) return 1;
  if (k == CXCursor_CompoundStmt) {
    /* the last statement, however many come before it */
    CXCursor *st;
    int n = cursor_children_all(s, &st);
    int r = n >= 1 && clang_getCursorKind(st[n - 1]) == CXCursor_ReturnStmt;
    free(st);
    return r;
  }
  return 0;
}

/* Statements after `if (cond) return;` (or continue, in a loop body) run
 * only when cond is false. */
static void visit_compound(kctx *c, CXCursor s) {
  int saved = c->n_env, saved_path = c->n_path;
  CXCursor *col;
  int ncol = cursor_children_all(s, &col);
  for (int i = 0; i < ncol; i++) {
    CXCursor st = col[i];
    int early = 0;
    CXCursor ik[2];
    if (clang_getCursorKind(st) == CXCursor_IfStmt) {
      /* children: cond, then (no else) */
      early = cursor_children(st, ik, 2) == 2 && clang_isExpression(clang_getCursorKind(ik[0])) &&
              is_return_only(ik[1]);
    }
    /* `if (v >= N) return;` is a bound guard, not an early exit (Note [dense]) */
    int pure = early && ka_guard_pure(c, ik[0], 1);
    int saved_exit = c->exit_ok;
    c->exit_ok = pure;
    ka_visit_stmt(c, st);
    c->exit_ok = saved_exit;
    if (early) {
      c->n_gv = 0;
      ka_apply_guard(c, ik[0], 1);
      if (pure) ka_path_push_guard(c);
    }
  }
  free(col);
  ka_env_restore(c, saved);
  c->n_path = saved_path;
  /* Locals declared outside and assigned inside now hold unknown values. */
  havoc_assigned(c, s, clang_getNullCursor());
}

/* What a reference bound to init refers to: the address and size of the
 * element an lvalue names (`out[i]`, `*p`, `p->f` (the whole element: field
 * offsets are not tracked), another reference).  Anything else - a
 * temporary bound to a const reference, a call returning a reference - is
 * visited for its reads and refers to no parameter. */
ptrval ka_ref_target(kctx *c, CXCursor init, int *len) {
  CXCursor in = cursor_strip(init);
  enum CXCursorKind ik = clang_getCursorKind(in);
  *len = 0;
  if (ik == CXCursor_ArraySubscriptExpr || ik == CXCursor_MemberRefExpr ||
      (ik == CXCursor_UnaryOperator && clang_getCursorUnaryOperatorKind(in) == CXUnaryOperator_Deref) ||
      ik == CXCursor_DeclRefExpr)
    return ka_eval_lvalue(c, in, len);
  ka_visit_expr(c, init);
  return ka_ptr_none(c);
}

/* Binds reference d (of type t) to what init names.  A reference to a
 * pointer (`float *&q = p`) would alias the pointer variable itself, which
 * the environment does not model: the pointer escapes. */
static void bind_reference(kctx *c, CXCursor d, CXType t, CXCursor init) {
  CXType rt = clang_getPointeeType(clang_getCanonicalType(t));
  if (cursor_is_pointer_type(rt)) {
    ptrval p = ka_eval_ptr(c, init);
    ka_escape(c, p, ACCESS_READWRITE, "pointer bound to a reference");
    if (p.param >= 0) p.off = ka_lin_bad(c);
    ka_bind_ptr(c, d, p);
    return;
  }
  int len;
  ptrval p = ka_ref_target(c, init, &len);
  ka_bind_ref(c, d, p, len);
}

/* Note [derived sizes]: a local initialised from parameters alone whose
 * sign the analysis cannot decide - `int H_out = H - F + 1;` - is a size,
 * assumed >= 0 like the parameters themselves (Note [extents]).  It is
 * analysed as a fresh name (so `idx % H_out`, `oh * W_out` and the like
 * are bounded), and the name is replaced by its value in the kernel's
 * extents and launch conditions at the end.  Values that are provably
 * <= 0 (`-C`) or constants keep their value. */
static lin size_local(kctx *c, CXCursor d, lin v) {
  int64_t k;
  if (!v.ok || v.n != 0 || sym_get_const(v.k, &k) || sym_nonneg(v.k) ||
      sym_nonneg(sym_sub(c->a, sym_const(c->a, 0), v.k)))
    return v;
  if (c->n_sizes == c->cap_sizes) {
    int cap = c->cap_sizes ? c->cap_sizes * 2 : 8;
    derived_size *ns = realloc(c->sizes, sizeof *ns * (size_t)cap);
    if (!ns) return v;
    c->sizes = ns;
    c->cap_sizes = cap;
  }
  /* a name no parameter or other size has: the spelling, then a number */
  char *sp = string_and_dispose(clang_getCursorSpelling(d));
  char nm[96];
  snprintf(nm, sizeof nm, "%s", sp && *sp ? sp : "size");
  free(sp);
  for (int n = 2;; n++) {
    int taken = 0;
    for (int i = 0; c->param_names && i < c->n_params && !taken; i++)
      taken = c->param_names[i] && !strcmp(c->param_names[i], nm);
    for (int i = 0; i < c->n_sizes && !taken; i++) taken = !strcmp(c->sizes[i].name, nm);
    if (!taken) break;
    char base[64];
    snprintf(base, sizeof base, "%.60s", nm);
    char *at = strchr(base, '#');
    if (at) *at = 0;
    snprintf(nm, sizeof nm, "%s#%d", base, n);
  }
  derived_size *ds = &c->sizes[c->n_sizes];
  snprintf(ds->name, sizeof ds->name, "%s", nm);
  ds->value = v.k;
  c->n_sizes++;
  return ka_lin_const(c, sym_var(c->a, ds->name));
}

static sym *size_lookup(void *ud, const char *name) {
  kctx *c = ud;
  for (int i = 0; i < c->n_sizes; i++)
    if (!strcmp(c->sizes[i].name, name)) return sym_subst(c->a, c->sizes[i].value, size_lookup, c);
  return NULL;
}

/* An extent or launch condition over parameters only (Note [derived sizes]). */
sym *ka_unsize(kctx *c, sym *e) {
  return e && c->n_sizes ? sym_subst(c->a, e, size_lookup, c) : e;
}

static void visit_decl(kctx *c, CXCursor d) {
  if (clang_getCursorKind(d) != CXCursor_VarDecl) return;
  CXType t = clang_getCursorType(d);
  CXCursor init = cursor_last_expr_child(d);
  enum CXTypeKind tk = clang_getCanonicalType(t).kind;
  if ((tk == CXType_LValueReference || tk == CXType_RValueReference) && !clang_Cursor_isNull(init)) {
    bind_reference(c, d, t, init);
    return;
  }
  if (cursor_is_pointer_type(t)) {
    ka_bind_ptr(c, d, clang_Cursor_isNull(init) ? ka_ptr_none(c) : ka_eval_ptr(c, init));
  } else if (cursor_is_integer_type(t)) {
    ka_bind_int(c, d,
                clang_Cursor_isNull(init) ? ka_lin_opaque(c, 0)
                                          : size_local(c, d, ka_eval_int(c, init)));
  } else if (!clang_Cursor_isNull(init)) {
    ka_visit_expr(c, init);
  }
}

/* 0 when s has more children than a for statement can (init, condition
 * variable, condition, increment, body): never, but then ka_visit_stmt walks
 * them as plain statements. */
static int visit_for(kctx *c, CXCursor s) {
  CXCursor ch[KIDS_MAX];
  int n_ch = cursor_children(s, ch, KIDS_MAX);
  if (n_ch > KIDS_MAX) return 0;
  if (n_ch == 0) return 1;
  int saved = c->n_env;
  CXCursor body = ch[n_ch - 1];
  CXCursor init = clang_getNullCursor(), cond = clang_getNullCursor(), inc = clang_getNullCursor();
  /* libclang omits empty for-clauses: tell them apart by shape. */
  for (int i = 0; i < n_ch - 1; i++) {
    CXCursor x = cursor_strip(ch[i]);
    enum CXCursorKind k = clang_getCursorKind(x);
    int is_cmp = 0;
    if (k == CXCursor_BinaryOperator) {
      enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(x);
      is_cmp = (op >= CXBinaryOperator_LT && op <= CXBinaryOperator_NE) ||
               op == CXBinaryOperator_LAnd || op == CXBinaryOperator_LOr;
    }
    if (is_cmp && clang_Cursor_isNull(cond)) cond = ch[i];
    else if (clang_Cursor_isNull(cond) && clang_Cursor_isNull(init)) init = ch[i];
    else inc = ch[i];
  }
  if (!clang_Cursor_isNull(init)) ka_visit_stmt(c, init);
  /* The loop variable: bounded by the condition when its start is >= 0
   * and it only grows (++, += of a non-negative amount). */
  CXCursor lv = clang_getNullCursor();
  int grows = 0;
  int step_kind = 0; /* 1: +1, 2: += blockDim.x*gridDim.x, 3: += blockDim.x */
  if (!clang_Cursor_isNull(inc)) {
    CXCursor x = cursor_strip(inc);
    enum CXCursorKind k = clang_getCursorKind(x);
    CXCursor ich[2];
    int n_ich = cursor_children(x, ich, 2);
    if (k == CXCursor_UnaryOperator && n_ich == 1) {
      enum CXUnaryOperatorKind op = clang_getCursorUnaryOperatorKind(x);
      lv = ka_local_decl(ich[0]);
      grows = op == CXUnaryOperator_PostInc || op == CXUnaryOperator_PreInc;
    } else if (k == CXCursor_CompoundAssignOperator && n_ich == 2 &&
               clang_getCursorBinaryOperatorKind(x) == CXBinaryOperator_AddAssign) {
      lv = ka_local_decl(ich[0]);
      lin step = ka_eval_int(c, ich[1]);
      grows = ka_lin_nonneg(c, step);
      int64_t one;
      if (step.ok && step.n == 0 && sym_get_const(step.k, &one) && one == 1) step_kind = 1;
      else if (ka_var_cover(c, &step) == COV_STRIDE_RAW)
        step_kind = 2;
      else if (ka_var_cover(c, &step) == COV_BDIM_RAW)
        step_kind = 3;
    }
    if (k == CXCursor_UnaryOperator && grows) step_kind = 1;
  }
  binding *lb = clang_Cursor_isNull(lv) ? NULL : ka_lookup(c, lv);
  int start_nonneg = lb && lb->kind == BIND_INT && ka_lin_nonneg(c, lb->val);
  /* Loops whose variable takes every value of [0, bound) (Note [dense]):
   * from 0 by 1, a grid-stride loop, a block loop. */
  int covering = 0;
  if (lb && lb->kind == BIND_INT) {
    int64_t z;
    int sc = ka_var_cover(c, &lb->val);
    covering = (step_kind == 1 && lb->val.ok && lb->val.n == 0 && sym_get_const(lb->val.k, &z) &&
                z == 0) ||
               (step_kind == 2 && sc == COV_GTID_RAW) || (step_kind == 3 && sc == COV_TID_RAW);
  }
  havoc_assigned(c, body, clang_getNullCursor());
  /* whatever the increment assigns (`i = i + 1`, `i++, j++`, `s <<= 1`)
   * differs from its entry value from the second iteration on; a
   * recognised loop variable is rebound below */
  if (!clang_Cursor_isNull(inc)) havoc_assigned(c, inc, clang_getNullCursor());
  if (!clang_Cursor_isNull(lv) && cursor_is_pointer_type(clang_getCursorType(lv))) {
    /* a pointer loop variable (`for (p = out; p < end; p++) *p = 0`):
     * still into its parameter, offset not tracked */
    binding *pb = ka_lookup(c, lv);
    ptrval p = pb && pb->kind == BIND_PTR ? pb->ptr : ka_ptr_none(c);
    if (p.param >= 0) p.off = ka_lin_bad(c);
    ka_bind_ptr(c, lv, p);
  } else if (!clang_Cursor_isNull(lv)) {
    /* the body must not assign the loop variable itself */
    assigned as = {NULL, 0, 0};
    clang_visitChildren(body, assigned_visitor, &as);
    for (int i = 0; i < as.n; i++)
      if (clang_equalCursors(as.v[i], lv)) grows = 0;
    free(as.v);
    lin v = ka_lin_opaque(c, grows && start_nonneg);
    if (covering && grows && start_nonneg && v.ok && v.n == 1) c->vars[v.var[0]].cover = COV_LOOP;
    ka_bind_int(c, lv, v);
  }
  int saved_path = c->n_path;
  int pure = 0;
  if (!clang_Cursor_isNull(cond)) {
    ka_visit_expr(c, cond);
    pure = ka_guard_pure(c, cond, 0);
    c->n_gv = 0;
    ka_apply_guard(c, cond, 0);
    if (pure) ka_path_push_guard(c);
  }
  /* the body runs for every value of a covering loop's variable; any other
   * loop's body is a conditional (Note [dense]) */
  int conditional = !pure;
  c->cond += conditional;
  c->loops++;
  ka_visit_stmt(c, body);
  c->loops--;
  c->cond -= conditional;
  c->n_path = saved_path;
  if (!clang_Cursor_isNull(inc)) ka_visit_expr(c, inc);
  ka_env_restore(c, saved);
  /* After the loop, what it assigned is unknown. */
  havoc_assigned(c, s, clang_getNullCursor());
  return 1;
}

void ka_visit_stmt(kctx *c, CXCursor s) {
  if (clang_Cursor_isNull(s) || stack_too_deep(s, "statement")) return;
  enum CXCursorKind k = clang_getCursorKind(s);
  if (clang_isExpression(k)) {
    ka_visit_expr(c, s);
    return;
  }
  switch (k) {
  case CXCursor_CompoundStmt:
    visit_compound(c, s);
    return;
  case CXCursor_DeclStmt: {
    CXCursor *col;
    int ncol = cursor_children_all(s, &col);
    for (int i = 0; i < ncol; i++) visit_decl(c, col[i]);
    free(col);
    return;
  }
  case CXCursor_IfStmt: {
    CXCursor ch[KIDS_MAX];
    int n_ch = cursor_children(s, ch, KIDS_MAX);
    if (n_ch > KIDS_MAX) break; /* never (init, condition variable, condition, then, else) */
    int ci = -1;
    for (int i = 0; i < n_ch; i++)
      if (clang_isExpression(clang_getCursorKind(ch[i]))) {
        ci = i;
        break;
      }
    if (ci < 0) {
      for (int i = 0; i < n_ch; i++)
        ka_visit_stmt(c, ch[i]);
      return;
    }
    for (int i = 0; i < ci; i++)
      ka_visit_stmt(c, ch[i]); /* init / condition variable */
    ka_visit_expr(c, ch[ci]);
    int saved = c->n_env, saved_path = c->n_path;
    /* Note [dense]: a bound guard's then-branch runs for every index in
     * range; any other branch only sometimes */
    int pure = ci == 0 && ka_guard_pure(c, ch[ci], 0);
    if (ci + 1 < n_ch) {
      c->n_gv = 0;
      ka_apply_guard(c, ch[ci], 0);
      if (pure) ka_path_push_guard(c);
      c->cond += !pure;
      ka_visit_stmt(c, ch[ci + 1]);
      c->cond -= !pure;
      ka_env_restore(c, saved);
      c->n_path = saved_path;
    }
    if (ci + 2 < n_ch) {
      ka_apply_guard(c, ch[ci], 1);
      c->cond++;
      ka_visit_stmt(c, ch[ci + 2]);
      c->cond--;
      ka_env_restore(c, saved);
    }
    havoc_assigned(c, s, clang_getNullCursor());
    return;
  }
  case CXCursor_ForStmt:
    if (visit_for(c, s)) return;
    break;
  case CXCursor_WhileStmt:
  case CXCursor_DoStmt: {
    int saved = c->n_env;
    havoc_assigned(c, s, clang_getNullCursor());
    CXCursor *ch;
    int nch = cursor_children_all(s, &ch);
    c->cond++; /* Note [dense]: how often the body runs is not known */
    c->loops++;
    for (int i = 0; i < nch; i++)
      ka_visit_stmt(c, ch[i]);
    free(ch);
    c->loops--;
    c->cond--;
    ka_env_restore(c, saved);
    havoc_assigned(c, s, clang_getNullCursor());
    return;
  }
  case CXCursor_ReturnStmt:
  case CXCursor_BreakStmt:
  case CXCursor_ContinueStmt:
  case CXCursor_GotoStmt:
  case CXCursor_IndirectGotoStmt: {
    /* Note [dense]: an exit skips later stores unless it is a bound guard's
     * (a guarded return inside a loop would skip the remaining iterations);
     * a helper's return ends only the helper, whose stores never cover */
    int guard_exit = c->exit_ok && (k == CXCursor_ContinueStmt ||
                                    (k == CXCursor_ReturnStmt && c->loops == 0));
    if (c->depth == 0 && !guard_exit) c->ctl_unsafe = 1;
    CXCursor *col;
    int ncol = cursor_children_all(s, &col);
    for (int i = 0; i < ncol; i++) {
      if (k == CXCursor_ReturnStmt && c->depth > 0 &&
          clang_isExpression(clang_getCursorKind(col[i])))
        ka_helper_return(c, col[i]);
      else
        ka_visit_stmt(c, col[i]);
    }
    free(col);
    return;
  }
  case CXCursor_SwitchStmt:
  case CXCursor_CaseStmt:
  case CXCursor_DefaultStmt: {
    CXCursor *col;
    int ncol = cursor_children_all(s, &col);
    c->cond++; /* Note [dense]: which case runs depends on data */
    for (int i = 0; i < ncol; i++)
      ka_visit_stmt(c, col[i]);
    c->cond--;
    free(col);
    return;
  }
  default:
    break;
  }
  /* any other statement (and an if or for whose children are not the
   * grammar's): each child in turn */
  CXCursor *col;
  int ncol = cursor_children_all(s, &col);
  for (int i = 0; i < ncol; i++)
    ka_visit_stmt(c, col[i]);
  free(col);
}
