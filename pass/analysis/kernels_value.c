/* kernels_value.c - affine values (Note [values], kernels.c): base
 * variables and their bounds (own guards, or the launch's, Note [launch
 * bounds]), the arithmetic of k + sum(coef_i * v_i) forms, maxima over the
 * bounds, and the environment binding the kernel's declarations to values
 * (integers, pointers into parameters, references). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/kernels_impl.h"

int ka_new_var(kctx *c, sym *bound, int nonneg) {
  if (c->n_vars == c->cap_vars) {
    int cap = c->cap_vars ? c->cap_vars * 2 : 32;
    base_var *nv = realloc(c->vars, sizeof *nv * (size_t)cap);
    if (!nv) return -1;
    c->vars = nv;
    c->cap_vars = cap;
  }
  c->vars[c->n_vars].bound = bound;
  c->vars[c->n_vars].lbound = NULL;
  c->vars[c->n_vars].data = 0;
  c->vars[c->n_vars].nonneg = nonneg;
  c->vars[c->n_vars].cover = COV_NONE;
  c->vars[c->n_vars].launch = LAUNCH_NONE;
  c->vars[c->n_vars].rank_of = clang_getNullCursor();
  return c->n_vars++;
}

lin ka_lin_const(kctx *c, sym *k) {
  lin l;
  memset(&l, 0, sizeof l);
  l.ok = !sym_is_unknown(k);
  l.k = k;
  return l;
}

lin ka_lin_var(kctx *c, int v) {
  lin l = ka_lin_const(c, sym_const(c->a, 0));
  if (v < 0) {
    l.ok = 0;
    return l;
  }
  l.n = 1;
  l.var[0] = v;
  l.coef[0] = sym_const(c->a, 1);
  return l;
}

/* A fresh unbounded variable: the value of something not understood. */
lin ka_lin_opaque(kctx *c, int nonneg) {
  return ka_lin_var(c, ka_new_var(c, NULL, nonneg));
}

lin ka_lin_bad(kctx *c) {
  lin l = ka_lin_const(c, sym_const(c->a, 0));
  l.ok = 0;
  return l;
}

lin ka_lin_add_scaled(kctx *c, lin x, lin y, sym *s) {
  if (!x.ok || !y.ok) return ka_lin_bad(c);
  x.k = sym_add(c->a, x.k, sym_mul(c->a, s, y.k));
  for (int i = 0; i < y.n; i++) {
    sym *cf = sym_mul(c->a, s, y.coef[i]);
    int j;
    for (j = 0; j < x.n && x.var[j] != y.var[i]; j++) {}
    if (j < x.n) {
      x.coef[j] = sym_add(c->a, x.coef[j], cf);
    } else {
      if (x.n == LIN_MAX_TERMS) return ka_lin_bad(c);
      x.var[x.n] = y.var[i];
      x.coef[x.n++] = cf;
    }
  }
  if (sym_is_unknown(x.k)) return ka_lin_bad(c);
  return x;
}

lin ka_lin_scale(kctx *c, lin x, sym *s) {
  if (!x.ok || sym_is_unknown(s)) return ka_lin_bad(c);
  x.k = sym_mul(c->a, x.k, s);
  for (int i = 0; i < x.n; i++) x.coef[i] = sym_mul(c->a, x.coef[i], s);
  return x;
}

static int coef_sign(kctx *c, sym *s) {
  if (sym_nonneg(s)) return 1;
  if (sym_nonneg(sym_sub(c->a, sym_const(c->a, 0), s))) return -1;
  return 0;
}

/* Note [launch bounds]: threadIdx.x < blockDim.x and blockIdx.x <
 * gridDim.x whatever the kernel tests, so a builtin index no guard bounds
 * is bounded by the launch: its base variable's lbound names the launch
 * dimension ("gridDim.x", "blockDim.x"; y and z likewise), and an extent
 * over it names them too - `embedding_forward` indexing rows by
 * blockIdx.x has extent gridDim.x*T*C.  The graph and the rewriter
 * substitute the launch's grid and block x (kernels_launch_dim); where
 * they are not known (a dim3 variable, y and z) the extent is unknown
 * there, as it was before.  Guards and the dense proof use own bounds
 * only, so a guarded index is never bounded by min(N, launch). */
