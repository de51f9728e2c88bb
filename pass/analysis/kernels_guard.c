/* kernels_guard.c - guards: `if (v < E)` and `if (v >= E) return;` as bounds
 * on the guarded values (Note [guards narrow values]), undone when the
 * guarded code ends; which guards are pure bound guards for the dense
 * proof, and the covering variables in effect (Note [dense]). */
#include <stdlib.h>
#include <string.h>

#include "analysis/kernels_impl.h"

static void narrow_value(kctx *c, lin x, sym *mx, int strict);
static void rebind_guarded(kctx *c, CXCursor d, lin l, sym *mx, int strict);
static void rebind_nonneg(kctx *c, CXCursor d);
static void guard_sum(kctx *c, lin x, sym *mx, int strict);

/* Applies "e holds" (negate: "e does not hold") as bounds on locals:
 * v < E, v <= E, E > v, E >= v, and conjunctions (disjunctions when
 * negated, by De Morgan). */
void ka_apply_guard(kctx *c, CXCursor e, int negate) {
  e = cursor_strip(e);
  enum CXCursorKind k = clang_getCursorKind(e);
  if (k == CXCursor_UnaryOperator && clang_getCursorUnaryOperatorKind(e) == CXUnaryOperator_LNot) {
    CXCursor ch[1];
    int n_ch = cursor_children(e, ch, 1);
    if (n_ch == 1) ka_apply_guard(c, ch[0], !negate);
    return;
  }
  if (k != CXCursor_BinaryOperator) return;
  CXCursor ch[2];
  int n_ch = cursor_children(e, ch, 2);
  if (n_ch != 2) return;
  enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(e);
  if ((op == CXBinaryOperator_LAnd && !negate) || (op == CXBinaryOperator_LOr && negate)) {
    ka_apply_guard(c, ch[0], negate);
    ka_apply_guard(c, ch[1], negate);
    return;
  }
  if (negate) {
    /* !(v >= E) is v < E; !(v > E) is v <= E */
    switch (op) {
    case CXBinaryOperator_GE: op = CXBinaryOperator_LT; break;
    case CXBinaryOperator_GT: op = CXBinaryOperator_LE; break;
    case CXBinaryOperator_LE: op = CXBinaryOperator_GT; break;
    case CXBinaryOperator_LT: op = CXBinaryOperator_GE; break;
    default: return;
    }
  }
  CXCursor var, lim;
  int strict;
  if (op == CXBinaryOperator_LT || op == CXBinaryOperator_LE) {
    var = ch[0];
    lim = ch[1];
    strict = op == CXBinaryOperator_LT;
  } else if (op == CXBinaryOperator_GT || op == CXBinaryOperator_GE) {
    var = ch[1];
    lim = ch[0];
    strict = op == CXBinaryOperator_GT;
  } else {
    return;
  }
  lin x = ka_eval_int(c, var); /* the guarded value, before any rebinding */
  lin l = ka_eval_int(c, lim);
  /* the other side is bounded below: `oh >= 0` (0 <= oh), `w > -1` make
   * a local E in `v < E` / `v <= E` non-negative when v's minimum is */
  sym *mn = ka_lin_min(c, x);
  if (mn && (sym_nonneg(mn) || (strict && sym_nonneg(sym_add(c->a, mn, sym_const(c->a, 1)))))) {
    CXCursor ld = ka_local_decl(lim);
    if (!clang_Cursor_isNull(ld) && cursor_is_integer_type(clang_getCursorType(ld))) rebind_nonneg(c, ld);
  }
  sym *mx = ka_lin_max(c, l);
  if (!mx) return;
  CXCursor d = ka_local_decl(var);
  if (!clang_Cursor_isNull(d) && cursor_is_integer_type(clang_getCursorType(d))) rebind_guarded(c, d, l, mx, strict);
  narrow_value(c, x, mx, strict);
  guard_sum(c, x, mx, strict);
}

/* Records the guard `x < mx + 1` (strict: `x < mx`) on a sum of several
 * values for the rest of its scope (kernels_value.c Note [guarded sums]). */