sym *ka_launch_name(kctx *c, const char *base, const char *comp) {
  char nm[32];
  snprintf(nm, sizeof nm, "%s.%s", base, comp);
  return sym_var(c->a, nm);
}

/* Maximum (inclusive) and minimum of an affine value; NULL when a variable
 * is unbounded where it matters, or a coefficient's sign is unknown.
 * full: a variable without a bound of its own may use its launch bound. */
static sym *lin_max_terms(kctx *c, lin x, int full);

/* Base variables a and b are one value: one variable, one launch builtin
 * (constant in a thread), or the thread_rank() of one tile object. */
static int var_same(kctx *c, int a, int b) {
  if (a == b) return 1;
  base_var *va = &c->vars[a], *vb = &c->vars[b];
  if (va->launch != LAUNCH_NONE && va->launch == vb->launch) return 1;
  return !clang_Cursor_isNull(va->rank_of) && !clang_Cursor_isNull(vb->rank_of) &&
         clang_equalCursors(va->rank_of, vb->rank_of);
}

/* Note [guarded sums]: `if (4*pos + lane <= own)` bounds neither pos nor
 * lane alone (narrow_value takes one value), but an index containing the
 * sum - `4*pos + lane`, `idx*T + 4*pos + lane` - is bounded by it: with
 * x = s*g + rest for a guarded sum g <= top and a constant s > 0, max(x)
 * <= s*top + max(rest).  That is kept as well as the bound from the terms
 * (the smaller when one is provably so, else their min), for as long as
 * the guard holds (ka_env_restore drops it with the guard's scope).  Only
 * the maximum uses it: the minimum and the dense proof do not. */
sym *ka_lin_max_mode(kctx *c, lin x, int full) {
  sym *m = lin_max_terms(c, x, full);
  if (!x.ok) return m;
  for (int gi = 0; gi < c->n_gsums; gi++) {
    guarded_sum *g = &c->gsums[gi];
    int64_t s = 0;
    int ok = g->x.n >= 2 && g->x.n <= x.n;
    for (int a = 0; ok && a < g->x.n; a++) {
      int64_t cg, cx;
      int b;
      for (b = 0; b < x.n && !var_same(c, x.var[b], g->x.var[a]); b++) {}
      if (b == x.n || !sym_get_const(g->x.coef[a], &cg) || !sym_get_const(x.coef[b], &cx) ||
          cg <= 0 || cx <= 0 || cx % cg) {
        ok = 0;
        break;
      }
      if (a == 0) s = cx / cg;
      else if (cx != s * cg) ok = 0;
    }
    if (!ok || s <= 0) continue;
    /* rest = x - s*g, without g's variables */
    lin rest = ka_lin_const(c, sym_sub(c->a, x.k, sym_mul(c->a, sym_const(c->a, s), g->x.k)));
    for (int b = 0; rest.ok && b < x.n; b++) {
      int a;
      for (a = 0; a < g->x.n && !var_same(c, g->x.var[a], x.var[b]); a++) {}
      if (a == g->x.n) rest = ka_lin_add_scaled(c, rest, ka_lin_var(c, x.var[b]), x.coef[b]);
    }
    sym *rm = lin_max_terms(c, rest, full);
    if (!rm) continue;
    sym *m2 = sym_add(c->a, rm, sym_mul(c->a, sym_const(c->a, s), g->top));
    if (sym_is_unknown(m2)) continue;
    if (!m || ka_dominates(c, m, m2)) m = m2;
    else if (!ka_dominates(c, m2, m)) m = sym_min(c->a, m, m2);
  }
  return m;
}

static sym *lin_max_terms(kctx *c, lin x, int full) {
  if (!x.ok) return NULL;
  sym *m = x.k;
  for (int i = 0; i < x.n; i++) {
    base_var *v = &c->vars[x.var[i]];
    int sg = coef_sign(c, x.coef[i]);
    if (sg == 0 || !v->nonneg) return NULL;
    if (sg > 0) {
      sym *b = v->bound ? v->bound : full ? v->lbound : NULL;
      if (!b) return NULL;
      m = sym_add(c->a, m, sym_mul(c->a, sym_sub(c->a, b, sym_const(c->a, 1)), x.coef[i]));
    } /* negative coefficient: the maximum is at v = 0 */
  }
  return sym_is_unknown(m) ? NULL : m;
}

sym *ka_lin_max(kctx *c, lin x) {
  return ka_lin_max_mode(c, x, 1);
}

sym *ka_lin_min(kctx *c, lin x) {
  if (!x.ok) return NULL;
  sym *m = x.k;
  for (int i = 0; i < x.n; i++) {
    base_var *v = &c->vars[x.var[i]];
    int sg = coef_sign(c, x.coef[i]);
    if (sg == 0 || !v->nonneg) return NULL;
    if (sg < 0) {
      sym *b = v->bound ? v->bound : v->lbound;
      if (!b) return NULL;
      m = sym_add(c->a, m, sym_mul(c->a, sym_sub(c->a, b, sym_const(c->a, 1)), x.coef[i]));
    }
  }
  return sym_is_unknown(m) ? NULL : m;
}

int ka_lin_nonneg(kctx *c, lin x) {
  sym *m = ka_lin_min(c, x);
  return m && sym_nonneg(m);
}

/* The base variable x is exactly (coefficient 1, no constant), or -1. */
static int lin_single_var(const lin *x) {
  int64_t k, cf;
  if (!x->ok || x->n != 1 || !sym_get_const(x->k, &k) || k != 0) return -1;
  if (!sym_get_const(x->coef[0], &cf) || cf != 1) return -1;
  return x->var[0];
}

int ka_var_cover(kctx *c, const lin *x) {
  int v = lin_single_var(x);
  return v < 0 ? COV_NONE : c->vars[v].cover;
}

/* A fresh non-negative variable with a cover kind (Note [dense]) and a
 * launch bound (Note [launch bounds]; NULL: none). */
lin ka_lin_cover(kctx *c, int cover, sym *lbound) {
  int v = ka_new_var(c, NULL, 1);
  if (v >= 0) {
    c->vars[v].cover = cover;
    c->vars[v].lbound = lbound && !sym_is_unknown(lbound) ? lbound : NULL;
  }
  return ka_lin_var(c, v);
}

binding *ka_lookup(kctx *c, CXCursor decl) {
  for (int i = c->n_env - 1; i >= 0; i--)
    if (clang_equalCursors(c->env[i].decl, decl)) return &c->env[i];
  return NULL;
}

void ka_bind(kctx *c, binding b) {
  if (c->n_env == c->cap_env) {
    int cap = c->cap_env ? c->cap_env * 2 : 64;
    binding *nb = realloc(c->env, sizeof *nb * (size_t)cap);
    if (!nb) return;
    c->env = nb;
    c->cap_env = cap;
  }
  c->env[c->n_env++] = b;
}

/* Drops the bindings made since the environment had n entries, and the
 * guard narrowings made with them (Note [guards narrow values]). */
void ka_env_restore(kctx *c, int n) {
  while (c->n_trail > 0 && c->trail[c->n_trail - 1].level > n) {
    narrowing *t = &c->trail[--c->n_trail];
    c->vars[t->var].bound = t->old;
  }
  while (c->n_gsums > 0 && c->gsums[c->n_gsums - 1].level > n) c->n_gsums--;
  c->n_env = n;
}

void ka_bind_int(kctx *c, CXCursor decl, lin v) {
  binding b;
  memset(&b, 0, sizeof b);
  b.decl = decl;
  b.kind = BIND_INT;
  b.val = v.ok ? v : ka_lin_opaque(c, 0);
  ka_bind(c, b);
}

void ka_bind_ptr(kctx *c, CXCursor decl, ptrval p) {
  binding b;
  memset(&b, 0, sizeof b);
  b.decl = decl;
  b.kind = BIND_PTR;
  b.ptr = p;
  ka_bind(c, b);
}

void ka_bind_ref(kctx *c, CXCursor decl, ptrval p, int len) {
  binding b;
  memset(&b, 0, sizeof b);
  b.decl = decl;
  b.kind = BIND_REF;
  b.ptr = p;
  b.ref_len = len;
  ka_bind(c, b);
}