static void guard_sum(kctx *c, lin x, sym *mx, int strict) {
  if (!x.ok || x.n < 2) return;
  sym *top = strict ? sym_sub(c->a, mx, sym_const(c->a, 1)) : mx;
  if (!top || sym_is_unknown(top)) return;
  if (c->n_gsums == c->cap_gsums) {
    int cap = c->cap_gsums ? c->cap_gsums * 2 : 8;
    guarded_sum *ng = realloc(c->gsums, sizeof *ng * (size_t)cap);
    if (!ng) return;
    c->gsums = ng;
    c->cap_gsums = cap;
  }
  /* an empty binding marks the scope, as in narrow_value */
  binding mark;
  memset(&mark, 0, sizeof mark);
  mark.decl = clang_getNullCursor();
  mark.kind = BIND_INT;
  mark.val = ka_lin_bad(c);
  ka_bind(c, mark);
  c->gsums[c->n_gsums].x = x;
  c->gsums[c->n_gsums].top = top;
  c->gsums[c->n_gsums].level = c->n_env;
  c->n_gsums++;
}

/* Note [guards narrow values]: a guard `a*v + k < E` (<=, and the mirrored
 * forms; a > 0 and k constants) bounds the base variable v itself, in
 * place, for as long as the environment scope the guard holds in: the
 * then-branch, the rest of the block after `if (...) return;`, a loop
 * body.  Base variables are values, not storage, so every value built from
 * v - a pointer `x = inp + idx*C` computed before the guard, `4*i` in
 * `if (4*i < N)` - is bounded on those paths.  The narrowing is undone when
 * the scope ends (ka_env_restore), so code that may run without the guard
 * never sees it. */
static void narrow_value(kctx *c, lin x, sym *mx, int strict) {
  int64_t a, k;
  if (!x.ok || x.n != 1 || !sym_get_const(x.coef[0], &a) || a <= 0 || !sym_get_const(x.k, &k)) return;
  /* a*v + k <= top: v <= floor((top - k) / a), exclusive bound
   * floor((top - k) / a) + 1; top = mx - 1 when strict */
  sym *num = sym_sub(c->a, mx, sym_const(c->a, k + (strict ? 1 : 0) - a));
  sym *bound = a == 1 ? num : sym_div_exact(c->a, num, sym_const(c->a, a));
  if (!bound) bound = sym_div(c->a, num, sym_const(c->a, a));
  if (!bound || sym_is_unknown(bound)) return;
  base_var *v = &c->vars[x.var[0]];
  if (v->bound) {
    if (sym_equal(v->bound, bound) || ka_dominates(c, bound, v->bound))
      return; /* already as tight */
    if (!ka_dominates(c, v->bound, bound)) bound = sym_min(c->a, v->bound, bound);
  }
  /* an empty binding marks the scope: ka_env_restore undoes the narrowing when
   * the environment drops below it */
  binding mark;
  memset(&mark, 0, sizeof mark);
  mark.decl = clang_getNullCursor();
  mark.kind = BIND_INT;
  mark.val = ka_lin_bad(c);
  ka_bind(c, mark);
  if (c->n_trail == c->cap_trail) {
    int cap = c->cap_trail ? c->cap_trail * 2 : 16;
    narrowing *nt = realloc(c->trail, sizeof *nt * (size_t)cap);
    if (!nt) return;
    c->trail = nt;
    c->cap_trail = cap;
  }
  c->trail[c->n_trail].var = x.var[0];
  c->trail[c->n_trail].old = v->bound;
  c->trail[c->n_trail].level = c->n_env;
  c->n_trail++;
  v->bound = bound;
}

/* The local d shown >= 0 by a guard is rebound to a fresh non-negative
 * variable keeping its own upper bound. */
static void rebind_nonneg(kctx *c, CXCursor d) {
  binding *b = ka_lookup(c, d);
  if (!b || b->kind != BIND_INT || ka_lin_nonneg(c, b->val)) return;
  sym *own = b->val.ok ? ka_lin_max_mode(c, b->val, 0) : NULL;
  int nv = ka_new_var(c, own ? sym_add(c->a, own, sym_const(c->a, 1)) : NULL, 1);
  if (nv >= 0) ka_bind_int(c, d, ka_lin_var(c, nv));
}

/* The local d guarded by `d < E` (E's value l, inclusive maximum mx) is
 * rebound to a fresh variable bounded by E. */