ptrval ka_ptr_none(kctx *c) {
  ptrval p;
  p.param = -1;
  p.off = ka_lin_bad(c);
  p.elem_bytes = 0;
  return p;
}

/* x / d (x >= 0, d > 0 over parameters) as a fresh variable bounded by
 * ceil((max x + 1) / d): own bound from x's own bounds, else a launch
 * bound from its launch bounds (Note [launch bounds]). */
static sym *quotient_bound(kctx *c, sym *mx, sym *d) {
  if (!mx) return NULL;
  sym *cnt = sym_add(c->a, mx, sym_const(c->a, 1));
  sym *bound = sym_div_exact(c->a, cnt, d);
  if (!bound) bound = sym_div(c->a, sym_add(c->a, cnt, sym_sub(c->a, d, sym_const(c->a, 1))), d);
  return sym_is_unknown(bound) ? NULL : bound;
}

lin ka_quotient_var(kctx *c, lin x, sym *d) {
  sym *own = quotient_bound(c, ka_lin_max_mode(c, x, 0), d);
  int v = ka_new_var(c, own, 1);
  if (v >= 0 && !own) c->vars[v].lbound = quotient_bound(c, ka_lin_max_mode(c, x, 1), d);
  return ka_lin_var(c, v);
}

/* Note [reversed indices]: `gridDim.x - blockIdx.x - 1` runs the blocks
 * backwards (llm.c's softmax_forward_kernel5 and fused_classifier_kernel3
 * iterate from the last row for cache reuse).  gridDim.x and blockIdx.x
 * are separate base variables, each >= 0, so their difference alone has
 * minimum -gridDim.x and an index built on it is unbounded.  The launch
 * relates them: blockIdx.x < gridDim.x, so gridDim.x - blockIdx.x - 1 is
 * in [0, gridDim.x).  Base variables made from the builtins carry which
 * one they are (base_var.launch); a form with s*D - s*I for a dimension D
 * and the index I below it (same component; gridDim/blockIdx,
 * blockDim/threadIdx) is rewritten s + s*R, R a fresh variable in
 * [0, D) - exact, not a widening.  R's own bound is D's own bound if a
 * guard gave D one (R <= D - 1), its launch bound the dimension's name.
 * R covers nothing (Note [dense]): the dense proof does not see through
 * it.  Any two variables with one tag are the same value (the builtins
 * are constant in a thread), so the pairing holds whichever evaluation
 * of the builtin made each; a local copied from a builtin and guarded is
 * rebound to an untagged variable, which only loses the pairing. */
lin ka_lin_launch_pairs(kctx *c, lin x) {
  if (!x.ok) return x;
  for (int i = 0; i < x.n; i++) {
    int li = c->vars[x.var[i]].launch;
    int kind = li == LAUNCH_NONE ? 0 : (li - 1) / 3 * 3 + 1, comp = li - kind;
    if (kind != LAUNCH_GDIM && kind != LAUNCH_BDIM) continue;
    int partner = (kind == LAUNCH_GDIM ? LAUNCH_BID : LAUNCH_TID) + comp;
    for (int j = 0; j < x.n; j++) {
      if (c->vars[x.var[j]].launch != partner) continue;
      int64_t z;
      if (!sym_get_const(sym_add(c->a, x.coef[i], x.coef[j]), &z) || z != 0) continue;
      static const char *const comps[3] = {"x", "y", "z"};
      base_var *d = &c->vars[x.var[i]];
      int r = ka_new_var(c, d->bound, 1);
      if (r < 0) return x;
      c->vars[r].lbound =
          ka_launch_name(c, kind == LAUNCH_GDIM ? "gridDim" : "blockDim", comps[comp]);
      sym *s = x.coef[i];
      /* drop terms i and j, then add s + s*R */
      lin y = ka_lin_const(c, x.k);
      for (int m = 0; m < x.n; m++)
        if (m != i && m != j) y = ka_lin_add_scaled(c, y, ka_lin_var(c, x.var[m]), x.coef[m]);
      y = ka_lin_add_scaled(c, y, ka_lin_const(c, s), sym_const(c->a, 1));
      y = ka_lin_add_scaled(c, y, ka_lin_var(c, r), s);
      return ka_lin_launch_pairs(c, y);
    }
  }
  return x;
}