static void rebind_guarded(kctx *c, CXCursor d, lin l, sym *mx, int strict) {
  binding *b = ka_lookup(c, d);
  int nonneg = b && b->kind == BIND_INT && ka_lin_nonneg(c, b->val);
  sym *bound = strict ? mx : sym_add(c->a, mx, sym_const(c->a, 1));
  /* Keep a tighter existing bound if the variable had one of its own. */
  if (b && b->kind == BIND_INT && b->val.ok) {
    sym *old = ka_lin_max_mode(c, b->val, 0);
    if (old) bound = sym_min(c->a, bound, sym_add(c->a, old, sym_const(c->a, 1)));
  }
  /* A covering variable bounded by parameters alone stays covering, now
   * over [0, bound) (Note [dense]). */
  int cover = COV_NONE;
  if (b && b->kind == BIND_INT && l.ok && l.n == 0) {
    switch (ka_var_cover(c, &b->val)) {
    case COV_GTID_RAW:
    case COV_THREADS: cover = COV_THREADS; break;
    case COV_BID_RAW:
    case COV_BLOCKS: cover = COV_BLOCKS; break;
    case COV_LOOP:
    case COV_ALL: cover = COV_ALL; break;
    default: break;
    }
  }
  int nv = ka_new_var(c, bound, nonneg);
  if (nv >= 0 && cover != COV_NONE) {
    c->vars[nv].cover = cover;
    if (c->n_gv < PATH_MAX_VARS) c->gv[c->n_gv++] = nv;
  }
  ka_bind_int(c, d, ka_lin_var(c, nv));
}

/* 1 if "e holds" (negate: "does not hold") is a pure bound guard: a
 * conjunction of v < E (<=, >, >= likewise) where v is a covering variable
 * and E is over parameters only - a condition that restricts the index
 * range and nothing else (Note [dense]).  Mirrors ka_apply_guard. */
int ka_guard_pure(kctx *c, CXCursor e, int negate) {
  e = cursor_strip(e);
  enum CXCursorKind k = clang_getCursorKind(e);
  if (k == CXCursor_UnaryOperator && clang_getCursorUnaryOperatorKind(e) == CXUnaryOperator_LNot) {
    CXCursor ch[1];
    int n_ch = cursor_children(e, ch, 1);
    return n_ch == 1 && ka_guard_pure(c, ch[0], !negate);
  }
  if (k != CXCursor_BinaryOperator) return 0;
  CXCursor ch[2];
  int n_ch = cursor_children(e, ch, 2);
  if (n_ch != 2) return 0;
  enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(e);
  if ((op == CXBinaryOperator_LAnd && !negate) || (op == CXBinaryOperator_LOr && negate))
    return ka_guard_pure(c, ch[0], negate) && ka_guard_pure(c, ch[1], negate);
  if (negate) {
    switch (op) {
    case CXBinaryOperator_GE: op = CXBinaryOperator_LT; break;
    case CXBinaryOperator_GT: op = CXBinaryOperator_LE; break;
    case CXBinaryOperator_LE: op = CXBinaryOperator_GT; break;
    case CXBinaryOperator_LT: op = CXBinaryOperator_GE; break;
    default: return 0;
    }
  }
  CXCursor var, lim;
  if (op == CXBinaryOperator_LT || op == CXBinaryOperator_LE) {
    var = ch[0];
    lim = ch[1];
  } else if (op == CXBinaryOperator_GT || op == CXBinaryOperator_GE) {
    var = ch[1];
    lim = ch[0];
  } else {
    return 0;
  }
  CXCursor d = ka_local_decl(var);
  if (clang_Cursor_isNull(d) || !cursor_is_integer_type(clang_getCursorType(d))) return 0;
  binding *b = ka_lookup(c, d);
  if (!b || b->kind != BIND_INT) return 0;
  int cv = ka_var_cover(c, &b->val);
  if (cv != COV_GTID_RAW && cv != COV_THREADS && cv != COV_BID_RAW && cv != COV_BLOCKS &&
      cv != COV_LOOP && cv != COV_ALL)
    return 0;
  lin l = ka_eval_int(c, lim);
  return l.ok && l.n == 0;
}

/* Appends the covering variables the last ka_apply_guard made to the path. */
void ka_path_push_guard(kctx *c) {
  for (int i = 0; i < c->n_gv; i++) {
    if (c->n_path >= PATH_MAX_VARS) {
      c->n_path = PATH_MAX_VARS + 1;
      return;
    }
    c->path[c->n_path++] = c->gv[i];
  }
}
