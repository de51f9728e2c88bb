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
 * kernel; symbolic expressions live in the TU's arena. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "base/stack.h"
#include "analysis/kernels.h"
#include "base/cursor.h"
#include "analysis/split.h"

#define LIN_MAX_TERMS 8      /* affine terms kept before a value turns opaque */
#define HELPER_MAX_DEPTH 8   /* __device__ helper inlining depth */
#define PATH_MAX_VARS 16     /* covering guards in effect at one store (Note [dense]) */
#define COVER_MAX_CANDS 4    /* covering stores kept per parameter */

const char *access_mode_name(access_mode m) {
  switch (m) {
  case ACCESS_READ: return "read";
  case ACCESS_WRITE: return "write";
  case ACCESS_READWRITE: return "readwrite";
  default: return "none";
  }
}

/* ---- affine values (Note [values]) ------------------------------------------ */

/* What a base variable is for Note [dense]. */
enum cover_kind {
  COV_NONE = 0,
  COV_GTID_RAW,   /* blockIdx.x*blockDim.x + threadIdx.x, not yet guarded */
  COV_BID_RAW,    /* blockIdx.x, not yet guarded */
  COV_TID_RAW,    /* threadIdx.x (only starts a block loop) */
  COV_BDIM_RAW,   /* blockDim.x (only a block loop's step) */
  COV_STRIDE_RAW, /* blockDim.x*gridDim.x (only a grid-stride loop's step) */
  COV_LOOP,       /* the variable of a recognised loop, before its condition */
  COV_ALL,        /* takes every value of [0, bound) for any launch */
  COV_THREADS,    /* every value of [0, bound) if grid.x*block.x >= bound */
  COV_BLOCKS      /* every value of [0, bound) if grid.x >= bound */
};

typedef struct base_var {
  sym *bound;  /* exclusive upper bound, NULL if unbounded */
  sym *lbound; /* exclusive upper bound naming the launch (gridDim.x...), when
                * bound is NULL (Note [launch bounds]) */
  int nonneg;  /* known >= 0 */
  int cover;   /* enum cover_kind */
  int data;    /* made while reading memory: a data-dependent value (for the reason only) */
} base_var;

typedef struct lin {
  int ok;                    /* 0: not affine (treated as an opaque value) */
  int n;
  int var[LIN_MAX_TERMS];    /* base variable ids */
  sym *coef[LIN_MAX_TERMS];
  sym *k;                    /* constant part */
} lin;

/* A pointer value: which kernel parameter it points into, and where. */
typedef struct ptrval {
  int param;      /* kernel parameter index, -1 if not derived from one */
  lin off;        /* byte offset from the parameter's pointer; !off.ok: unknown */
  int elem_bytes; /* size of what it points to, 0 if unknown */
} ptrval;

/* BIND_REF: a reference (`float &r = out[i]`, a helper's `T &x`
 * parameter) - ptr is the address of the referenced element and ref_len
 * its size, so reads and writes through the name land on the parameter. */
enum binding_kind { BIND_INT, BIND_PTR, BIND_REF };

typedef struct binding {
  CXCursor decl;
  int kind;
  lin val;     /* BIND_INT */
  ptrval ptr;  /* BIND_PTR, BIND_REF */
  int ref_len; /* BIND_REF: bytes of the referenced object, 0 if unknown */
} binding;

/* A store that writes every byte of [0, bytes) (Note [dense]). */
typedef struct cover_cand {
  sym *bytes;
  sym *threads; /* launch condition grid.x*block.x >= threads, NULL if none */
  sym *blocks;  /* launch condition grid.x >= blocks, NULL if none */
} cover_cand;

typedef struct param_state {
  unsigned mode;   /* access_mode bits */
  sym *extent;     /* max over accesses, NULL before the first */
  char *why;       /* first reason the extent became unknown */
  cover_cand cand[COVER_MAX_CANDS];
  int n_cand;
} param_state;

/* A guard's in-place narrowing of a base variable, undone when the
 * environment drops below level (Note [guards narrow values]). */
typedef struct narrowing {
  int var;
  sym *old;
  int level;
} narrowing;

/* A local size analysed as a name (Note [derived sizes]). */
typedef struct derived_size {
  char name[96];
  sym *value; /* over parameters (and earlier sizes) */
} derived_size;

typedef struct kctx {
  pass_tu *t;
  sym_arena *a;
  base_var *vars;
  int n_vars, cap_vars;
  binding *env;
  int n_env, cap_env;
  narrowing *trail;
  int n_trail, cap_trail;
  derived_size *sizes;
  int n_sizes, cap_sizes;
  char **param_names; /* the kernel's parameter names (for fresh size names) */
  int n_params;
  int n_loads;     /* loads seen so far (Note [extents]: the reason for a data-dependent index) */
  param_state *ps;
  const int *param_elem_bytes;
  unsigned flags;
  CXCursor helpers[HELPER_MAX_DEPTH]; /* helper call stack, for recursion */
  int depth;
  /* The value the innermost helper returns, joined over its return
   * statements (Note [helper returns]). */
  int n_ret;       /* return statements with a value seen so far */
  ptrval ret_ptr;  /* pointer-returning helper */
  lin ret_int;     /* integer-returning helper */
  ptrval this_ptr; /* the object of the method being analysed inline (Note [member calls]) */
  /* Note [dense] control state */
  int cond;        /* enclosing conditionals that are not bound guards */
  int loops;       /* enclosing loops (a guarded return inside one skips iterations) */
  int ctl_unsafe;  /* an early exit that is not a bound guard was seen */
  int exit_ok;     /* visiting the exit of `if (guard) return/continue;` */
  int path[PATH_MAX_VARS]; /* covering variables of the guards in effect */
  int n_path;      /* PATH_MAX_VARS + 1: overflowed, nothing is covering */
  int gv[PATH_MAX_VARS];   /* covering variables the last apply_guard made */
  int n_gv;
} kctx;

static int new_var(kctx *c, sym *bound, int nonneg) {
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
  return c->n_vars++;
}

static lin lin_const(kctx *c, sym *k) {
  lin l;
  memset(&l, 0, sizeof l);
  l.ok = !sym_is_unknown(k);
  l.k = k;
  return l;
}

static lin lin_var(kctx *c, int v) {
  lin l = lin_const(c, sym_const(c->a, 0));
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
static lin lin_opaque(kctx *c, int nonneg) { return lin_var(c, new_var(c, NULL, nonneg)); }

static lin lin_bad(kctx *c) {
  lin l = lin_const(c, sym_const(c->a, 0));
  l.ok = 0;
  return l;
}

static lin lin_add_scaled(kctx *c, lin x, lin y, sym *s) {
  if (!x.ok || !y.ok) return lin_bad(c);
  x.k = sym_add(c->a, x.k, sym_mul(c->a, s, y.k));
  for (int i = 0; i < y.n; i++) {
    sym *cf = sym_mul(c->a, s, y.coef[i]);
    int j;
    for (j = 0; j < x.n && x.var[j] != y.var[i]; j++) {}
    if (j < x.n) {
      x.coef[j] = sym_add(c->a, x.coef[j], cf);
    } else {
      if (x.n == LIN_MAX_TERMS) return lin_bad(c);
      x.var[x.n] = y.var[i];
      x.coef[x.n++] = cf;
    }
  }
  if (sym_is_unknown(x.k)) return lin_bad(c);
  return x;
}

static lin lin_scale(kctx *c, lin x, sym *s) {
  if (!x.ok || sym_is_unknown(s)) return lin_bad(c);
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
static sym *launch_name(kctx *c, const char *base, const char *comp) {
  char nm[32];
  snprintf(nm, sizeof nm, "%s.%s", base, comp);
  return sym_var(c->a, nm);
}

/* Maximum (inclusive) and minimum of an affine value; NULL when a variable
 * is unbounded where it matters, or a coefficient's sign is unknown.
 * full: a variable without a bound of its own may use its launch bound. */
static sym *lin_max_mode(kctx *c, lin x, int full) {
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

static sym *lin_max(kctx *c, lin x) { return lin_max_mode(c, x, 1); }

static sym *lin_min(kctx *c, lin x) {
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

static int lin_nonneg(kctx *c, lin x) {
  sym *m = lin_min(c, x);
  return m && sym_nonneg(m);
}

/* The base variable x is exactly (coefficient 1, no constant), or -1. */
static int lin_single_var(const lin *x) {
  int64_t k, cf;
  if (!x->ok || x->n != 1 || !sym_get_const(x->k, &k) || k != 0) return -1;
  if (!sym_get_const(x->coef[0], &cf) || cf != 1) return -1;
  return x->var[0];
}

static int var_cover(kctx *c, const lin *x) {
  int v = lin_single_var(x);
  return v < 0 ? COV_NONE : c->vars[v].cover;
}

/* A fresh non-negative variable with a cover kind (Note [dense]) and a
 * launch bound (Note [launch bounds]; NULL: none). */
static lin lin_cover(kctx *c, int cover, sym *lbound) {
  int v = new_var(c, NULL, 1);
  if (v >= 0) {
    c->vars[v].cover = cover;
    c->vars[v].lbound = lbound && !sym_is_unknown(lbound) ? lbound : NULL;
  }
  return lin_var(c, v);
}

/* ---- environment -------------------------------------------------------------- */

static binding *lookup(kctx *c, CXCursor decl) {
  for (int i = c->n_env - 1; i >= 0; i--)
    if (clang_equalCursors(c->env[i].decl, decl)) return &c->env[i];
  return NULL;
}

static void bind(kctx *c, binding b) {
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
static void env_restore(kctx *c, int n) {
  while (c->n_trail > 0 && c->trail[c->n_trail - 1].level > n) {
    narrowing *t = &c->trail[--c->n_trail];
    c->vars[t->var].bound = t->old;
  }
  c->n_env = n;
}

static void bind_int(kctx *c, CXCursor decl, lin v) {
  binding b;
  memset(&b, 0, sizeof b);
  b.decl = decl;
  b.kind = BIND_INT;
  b.val = v.ok ? v : lin_opaque(c, 0);
  bind(c, b);
}

static void bind_ptr(kctx *c, CXCursor decl, ptrval p) {
  binding b;
  memset(&b, 0, sizeof b);
  b.decl = decl;
  b.kind = BIND_PTR;
  b.ptr = p;
  bind(c, b);
}

static void bind_ref(kctx *c, CXCursor decl, ptrval p, int len) {
  binding b;
  memset(&b, 0, sizeof b);
  b.decl = decl;
  b.kind = BIND_REF;
  b.ptr = p;
  b.ref_len = len;
  bind(c, b);
}

/* ---- cursor helpers -------------------------------------------------------------- */

/* Children kept by children(): operators and if/for/while have fewer.  A
 * cast or a declaration may have more (TypeRefs, template arguments):
 * their operand and initializer come from cursor_last_expr_child. */
#define KIDS_MAX 16

typedef struct kids {
  CXCursor v[KIDS_MAX];
  int n; /* children the cursor has; v holds the first KIDS_MAX of them */
} kids;

/* For the nodes whose children the grammar bounds: a caller that indexes v
 * by n checks n <= KIDS_MAX (a block or a declaration may have more: those
 * go through cursor_children_all). */
static kids children(CXCursor cur) {
  kids k;
  k.n = cursor_children(cur, k.v, KIDS_MAX);
  return k;
}

/* A growable list of cursors (parameters, call arguments). */
struct collect_list {
  CXCursor *v;
  int n, cap;
};

static enum CXChildVisitResult collect_visitor(CXCursor cur, CXCursor parent, CXClientData d) {
  struct collect_list *l = d;
  if (l->n == l->cap) {
    int cap = l->cap ? l->cap * 2 : 32;
    CXCursor *nv = realloc(l->v, sizeof *nv * (size_t)cap);
    if (!nv) return CXChildVisit_Break;
    l->v = nv;
    l->cap = cap;
  }
  l->v[l->n++] = cur;
  return CXChildVisit_Continue;
}

/* Every child of s (cursor_children_all); out of memory reads as none.
 * Free *v. */
static int all_children(CXCursor s, CXCursor **v) {
  int n = cursor_children_all(s, v);
  return n < 0 ? 0 : n;
}

static int is_expr_kind(enum CXCursorKind k) { return clang_isExpression(k); }

/* Parameters of a function or function template, however many (an
 * AdamW-style helper takes 15 or more).  libclang's
 * clang_Cursor_getNumArguments answers -1 for a FunctionTemplate (a
 * templated kernel `template <class T> __global__ void k(T *out, ...)`):
 * its ParmDecl children are the parameters then.  Free v. */
typedef struct params_list {
  CXCursor *v;
  int n;
} params_list;

static enum CXChildVisitResult parm_visitor(CXCursor cur, CXCursor parent, CXClientData d) {
  if (clang_getCursorKind(cur) == CXCursor_ParmDecl) return collect_visitor(cur, parent, d);
  return CXChildVisit_Continue;
}

static params_list fn_params(CXCursor f) {
  struct collect_list l = {NULL, 0, 0};
  int n = clang_Cursor_getNumArguments(f);
  if (n >= 0) {
    for (int i = 0; i < n; i++)
      if (collect_visitor(clang_Cursor_getArgument(f, (unsigned)i), f, &l) == CXChildVisit_Break) break;
  } else {
    clang_visitChildren(f, parm_visitor, &l);
  }
  params_list pl = {l.v, l.n};
  return pl;
}

static int is_pointer_type(CXType t) {
  t = clang_getCanonicalType(t);
  return t.kind == CXType_Pointer;
}

/* Size in bytes of an object type, 0 if it has none or it is not known.
 * clang_Type_getSizeOf must never see a placeholder type: the callee of a
 * member call (`in[i].operator float` in `(float)in[i]` of a __half) has
 * "bound member function type" and threadIdx.x "pseudo-object type", both
 * CXType_Unexposed, and asking their size crashes inside libclang.  Only
 * kinds that name real objects are asked. */
static int type_bytes(CXType t) {
  CXType ct = clang_getCanonicalType(t);
  switch (ct.kind) {
  case CXType_Invalid:
  case CXType_Unexposed:
  case CXType_Void:
  case CXType_Overload:
  case CXType_Dependent:
  case CXType_FunctionProto:
  case CXType_FunctionNoProto:
  case CXType_Auto:
  case CXType_LValueReference:
  case CXType_RValueReference:
  case CXType_IncompleteArray:
  case CXType_VariableArray:
  case CXType_DependentSizedArray:
    return 0;
  default:
    break;
  }
  long long s = clang_Type_getSizeOf(ct);
  return s > 0 && s < (1 << 30) ? (int)s : 0;
}

static int is_unsigned_type(CXType t) {
  switch (clang_getCanonicalType(t).kind) {
  case CXType_Bool:
  case CXType_Char_U:
  case CXType_UChar:
  case CXType_Char16:
  case CXType_Char32:
  case CXType_UShort:
  case CXType_UInt:
  case CXType_ULong:
  case CXType_ULongLong:
  case CXType_UInt128:
    return 1;
  default:
    return 0;
  }
}

static int pointee_bytes(CXType t) {
  CXType ct = clang_getCanonicalType(t);
  if (ct.kind != CXType_Pointer && ct.kind != CXType_LValueReference &&
      ct.kind != CXType_RValueReference)
    return 0;
  return type_bytes(clang_getPointeeType(ct));
}

static int pointee_is_const(CXType t) {
  return clang_isConstQualifiedType(clang_getPointeeType(t));
}

static int pointee_is_float(CXType t) {
  CXType p = clang_getCanonicalType(clang_getPointeeType(clang_getCanonicalType(t)));
  if (p.kind == CXType_Float || p.kind == CXType_Double || p.kind == CXType_Half ||
      p.kind == CXType_Float16 || p.kind == CXType_BFloat16)
    return 1;
  /* __half / __nv_bfloat16 are structs */
  char *s = string_and_dispose(clang_getTypeSpelling(p));
  int r = strstr(s, "half") || strstr(s, "bfloat") || strstr(s, "float") || strstr(s, "double");
  free(s);
  return r;
}

/* Launch builtins along x, for Note [dense]. */
enum builtin_x { BI_NONE = 0, BI_TID, BI_BID, BI_BDIM, BI_GDIM };

/* Which of threadIdx.x, blockIdx.x, blockDim.x, gridDim.x e is (through
 * parentheses and integer casts), BI_NONE otherwise. */
static int builtin_x(CXCursor e) {
  for (int i = 0; i < 4; i++) {
    e = cursor_strip(e);
    enum CXCursorKind k = clang_getCursorKind(e);
    if (k != CXCursor_CStyleCastExpr && k != CXCursor_CXXStaticCastExpr &&
        k != CXCursor_CXXFunctionalCastExpr)
      break;
    CXCursor in = cursor_last_expr_child(e);
    if (clang_Cursor_isNull(in) || !cursor_is_integer_type(clang_getCursorType(in))) return BI_NONE;
    e = in;
  }
  if (clang_getCursorKind(e) != CXCursor_MemberRefExpr) return BI_NONE;
  kids ch = children(e);
  if (ch.n != 1) return BI_NONE;
  char *member = cursor_member_name(e);
  char *bn = string_and_dispose(clang_getCursorSpelling(cursor_strip(ch.v[0])));
  int r = BI_NONE;
  if (member && bn && !strcmp(member, "x")) {
    if (!strcmp(bn, "threadIdx")) r = BI_TID;
    else if (!strcmp(bn, "blockIdx")) r = BI_BID;
    else if (!strcmp(bn, "blockDim")) r = BI_BDIM;
    else if (!strcmp(bn, "gridDim")) r = BI_GDIM;
  }
  free(member);
  free(bn);
  return r;
}

/* 1 if e is `x * y` with {x, y} the builtins {a, b} in either order. */
static int is_builtin_product(CXCursor e, int a, int b) {
  e = cursor_strip(e);
  if (clang_getCursorKind(e) != CXCursor_BinaryOperator ||
      clang_getCursorBinaryOperatorKind(e) != CXBinaryOperator_Mul)
    return 0;
  kids ch = children(e);
  if (ch.n != 2) return 0;
  int x = builtin_x(ch.v[0]), y = builtin_x(ch.v[1]);
  return (x == a && y == b) || (x == b && y == a);
}

static char *callee_name(CXCursor call) {
  CXCursor ref = clang_getCursorReferenced(call);
  if (!clang_Cursor_isNull(ref)) return string_and_dispose(clang_getCursorSpelling(ref));
  return string_and_dispose(clang_getCursorSpelling(call));
}


/* ---- recording accesses (Note [extents]) ---------------------------------------------- */

/* y <= x for every value of the names (x may be a max of several). */
static int dominates(kctx *c, const sym *x, sym *y) {
  if (sym_nonneg(sym_sub(c->a, (sym *)x, y))) return 1;
  if (sym_get_kind(x) == SYM_MAX) return dominates(c, sym_lhs(x), y) || dominates(c, sym_rhs(x), y);
  return 0;
}

static sym *extent_max(kctx *c, sym *x, sym *y) {
  if (dominates(c, x, y)) return x;
  if (dominates(c, y, x)) return y;
  return sym_max(c->a, x, y);
}

static void set_unknown(kctx *c, int p, const char *why) {
  param_state *ps = &c->ps[p];
  ps->extent = sym_unknown(c->a);
  if (!ps->why) ps->why = strdup(why);
}

static void record(kctx *c, ptrval p, unsigned mode, int len_bytes, const char *why_unknown) {
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
  sym *mx = lin_max(c, p.off);
  if (!mx) {
    for (int i = 0; i < p.off.n; i++) {
      const base_var *v = &c->vars[p.off.var[i]];
      if (v->data && !v->bound && !v->lbound)
        return set_unknown(c, p.param, "index depends on a value read from memory");
    }
    return set_unknown(c, p.param, "index not bounded by a guard or loop condition");
  }
  if (!lin_nonneg(c, p.off)) return set_unknown(c, p.param, "index may be negative");
  sym *end = sym_add(c->a, mx, sym_const(c->a, len_bytes));
  sym *elems = sym_div_exact(c->a, end, sym_const(c->a, eb));
  if (!elems)
    elems = sym_div(c->a, sym_add(c->a, end, sym_const(c->a, eb - 1)), sym_const(c->a, eb));
  if (sym_is_unknown(elems)) return set_unknown(c, p.param, "extent overflow");
  ps->extent = ps->extent ? extent_max(c, ps->extent, elems) : elems;
}

/* A whole-element store of len bytes at p: remembered as a covering store
 * if it proves every byte of a prefix written (Note [dense]). */
static void note_cover(kctx *c, ptrval p, int len) {
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
static void escape(kctx *c, ptrval p, unsigned mode, const char *why) {
  if (p.param < 0) return;
  record(c, p, mode, 0, why);
}

/* ---- evaluation ------------------------------------------------------------------------- */

static lin eval_int(kctx *c, CXCursor e);
static ptrval eval_ptr(kctx *c, CXCursor e);
static void visit_expr(kctx *c, CXCursor e);
static void visit_stmt(kctx *c, CXCursor s);
static void visit_call(kctx *c, CXCursor call);
static void visit_call_value(kctx *c, CXCursor call, ptrval *rp, lin *ri);
static ptrval ref_target(kctx *c, CXCursor init, int *len);
static ptrval eval_lvalue(kctx *c, CXCursor e, int *len);
static CXCursor local_decl(CXCursor e);

static ptrval ptr_none(kctx *c) {
  ptrval p;
  p.param = -1;
  p.off = lin_bad(c);
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

static lin quotient_var(kctx *c, lin x, sym *d) {
  sym *own = quotient_bound(c, lin_max_mode(c, x, 0), d);
  int v = new_var(c, own, 1);
  if (v >= 0 && !own) c->vars[v].lbound = quotient_bound(c, lin_max_mode(c, x, 1), d);
  return lin_var(c, v);
}

/* Note [bounded products]: x*y of two non-negative values is not affine,
 * but it is bounded when both are: max(x)*max(y).  The y and z thread
 * indices are written that way (`oc = 8*(blockIdx.y * blockDim.y +
 * threadIdx.y)`, llm.c's matmul_forward_kernel4): blockIdx.y < gridDim.y
 * and blockDim.y <= blockDim.y, so the product is below
 * (gridDim.y - 1)*blockDim.y + 1 and the index below
 * gridDim.y*blockDim.y - an extent in the launch's dimensions (Note
 * [launch bounds]).  The product is a fresh variable bounded by its own
 * bound when both factors have one, else by the launch bound; it covers
 * nothing (Note [dense]: its values are not all taken). */
static lin product_var(kctx *c, lin x, lin y, int nonneg) {
  if (!nonneg) return lin_opaque(c, 0);
  sym *xo = lin_max_mode(c, x, 0), *yo = lin_max_mode(c, y, 0);
  if (xo && yo) return lin_var(c, new_var(c, sym_add(c->a, sym_mul(c->a, xo, yo), sym_const(c->a, 1)), 1));
  sym *xm = lin_max(c, x), *ym = lin_max(c, y);
  int v = new_var(c, NULL, 1);
  if (v >= 0 && xm && ym) {
    sym *lb = sym_add(c->a, sym_mul(c->a, xm, ym), sym_const(c->a, 1));
    c->vars[v].lbound = sym_is_unknown(lb) ? NULL : lb;
  }
  return lin_var(c, v);
}

/* Values made while evaluating e that read memory are data-dependent
 * (base_var.data): only the reason given for an unknown extent uses it. */
static lin eval_int_value(kctx *c, CXCursor e);

static lin eval_int(kctx *c, CXCursor e) {
  int loads = c->n_loads, vars = c->n_vars;
  lin r = eval_int_value(c, e);
  if (c->n_loads != loads)
    for (int i = 0; r.ok && i < r.n; i++)
      if (r.var[i] >= vars) c->vars[r.var[i]].data = 1;
  return r;
}

static lin eval_int_value(kctx *c, CXCursor e) {
  if (stack_too_deep(e, "expression")) return lin_bad(c);
  e = cursor_strip(e);
  enum CXCursorKind k = clang_getCursorKind(e);
  int64_t cv;
  switch (k) {
  case CXCursor_IntegerLiteral:
  case CXCursor_CharacterLiteral:
  case CXCursor_UnaryExpr: /* sizeof, alignof */
    if (cursor_eval_int(e, &cv)) return lin_const(c, sym_const(c->a, cv));
    return lin_opaque(c, 0);
  case CXCursor_DeclRefExpr: {
    CXCursor d = clang_getCursorReferenced(e);
    binding *b = lookup(c, d);
    if (b && b->kind == BIND_INT) return b->val;
    if (b && b->kind == BIND_REF) { /* `int &k = idx[i]; ... k`: a load */
      record(c, b->ptr, ACCESS_READ, b->ref_len, NULL);
      return lin_opaque(c, 0);
    }
    if (clang_getCursorKind(d) == CXCursor_EnumConstantDecl)
      return lin_const(c, sym_const(c->a, clang_getEnumConstantDeclValue(d)));
    if (cursor_eval_int(e, &cv)) return lin_const(c, sym_const(c->a, cv));
    return lin_opaque(c, 0);
  }
  case CXCursor_MemberRefExpr: {
    /* threadIdx.x and friends: non-negative, unbounded (the launch decides). */
    int bx = builtin_x(e);
    sym *one = sym_const(c->a, 1);
    if (bx == BI_TID) return lin_cover(c, COV_TID_RAW, launch_name(c, "blockDim", "x"));
    if (bx == BI_BID) return lin_cover(c, COV_BID_RAW, launch_name(c, "gridDim", "x"));
    if (bx == BI_BDIM) return lin_cover(c, COV_BDIM_RAW, sym_add(c->a, launch_name(c, "blockDim", "x"), one));
    kids ch = children(e);
    if (ch.n == 1) {
      CXCursor base = cursor_strip(ch.v[0]);
      char *bn = string_and_dispose(clang_getCursorSpelling(base));
      char *mn = cursor_member_name(e);
      /* the launch bound of each builtin: threadIdx < blockDim, blockIdx <
       * gridDim, blockDim <= blockDim (Note [launch bounds]) */
      const char *dim = !strcmp(bn, "threadIdx") || !strcmp(bn, "blockDim") ? "blockDim"
                        : !strcmp(bn, "blockIdx") || !strcmp(bn, "gridDim") ? "gridDim"
                                                                             : NULL;
      sym *lb = NULL;
      if (dim && mn && (!strcmp(mn, "x") || !strcmp(mn, "y") || !strcmp(mn, "z"))) {
        lb = launch_name(c, dim, mn);
        if (!strcmp(bn, "blockDim") || !strcmp(bn, "gridDim")) lb = sym_add(c->a, lb, one);
      }
      free(bn);
      free(mn);
      if (dim) return lin_cover(c, COV_NONE, lb);
    }
    visit_expr(c, e);
    return lin_opaque(c, is_unsigned_type(clang_getCursorType(e)));
  }
  case CXCursor_CStyleCastExpr:
  case CXCursor_CXXStaticCastExpr:
  case CXCursor_CXXFunctionalCastExpr: {
    CXCursor in = cursor_last_expr_child(e);
    if (!clang_Cursor_isNull(in) && cursor_is_integer_type(clang_getCursorType(in))) return eval_int(c, in);
    visit_expr(c, e);
    return lin_opaque(c, 0);
  }
  case CXCursor_BinaryOperator: {
    kids ch = children(e);
    if (ch.n != 2) break;
    enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(e);
    /* the global thread index and the grid-stride step (Note [dense]) */
    if (op == CXBinaryOperator_Add &&
        ((is_builtin_product(ch.v[0], BI_BID, BI_BDIM) && builtin_x(ch.v[1]) == BI_TID) ||
         (is_builtin_product(ch.v[1], BI_BID, BI_BDIM) && builtin_x(ch.v[0]) == BI_TID)))
      return lin_cover(c, COV_GTID_RAW,
                       sym_mul(c->a, launch_name(c, "gridDim", "x"), launch_name(c, "blockDim", "x")));
    if (op == CXBinaryOperator_Mul && is_builtin_product(e, BI_BDIM, BI_GDIM))
      return lin_cover(c, COV_STRIDE_RAW,
                       sym_add(c->a, sym_mul(c->a, launch_name(c, "gridDim", "x"), launch_name(c, "blockDim", "x")),
                               sym_const(c->a, 1)));
    if (op == CXBinaryOperator_Add || op == CXBinaryOperator_Sub || op == CXBinaryOperator_Mul ||
        op == CXBinaryOperator_Div || op == CXBinaryOperator_Rem || op == CXBinaryOperator_Shl) {
      lin x = eval_int(c, ch.v[0]), y = eval_int(c, ch.v[1]);
      switch (op) {
      case CXBinaryOperator_Add: {
        lin r = lin_add_scaled(c, x, y, sym_const(c->a, 1));
        return r.ok ? r : lin_opaque(c, lin_nonneg(c, x) && lin_nonneg(c, y));
      }
      case CXBinaryOperator_Sub: {
        lin r = lin_add_scaled(c, x, y, sym_const(c->a, -1));
        return r.ok ? r : lin_opaque(c, 0);
      }
      case CXBinaryOperator_Mul:
      case CXBinaryOperator_Shl: {
        int nn = lin_nonneg(c, x) && lin_nonneg(c, y);
        if (op == CXBinaryOperator_Shl) {
          int64_t sh;
          if (!y.ok || y.n || !sym_get_const(y.k, &sh) || sh < 0 || sh > 40) return lin_opaque(c, 0);
          return lin_scale(c, x, sym_const(c->a, (int64_t)1 << sh));
        }
        if (x.ok && x.n == 0) return lin_scale(c, y, x.k);
        if (y.ok && y.n == 0) return lin_scale(c, x, y.k);
        return product_var(c, x, y, nn); /* two variables: not affine, maybe bounded */
      }
      default: { /* / and %: a new variable bounded through the divisor */
        int nn = lin_nonneg(c, x) && lin_nonneg(c, y);
        if (!y.ok || y.n != 0 || !sym_nonneg(y.k)) return lin_opaque(c, nn);
        if (x.ok && x.n == 0) {
          return lin_const(c, op == CXBinaryOperator_Div ? sym_div(c->a, x.k, y.k)
                                                         : sym_sub(c->a, x.k, sym_mul(c->a, y.k, sym_div(c->a, x.k, y.k))));
        }
        if (!nn) return lin_opaque(c, 0);
        if (op == CXBinaryOperator_Rem) return lin_var(c, new_var(c, y.k, 1));
        return quotient_var(c, x, y.k);
      }
      }
    }
    if (op == CXBinaryOperator_And || op == CXBinaryOperator_Shr) {
      /* lane = threadIdx.x & 31: in [0, M] for a constant M >= 0, whatever
       * x is; x >> k of x >= 0 is x / 2^k */
      lin x = eval_int(c, ch.v[0]), y = eval_int(c, ch.v[1]);
      int64_t m;
      if (op == CXBinaryOperator_And) {
        if (y.ok && y.n == 0 && sym_get_const(y.k, &m) && m >= 0)
          return lin_var(c, new_var(c, sym_const(c->a, m + 1), 1));
        if (x.ok && x.n == 0 && sym_get_const(x.k, &m) && m >= 0)
          return lin_var(c, new_var(c, sym_const(c->a, m + 1), 1));
        return lin_opaque(c, 0);
      }
      if (y.ok && y.n == 0 && sym_get_const(y.k, &m) && m >= 0 && m <= 40 && lin_nonneg(c, x))
        return quotient_var(c, x, sym_const(c->a, (int64_t)1 << m));
      return lin_opaque(c, 0);
    }
    /* comparisons, logic, bit operations: read the operands, value opaque */
    visit_expr(c, e);
    return lin_opaque(c, 0);
  }
  case CXCursor_UnaryOperator: {
    /* -x and +x stay affine */
    enum CXUnaryOperatorKind uop = clang_getCursorUnaryOperatorKind(e);
    if (uop == CXUnaryOperator_Minus || uop == CXUnaryOperator_Plus) {
      kids ch = children(e);
      if (ch.n == 1) {
        lin x = eval_int(c, ch.v[0]);
        lin r = lin_scale(c, x, sym_const(c->a, uop == CXUnaryOperator_Minus ? -1 : 1));
        return r.ok ? r : lin_opaque(c, 0);
      }
    }
    break;
  }
  case CXCursor_CallExpr: {
    ptrval rp;
    lin ri;
    visit_call_value(c, e, &rp, &ri);
    escape(c, rp, ACCESS_READWRITE, "pointer returned by a helper escapes");
    /* a constexpr call (a tile's size()) is its value */
    if (cursor_eval_int(e, &cv)) return lin_const(c, sym_const(c->a, cv));
    if (ri.ok) return ri;
    return lin_opaque(c, 0);
  }
  default:
    break;
  }
  /* Anything else (loads p[i], conditionals): visit for accesses; an
   * unsigned value is >= 0 (see visit_call_value). */
  visit_expr(c, e);
  if (cursor_eval_int(e, &cv)) return lin_const(c, sym_const(c->a, cv));
  return lin_opaque(c, is_unsigned_type(clang_getCursorType(e)));
}

/* Pointer values; also visits index subexpressions for their reads. */
static ptrval eval_ptr(kctx *c, CXCursor e) {
  if (stack_too_deep(e, "expression")) return ptr_none(c);
  e = cursor_strip(e);
  enum CXCursorKind k = clang_getCursorKind(e);
  CXType ty = clang_getCursorType(e);
  switch (k) {
  case CXCursor_DeclRefExpr: {
    binding *b = lookup(c, clang_getCursorReferenced(e));
    if (b && b->kind == BIND_PTR) {
      ptrval p = b->ptr;
      int eb = pointee_bytes(ty);
      if (eb) p.elem_bytes = eb;
      return p;
    }
    return ptr_none(c);
  }
  case CXCursor_CStyleCastExpr:
  case CXCursor_CXXReinterpretCastExpr:
  case CXCursor_CXXStaticCastExpr:
  case CXCursor_CXXConstCastExpr:
  case CXCursor_CXXFunctionalCastExpr: {
    CXCursor in = cursor_last_expr_child(e);
    if (clang_Cursor_isNull(in)) return ptr_none(c);
    ptrval p = is_pointer_type(clang_getCursorType(in)) ? eval_ptr(c, in) : ptr_none(c);
    if (!is_pointer_type(clang_getCursorType(in))) visit_expr(c, in);
    p.elem_bytes = pointee_bytes(ty);
    return p;
  }
  case CXCursor_BinaryOperator: {
    kids ch = children(e);
    enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(e);
    if (ch.n == 2 && (op == CXBinaryOperator_Add || op == CXBinaryOperator_Sub)) {
      int lp = is_pointer_type(clang_getCursorType(ch.v[0]));
      CXCursor pe = lp ? ch.v[0] : ch.v[1], ie = lp ? ch.v[1] : ch.v[0];
      ptrval p = eval_ptr(c, pe);
      lin idx = eval_int(c, ie);
      if (p.param < 0) return p;
      int eb = pointee_bytes(clang_getCursorType(pe));
      if (!eb) {
        p.off = lin_bad(c);
        return p;
      }
      p.off = lin_add_scaled(c, p.off, idx, sym_const(c->a, op == CXBinaryOperator_Sub ? -eb : eb));
      p.elem_bytes = pointee_bytes(ty);
      return p;
    }
    if (ch.n == 2 && op == CXBinaryOperator_Comma) {
      visit_expr(c, ch.v[0]);
      return eval_ptr(c, ch.v[1]);
    }
    if (ch.n == 2 && op == CXBinaryOperator_Assign) {
      visit_expr(c, e);
      return eval_ptr(c, ch.v[0]);
    }
    visit_expr(c, e);
    return ptr_none(c);
  }
  case CXCursor_UnaryOperator: {
    kids ch = children(e);
    if (ch.n == 1 && clang_getCursorUnaryOperatorKind(e) == CXUnaryOperator_AddrOf) {
      /* &p[i], &*p: the address, no access */
      CXCursor in = cursor_strip(ch.v[0]);
      enum CXCursorKind ik = clang_getCursorKind(in);
      if (ik == CXCursor_ArraySubscriptExpr) {
        kids sub = children(in);
        if (sub.n == 2) {
          int bp = is_pointer_type(clang_getCursorType(sub.v[0]));
          CXCursor be = bp ? sub.v[0] : sub.v[1], ie = bp ? sub.v[1] : sub.v[0];
          ptrval p = eval_ptr(c, be);
          lin idx = eval_int(c, ie);
          int eb = pointee_bytes(clang_getCursorType(be));
          if (p.param >= 0) p.off = eb ? lin_add_scaled(c, p.off, idx, sym_const(c->a, eb)) : lin_bad(c);
          p.elem_bytes = pointee_bytes(ty);
          return p;
        }
      }
      if (ik == CXCursor_UnaryOperator && clang_getCursorUnaryOperatorKind(in) == CXUnaryOperator_Deref) {
        kids d = children(in);
        if (d.n == 1) return eval_ptr(c, d.v[0]);
      }
      if (ik == CXCursor_MemberRefExpr) {
        /* &p->field, &p[i].field: inside the element; offset of the field unknown */
        kids m = children(in);
        if (m.n == 1) {
          CXCursor b = cursor_strip(m.v[0]);
          ptrval p = ptr_none(c);
          if (is_pointer_type(clang_getCursorType(b))) p = eval_ptr(c, b);
          else if (clang_getCursorKind(b) == CXCursor_ArraySubscriptExpr) {
            kids sub = children(b);
            if (sub.n == 2) {
              p = eval_ptr(c, sub.v[0]);
              lin idx = eval_int(c, sub.v[1]);
              int eb = pointee_bytes(clang_getCursorType(sub.v[0]));
              if (p.param >= 0) p.off = eb ? lin_add_scaled(c, p.off, idx, sym_const(c->a, eb)) : lin_bad(c);
            }
          }
          if (p.param >= 0) p.off = lin_bad(c);
          return p;
        }
      }
      /* &r of a reference, &x of a local (`atomicAdd(&count, 1)` on a
       * __shared__ counter), &(...): the address of what the lvalue names.
       * Never visit_expr(e) here: its AddrOf case comes back to eval_ptr. */
      int len;
      ptrval p = eval_lvalue(c, in, &len);
      if (p.param >= 0 && clang_getCursorKind(in) != CXCursor_DeclRefExpr) p.off = lin_bad(c);
      p.elem_bytes = pointee_bytes(ty);
      return p;
    }
    if (ch.n == 1) {
      /* p++, ++p, p--, --p of a pointer local: the value before (post) or
       * after (pre) the step; visit_expr moves the binding */
      enum CXUnaryOperatorKind op = clang_getCursorUnaryOperatorKind(e);
      CXCursor d = local_decl(ch.v[0]);
      if ((op == CXUnaryOperator_PostInc || op == CXUnaryOperator_PreInc ||
           op == CXUnaryOperator_PostDec || op == CXUnaryOperator_PreDec) &&
          !clang_Cursor_isNull(d) && is_pointer_type(clang_getCursorType(d))) {
        ptrval before = eval_ptr(c, ch.v[0]);
        visit_expr(c, e);
        if (op == CXUnaryOperator_PostInc || op == CXUnaryOperator_PostDec) return before;
        return eval_ptr(c, ch.v[0]);
      }
    }
    visit_expr(c, e);
    return ptr_none(c);
  }
  case CXCursor_CallExpr: {
    ptrval rp;
    lin ri;
    visit_call_value(c, e, &rp, &ri);
    if (rp.param >= 0) rp.elem_bytes = pointee_bytes(ty);
    return rp;
  }
  case CXCursor_CXXThisExpr: {
    ptrval p = c->depth > 0 ? c->this_ptr : ptr_none(c);
    if (p.param >= 0) p.elem_bytes = pointee_bytes(ty);
    return p;
  }
  case CXCursor_ConditionalOperator: {
    kids ch = children(e);
    if (ch.n == 3) {
      visit_expr(c, ch.v[0]);
      ptrval x = eval_ptr(c, ch.v[1]), y = eval_ptr(c, ch.v[2]);
      if (x.param >= 0 && x.param == y.param) {
        x.off = lin_bad(c);
        return x;
      }
      /* Two different buffers: follow neither precisely. */
      escape(c, x, ACCESS_READWRITE, "pointer chosen by a conditional");
      escape(c, y, ACCESS_READWRITE, "pointer chosen by a conditional");
      return ptr_none(c);
    }
    break;
  }
  default:
    break;
  }
  visit_expr(c, e);
  return ptr_none(c);
}

/* An lvalue that names memory: p[i], *p, p->f, p[i].f.  Returns the
 * pointer and access size; param -1 for locals and shared memory. */
static ptrval eval_lvalue(kctx *c, CXCursor e, int *len) {
  e = cursor_strip(e);
  enum CXCursorKind k = clang_getCursorKind(e);
  *len = type_bytes(clang_getCursorType(e));
  if (k == CXCursor_ArraySubscriptExpr) {
    kids ch = children(e);
    if (ch.n != 2) return ptr_none(c);
    int bp = is_pointer_type(clang_getCursorType(ch.v[0]));
    CXCursor be = bp ? ch.v[0] : ch.v[1], ie = bp ? ch.v[1] : ch.v[0];
    if (!is_pointer_type(clang_getCursorType(be))) {
      /* a local or shared array: not a parameter; still read the index */
      visit_expr(c, ie);
      int dummy;
      eval_lvalue(c, be, &dummy);
      return ptr_none(c);
    }
    ptrval p = eval_ptr(c, be);
    lin idx = eval_int(c, ie);
    int eb = pointee_bytes(clang_getCursorType(be));
    if (p.param >= 0) p.off = eb ? lin_add_scaled(c, p.off, idx, sym_const(c->a, eb)) : lin_bad(c);
    return p;
  }
  if (k == CXCursor_UnaryOperator && clang_getCursorUnaryOperatorKind(e) == CXUnaryOperator_Deref) {
    kids ch = children(e);
    return ch.n == 1 ? eval_ptr(c, ch.v[0]) : ptr_none(c);
  }
  if (k == CXCursor_MemberRefExpr) {
    kids ch = children(e);
    if (ch.n == 0 && c->depth > 0 && c->this_ptr.param >= 0 &&
        clang_getCursorKind(clang_getCursorReferenced(e)) == CXCursor_FieldDecl) {
      /* a field through the implicit `this` of a method analysed inline:
       * the whole object (Note [member calls]) */
      *len = c->this_ptr.elem_bytes;
      return c->this_ptr;
    }
    if (ch.n != 1) return ptr_none(c);
    CXCursor b = cursor_strip(ch.v[0]);
    if (is_pointer_type(clang_getCursorType(b))) {
      /* p->f: the whole element (the field offset is not tracked) */
      ptrval p = eval_ptr(c, b);
      *len = pointee_bytes(clang_getCursorType(b));
      return p;
    }
    int inner;
    ptrval p = eval_lvalue(c, b, &inner); /* p[i].x: the whole p[i] */
    *len = inner;
    return p;
  }
  if (k == CXCursor_ParenExpr) {
    kids ch = children(e);
    if (ch.n == 1) return eval_lvalue(c, ch.v[0], len);
  }
  if (k == CXCursor_DeclRefExpr) {
    binding *b = lookup(c, clang_getCursorReferenced(e));
    if (b && b->kind == BIND_REF) {
      if (b->ref_len > 0) *len = b->ref_len;
      return b->ptr;
    }
  }
  return ptr_none(c);
}

/* The binding of the reference e names, or NULL. */
static binding *ref_binding(kctx *c, CXCursor e) {
  e = cursor_strip(e);
  if (clang_getCursorKind(e) != CXCursor_DeclRefExpr) return NULL;
  binding *b = lookup(c, clang_getCursorReferenced(e));
  return b && b->kind == BIND_REF ? b : NULL;
}

/* Is e a local variable (DeclRefExpr to a bound or unbound local)? */
static CXCursor local_decl(CXCursor e) {
  e = cursor_strip(e);
  if (clang_getCursorKind(e) != CXCursor_DeclRefExpr) return clang_getNullCursor();
  CXCursor d = clang_getCursorReferenced(e);
  enum CXCursorKind dk = clang_getCursorKind(d);
  if (dk == CXCursor_VarDecl || dk == CXCursor_ParmDecl) return d;
  return clang_getNullCursor();
}

/* Writes (mode WRITE or READWRITE) to an lvalue expression. */
static void store(kctx *c, CXCursor lhs, unsigned mode, CXCursor rhs, int op_assign) {
  CXCursor d = ref_binding(c, lhs) ? clang_getNullCursor() : local_decl(lhs);
  if (!clang_Cursor_isNull(d)) {
    CXType t = clang_getCursorType(d);
    if (is_pointer_type(t)) {
      if (op_assign == CXBinaryOperator_Assign && !clang_Cursor_isNull(rhs)) {
        bind_ptr(c, d, eval_ptr(c, rhs));
      } else if ((op_assign == CXBinaryOperator_AddAssign || op_assign == CXBinaryOperator_SubAssign) &&
                 !clang_Cursor_isNull(rhs)) {
        binding *b = lookup(c, d);
        lin idx = eval_int(c, rhs);
        ptrval p = b && b->kind == BIND_PTR ? b->ptr : ptr_none(c);
        int eb = pointee_bytes(t);
        if (p.param >= 0)
          p.off = eb ? lin_add_scaled(c, p.off, idx, sym_const(c->a, op_assign == CXBinaryOperator_SubAssign ? -eb : eb))
                     : lin_bad(c);
        bind_ptr(c, d, p);
      } else {
        binding *b = lookup(c, d);
        ptrval p = b && b->kind == BIND_PTR ? b->ptr : ptr_none(c);
        p.off = lin_bad(c);
        bind_ptr(c, d, p);
        if (!clang_Cursor_isNull(rhs)) visit_expr(c, rhs);
      }
    } else if (cursor_is_integer_type(t)) {
      lin v;
      if (op_assign == CXBinaryOperator_Assign && !clang_Cursor_isNull(rhs)) {
        v = eval_int(c, rhs);
      } else if ((op_assign == CXBinaryOperator_AddAssign || op_assign == CXBinaryOperator_SubAssign) &&
                 !clang_Cursor_isNull(rhs)) {
        binding *b = lookup(c, d);
        lin old = b && b->kind == BIND_INT ? b->val : lin_opaque(c, 0);
        v = lin_add_scaled(c, old, eval_int(c, rhs),
                           sym_const(c->a, op_assign == CXBinaryOperator_SubAssign ? -1 : 1));
      } else {
        if (!clang_Cursor_isNull(rhs)) visit_expr(c, rhs);
        v = lin_opaque(c, 0);
      }
      bind_int(c, d, v);
    } else if (!clang_Cursor_isNull(rhs)) {
      visit_expr(c, rhs);
    }
    return;
  }
  int len;
  ptrval p = eval_lvalue(c, lhs, &len);
  record(c, p, mode, len, NULL);
  /* p[i] and *q store whole elements; p[i].f and p->f only part of one */
  CXCursor sl = cursor_strip(lhs);
  enum CXCursorKind lk = clang_getCursorKind(sl);
  if (mode == ACCESS_WRITE &&
      (lk == CXCursor_ArraySubscriptExpr ||
       (lk == CXCursor_UnaryOperator && clang_getCursorUnaryOperatorKind(sl) == CXUnaryOperator_Deref)))
    note_cover(c, p, len);
  if (!clang_Cursor_isNull(rhs)) visit_expr(c, rhs);
}

/* Visits an expression whose value is used (reads). */
static void visit_expr(kctx *c, CXCursor e) {
  if (clang_Cursor_isNull(e) || stack_too_deep(e, "expression")) return;
  e = cursor_strip(e);
  enum CXCursorKind k = clang_getCursorKind(e);
  switch (k) {
  case CXCursor_ArraySubscriptExpr:
  case CXCursor_MemberRefExpr:
  case CXCursor_UnaryOperator: {
    if (k == CXCursor_UnaryOperator) {
      enum CXUnaryOperatorKind op = clang_getCursorUnaryOperatorKind(e);
      kids ch = children(e);
      if (ch.n != 1) return;
      if (op == CXUnaryOperator_PostInc || op == CXUnaryOperator_PreInc ||
          op == CXUnaryOperator_PostDec || op == CXUnaryOperator_PreDec) {
        CXCursor d = local_decl(ch.v[0]);
        if (!clang_Cursor_isNull(d) && cursor_is_integer_type(clang_getCursorType(d))) {
          binding *b = lookup(c, d);
          lin old = b && b->kind == BIND_INT ? b->val : lin_opaque(c, 0);
          int inc = op == CXUnaryOperator_PostInc || op == CXUnaryOperator_PreInc;
          bind_int(c, d, lin_add_scaled(c, old, lin_const(c, sym_const(c->a, 1)), sym_const(c->a, inc ? 1 : -1)));
          return;
        }
        if (!clang_Cursor_isNull(d) && is_pointer_type(clang_getCursorType(d))) {
          binding *b = lookup(c, d);
          ptrval p = b && b->kind == BIND_PTR ? b->ptr : ptr_none(c);
          int eb = pointee_bytes(clang_getCursorType(d));
          int inc = op == CXUnaryOperator_PostInc || op == CXUnaryOperator_PreInc;
          if (p.param >= 0) p.off = eb ? lin_add_scaled(c, p.off, lin_const(c, sym_const(c->a, inc ? eb : -eb)), sym_const(c->a, 1)) : lin_bad(c);
          bind_ptr(c, d, p);
          return;
        }
        store(c, ch.v[0], ACCESS_READWRITE, clang_getNullCursor(), -1);
        return;
      }
      if (op == CXUnaryOperator_AddrOf) {
        /* An address taken and used as a value: the pointer escapes. */
        ptrval p = eval_ptr(c, e);
        escape(c, p, ACCESS_READWRITE, "address escapes (stored or used where tidal cannot follow)");
        return;
      }
      if (op != CXUnaryOperator_Deref) {
        visit_expr(c, ch.v[0]);
        return;
      }
    }
    if (k == CXCursor_MemberRefExpr) {
      kids ch = children(e);
      if (ch.n == 1) {
        CXCursor b = cursor_strip(ch.v[0]);
        if (!is_pointer_type(clang_getCursorType(b)) &&
            clang_getCursorKind(b) != CXCursor_ArraySubscriptExpr &&
            clang_getCursorKind(b) != CXCursor_UnaryOperator) {
          visit_expr(c, b); /* s.x of a local struct, threadIdx.x */
          return;
        }
      }
    }
    int len;
    ptrval p = eval_lvalue(c, e, &len);
    record(c, p, ACCESS_READ, len, NULL);
    return;
  }
  case CXCursor_BinaryOperator:
  case CXCursor_CompoundAssignOperator: {
    kids ch = children(e);
    if (ch.n != 2) return;
    enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(e);
    if (op == CXBinaryOperator_Assign) {
      store(c, ch.v[0], ACCESS_WRITE, ch.v[1], op);
      return;
    }
    if (op >= CXBinaryOperator_MulAssign && op <= CXBinaryOperator_OrAssign) {
      store(c, ch.v[0], ACCESS_READWRITE, ch.v[1], op);
      return;
    }
    if ((op >= CXBinaryOperator_LT && op <= CXBinaryOperator_NE) || op == CXBinaryOperator_Cmp) {
      /* Comparing pointers reads no memory and lets nothing escape. */
      for (int i = 0; i < 2; i++)
        if (is_pointer_type(clang_getCursorType(ch.v[i]))) eval_ptr(c, ch.v[i]);
        else visit_expr(c, ch.v[i]);
      return;
    }
    if (is_pointer_type(clang_getCursorType(e))) {
      ptrval p = eval_ptr(c, e); /* p + i as a value: escapes unless consumed */
      escape(c, p, ACCESS_READWRITE, "pointer escapes (stored or used where tidal cannot follow)");
      return;
    }
    visit_expr(c, ch.v[0]);
    /* the right of && and || runs only sometimes (Note [dense]) */
    int sc = op == CXBinaryOperator_LAnd || op == CXBinaryOperator_LOr;
    c->cond += sc;
    visit_expr(c, ch.v[1]);
    c->cond -= sc;
    return;
  }
  case CXCursor_CallExpr:
    visit_call(c, e);
    return;
  case CXCursor_CXXThisExpr: /* `this` used as a value: the object escapes */
    escape(c, eval_ptr(c, e), ACCESS_READWRITE, "pointer escapes (stored or used where tidal cannot follow)");
    return;
  case CXCursor_DeclRefExpr: {
    binding *rb = ref_binding(c, e);
    if (rb) { /* a read through a reference */
      record(c, rb->ptr, ACCESS_READ, rb->ref_len, NULL);
      return;
    }
    /* A pointer parameter used as a bare value (stored in a struct, a
     * shared variable, returned...): we lose track of it. */
    if (is_pointer_type(clang_getCursorType(e))) {
      ptrval p = eval_ptr(c, e);
      escape(c, p, ACCESS_READWRITE, "pointer escapes (stored or used where tidal cannot follow)");
    }
    return;
  }
  case CXCursor_CStyleCastExpr:
  case CXCursor_CXXReinterpretCastExpr:
  case CXCursor_CXXStaticCastExpr:
  case CXCursor_CXXConstCastExpr:
  case CXCursor_CXXFunctionalCastExpr:
    if (is_pointer_type(clang_getCursorType(e))) {
      ptrval p = eval_ptr(c, e);
      escape(c, p, ACCESS_READWRITE, "pointer escapes (stored or used where tidal cannot follow)");
      return;
    }
    break;
  default:
    break;
  }
  if (k == CXCursor_LambdaExpr) return; /* lambdas are analysed where called (not supported: none) */
  /* every child, however many (an initializer list or constructor call
   * with more than 16 operands) */
  CXCursor *ch;
  int nch = all_children(e, &ch);
  for (int i = 0; i < nch; i++) {
    /* the arms of ?: run only sometimes (Note [dense]) */
    int arm = k == CXCursor_ConditionalOperator && i > 0;
    c->cond += arm;
    if (is_expr_kind(clang_getCursorKind(ch[i]))) visit_expr(c, ch[i]);
    else visit_stmt(c, ch[i]);
    c->cond -= arm;
  }
  free(ch);
}

/* ---- calls ------------------------------------------------------------------------------------ */

static int starts_with(const char *s, const char *p) { return !strncmp(s, p, strlen(p)); }

static int is_load_intrinsic(const char *n) {
  return !strcmp(n, "__ldg") || !strcmp(n, "__ldcs") || !strcmp(n, "__ldcg") ||
         !strcmp(n, "__ldca") || !strcmp(n, "__ldlu") || !strcmp(n, "__ldcv");
}
static int is_store_intrinsic(const char *n) {
  return !strcmp(n, "__stcs") || !strcmp(n, "__stcg") || !strcmp(n, "__stwb") ||
         !strcmp(n, "__stwt");
}

static void analyze_helper(kctx *c, CXCursor def, CXCursor call, int nargs, ptrval thisv, ptrval *rp,
                           lin *ri);

/* Note [member calls]: `o.m(args)`, `p->m(args)`, and the implicit ones
 * clang inserts - `(float)h` of a __half is `h.operator float()`.  The
 * call's first child is then a MemberRefExpr naming the method, of the
 * placeholder "bound member function" type (no size, no value: never an
 * lvalue to load), and its one expression child is the object.  The
 * object is an access of its own: a const method reads it, a static one
 * touches nothing, any other may write it (readwrite); a method with a
 * body here is analysed inline with `this` bound to the object's
 * address instead.  Operators called in operator form (`a = b`, `a += b`)
 * carry the object as their first argument and are not member calls. */
static int is_method_kind(enum CXCursorKind k) {
  return k == CXCursor_CXXMethod || k == CXCursor_ConversionFunction ||
         k == CXCursor_FunctionTemplate || k == CXCursor_Destructor;
}

/* 1 if call is a member call; *obj is its object expression (null when
 * libclang shows none). */
static int member_call_object(CXCursor call, CXCursor *obj) {
  *obj = clang_getNullCursor();
  kids ch = children(call);
  if (ch.n < 1) return 0;
  CXCursor callee = cursor_strip(ch.v[0]);
  if (clang_getCursorKind(callee) != CXCursor_MemberRefExpr ||
      !is_method_kind(clang_getCursorKind(clang_getCursorReferenced(callee))))
    return 0;
  kids mc = children(callee);
  for (int i = 0; i < mc.n && i < KIDS_MAX; i++) /* the object comes first */
    if (is_expr_kind(clang_getCursorKind(mc.v[i]))) {
      *obj = mc.v[i];
      break;
    }
  return 1;
}

/* The address of a member call's object (`p[i]`, `*p`, `p->`), with its
 * size in *len; reads inside it (the index) are visited, the object
 * itself is not recorded.  A temporary object is visited for its reads
 * and names no parameter. */
static ptrval object_address(kctx *c, CXCursor obj, int *len) {
  *len = 0;
  if (clang_Cursor_isNull(obj)) { /* implicit `this` inside a method */
    if (c->depth == 0 || c->this_ptr.param < 0) return ptr_none(c);
    *len = c->this_ptr.elem_bytes;
    return c->this_ptr;
  }
  CXCursor o = cursor_strip(obj);
  CXType ot = clang_getCursorType(o);
  ptrval p;
  if (is_pointer_type(ot)) { /* p->m(): the object is *p */
    *len = pointee_bytes(ot);
    p = eval_ptr(c, o);
  } else {
    enum CXCursorKind k = clang_getCursorKind(o);
    if (k == CXCursor_ArraySubscriptExpr || k == CXCursor_MemberRefExpr ||
        k == CXCursor_DeclRefExpr ||
        (k == CXCursor_UnaryOperator && clang_getCursorUnaryOperatorKind(o) == CXUnaryOperator_Deref)) {
      p = eval_lvalue(c, o, len);
    } else {
      visit_expr(c, o);
      return ptr_none(c);
    }
  }
  /* `this` inside the method points at the whole object */
  if (p.param >= 0) p.elem_bytes = *len;
  return p;
}

/* Cooperative groups: the rank of a thread in a `thread_block_tile<N>`
 * (`warp.thread_rank()`) is in [0, N); N is the tile type's first template
 * argument.  Other group queries (meta_group_rank(), a block's
 * thread_rank()) are unsigned, hence >= 0, and unbounded; a tile's size()
 * and num_threads() are constexpr and evaluate to N. */
static void tile_value(kctx *c, const char *name, CXCursor obj, lin *ri) {
  if (clang_Cursor_isNull(obj) || strcmp(name, "thread_rank")) return;
  CXType ot = clang_getCursorType(cursor_strip(obj));
  if (is_pointer_type(ot)) ot = clang_getPointeeType(clang_getCanonicalType(ot));
  CXCursor decl = clang_getTypeDeclaration(clang_getCanonicalType(ot));
  if (clang_Cursor_isNull(decl)) return;
  char *dn = string_and_dispose(clang_getCursorSpelling(decl));
  int tile = dn && !strcmp(dn, "thread_block_tile");
  free(dn);
  if (!tile || clang_Cursor_getNumTemplateArguments(decl) < 1 ||
      clang_Cursor_getTemplateArgumentKind(decl, 0) != CXTemplateArgumentKind_Integral)
    return;
  long long n = clang_Cursor_getTemplateArgumentValue(decl, 0);
  if (n <= 0 || n > (1 << 20)) return;
  *ri = lin_var(c, new_var(c, sym_const(c->a, n), 1));
}

/* The mode a call of method m makes on its object (Note [member calls]);
 * ACCESS_NONE for a static method. */
static unsigned method_object_mode(CXCursor m) {
  if (clang_CXXMethod_isStatic(m)) return ACCESS_NONE;
  return clang_CXXMethod_isConst(m) ? ACCESS_READ : ACCESS_READWRITE;
}

/* A call whose value is not followed (discarded, or used where tidal does
 * not look): a pointer a helper returns escapes. */
static void visit_call(kctx *c, CXCursor call) {
  ptrval rp;
  lin ri;
  visit_call_value(c, call, &rp, &ri);
  escape(c, rp, ACCESS_READWRITE, "pointer returned by a helper escapes");
}

/* Visits a call for its accesses; *rp / *ri receive the value a __device__
 * helper with a body returns (Note [helper returns]), else no pointer and
 * an opaque integer. */
static void visit_call_value(kctx *c, CXCursor call, ptrval *rp, lin *ri) {
  *rp = ptr_none(c);
  /* what a call returns, unless a helper's body says more: an unsigned
   * result is >= 0 (as threadIdx.x is: values are assumed not to wrap when
   * converted to int), which is what makes `warp.meta_group_rank()` and
   * the like usable in an index */
  *ri = lin_opaque(c, is_unsigned_type(clang_getCursorType(call)));
  char *name = callee_name(call);
  int nargs = clang_Cursor_getNumArguments(call);
  CXCursor ref = clang_getCursorReferenced(call);
  CXCursor obj;
  int member = member_call_object(call, &obj);

  if (starts_with(name, "operator")) {
    /* Overloaded operators of user types (float4 assignment, __half
     * arithmetic) and conversion functions (`operator float`).  Operator
     * form: the children are the operands around the callee reference;
     * member form: the object, then the arguments. */
    struct collect_list args = {NULL, 0, 0};
    if (member) {
      if (!clang_Cursor_isNull(obj)) collect_visitor(obj, call, &args);
      for (int i = 0; i < nargs; i++) collect_visitor(clang_Cursor_getArgument(call, (unsigned)i), call, &args);
    } else {
      CXCursor *ch;
      int nch = all_children(call, &ch);
      for (int i = 0; i < nch; i++) {
        CXCursor s = cursor_strip(ch[i]);
        enum CXCursorKind sk = clang_getCursorKind(s);
        /* skip the callee reference itself */
        if (sk == CXCursor_DeclRefExpr && is_method_kind(clang_getCursorKind(clang_getCursorReferenced(s))))
          continue;
        if (sk == CXCursor_DeclRefExpr && clang_getCursorType(s).kind == CXType_FunctionProto) continue;
        if (!is_expr_kind(sk)) continue;
        collect_visitor(ch[i], call, &args);
      }
      free(ch);
    }
    int na = args.n;
    if (!strcmp(name, "operator=") && na >= 1) {
      store(c, args.v[0], ACCESS_WRITE, na >= 2 ? args.v[1] : clang_getNullCursor(), -1);
      for (int i = 2; i < na; i++) visit_expr(c, args.v[i]);
    } else if (strlen(name) > 9 && name[strlen(name) - 1] == '=' && strcmp(name, "operator==") &&
               strcmp(name, "operator!=") && strcmp(name, "operator<=") && strcmp(name, "operator>=") &&
               na >= 1) {
      store(c, args.v[0], ACCESS_READWRITE, na >= 2 ? args.v[1] : clang_getNullCursor(), -1);
      for (int i = 2; i < na; i++) visit_expr(c, args.v[i]);
    } else if (member && !clang_Cursor_isNull(obj) && method_object_mode(ref) != ACCESS_READ) {
      /* a non-const member operator (`v[i]` of a user type, `operator()`)
       * may change its object */
      int len;
      ptrval p = object_address(c, obj, &len);
      if (method_object_mode(ref) != ACCESS_NONE) record(c, p, ACCESS_READWRITE, len, NULL);
      for (int i = 1; i < na; i++) visit_expr(c, args.v[i]);
    } else {
      for (int i = 0; i < na; i++) visit_expr(c, args.v[i]);
    }
    free(args.v);
    free(name);
    return;
  }

  if (starts_with(name, "atomic")) {
    c->flags |= KERNEL_ATOMICS;
    for (int i = 0; i < nargs; i++) {
      CXCursor a = clang_Cursor_getArgument(call, (unsigned)i);
      if (i == 0 && is_pointer_type(clang_getCursorType(a))) {
        if (pointee_is_float(clang_getCursorType(a)) && strcmp(name, "atomicExch") &&
            strcmp(name, "atomicCAS"))
          c->flags |= KERNEL_NONDETERMINISTIC;
        ptrval p = eval_ptr(c, a);
        record(c, p, ACCESS_READWRITE, pointee_bytes(clang_getCursorType(a)), NULL);
      } else {
        visit_expr(c, a);
      }
    }
    free(name);
    return;
  }
  if (is_load_intrinsic(name) || is_store_intrinsic(name)) {
    unsigned mode = is_load_intrinsic(name) ? ACCESS_READ : ACCESS_WRITE;
    for (int i = 0; i < nargs; i++) {
      CXCursor a = clang_Cursor_getArgument(call, (unsigned)i);
      if (i == 0 && is_pointer_type(clang_getCursorType(a))) {
        ptrval p = eval_ptr(c, a);
        record(c, p, mode, pointee_bytes(clang_getCursorType(a)), NULL);
        if (mode == ACCESS_WRITE) note_cover(c, p, pointee_bytes(clang_getCursorType(a)));
      } else {
        visit_expr(c, a);
      }
    }
    free(name);
    return;
  }
  if (starts_with(name, "curand")) c->flags |= KERNEL_RNG;

  /* The object of a member call (Note [member calls]). */
  int obj_len = 0;
  ptrval objp = member ? object_address(c, obj, &obj_len) : ptr_none(c);

  /* A __device__ helper with a body: analysed inline with its arguments. */
  CXCursor def = clang_Cursor_isNull(ref) ? ref : clang_getCursorDefinition(ref);
  if (!clang_Cursor_isNull(def) && !clang_Location_isInSystemHeader(clang_getCursorLocation(def)) &&
      (clang_getCursorKind(def) == CXCursor_FunctionDecl || clang_getCursorKind(def) == CXCursor_CXXMethod)) {
    analyze_helper(c, def, call, nargs, objp, rp, ri);
    free(name);
    return;
  }
  if (member && !clang_Cursor_isNull(ref)) {
    unsigned om = method_object_mode(ref);
    if (om != ACCESS_NONE) record(c, objp, om, obj_len, NULL);
    tile_value(c, name, obj, ri);
  }

  /* No body here (a library function, an intrinsic we do not model):
   * pointers into parameters are assumed written unless the callee takes
   * them as pointer-to-const. */
  char why[160];
  snprintf(why, sizeof why, "passed to '%s', which tidal cannot see into", name);
  CXType fty = clang_Cursor_isNull(ref) ? clang_getCursorType(call) : clang_getCursorType(ref);
  int nfp = clang_getNumArgTypes(fty);
  for (int i = 0; i < nargs; i++) {
    CXCursor a = clang_Cursor_getArgument(call, (unsigned)i);
    if (is_pointer_type(clang_getCursorType(a))) {
      ptrval p = eval_ptr(c, a);
      int ro = i < nfp ? pointee_is_const(clang_getArgType(fty, (unsigned)i))
                       : pointee_is_const(clang_getCursorType(a));
      escape(c, p, ro ? ACCESS_READ : ACCESS_READWRITE, why);
    } else {
      visit_expr(c, a);
    }
  }
  free(name);
}

/* Binds the helper's parameters to the argument values and walks its body
 * in this same context: accesses land on the kernel's parameters. */
static void analyze_helper(kctx *c, CXCursor def, CXCursor call, int nargs, ptrval thisv, ptrval *rp,
                           lin *ri) {
  for (int i = 0; i < c->depth; i++)
    if (clang_equalCursors(c->helpers[i], def) || c->depth >= HELPER_MAX_DEPTH) {
      /* recursion or too deep: every pointer argument escapes */
      escape(c, thisv, ACCESS_READWRITE, "passed to a recursive or deeply nested helper");
      for (int j = 0; j < nargs; j++) {
        CXCursor a = clang_Cursor_getArgument(call, (unsigned)j);
        if (is_pointer_type(clang_getCursorType(a)))
          escape(c, eval_ptr(c, a), ACCESS_READWRITE, "passed to a recursive or deeply nested helper");
        else
          visit_expr(c, a);
      }
      return;
    }
  params_list pl = fn_params(def);
  int np = pl.n;
  binding *vals = calloc((size_t)(np > 0 ? np : 1), sizeof *vals);
  if (!vals) {
    free(pl.v);
    return;
  }
  /* Evaluate every argument in the caller's environment first. */
  for (int i = 0; i < np; i++) {
    CXCursor parm = pl.v[i];
    vals[i].decl = parm;
    CXType pt = clang_getCursorType(parm);
    if (i >= nargs) {
      vals[i].kind = BIND_INT;
      vals[i].val = lin_opaque(c, 0); /* default argument */
      continue;
    }
    CXCursor a = clang_Cursor_getArgument(call, (unsigned)i);
    if (is_pointer_type(pt)) {
      vals[i].kind = BIND_PTR;
      vals[i].ptr = eval_ptr(c, a);
    } else if (clang_getCanonicalType(pt).kind == CXType_LValueReference ||
               clang_getCanonicalType(pt).kind == CXType_RValueReference) {
      CXType rt = clang_getPointeeType(clang_getCanonicalType(pt));
      if (is_pointer_type(rt)) {
        /* T *& parameter: the helper may move the caller's pointer */
        ptrval p = eval_ptr(c, a);
        escape(c, p, ACCESS_READWRITE, "bound to a reference parameter of a helper");
        vals[i].kind = BIND_PTR;
        vals[i].ptr = p;
        if (p.param >= 0) vals[i].ptr.off = lin_bad(c);
      } else {
        /* T &x = p[i]: reads and writes of x are of p[i] */
        vals[i].kind = BIND_REF;
        vals[i].ptr = ref_target(c, a, &vals[i].ref_len);
      }
    } else if (cursor_is_integer_type(pt)) {
      vals[i].kind = BIND_INT;
      vals[i].val = eval_int(c, a);
    } else {
      visit_expr(c, a);
      vals[i].kind = BIND_INT;
      vals[i].val = lin_opaque(c, 0);
    }
  }
  free(pl.v);
  int saved = c->n_env;
  for (int i = 0; i < np; i++) bind(c, vals[i]);
  free(vals);
  int saved_nret = c->n_ret;
  ptrval saved_this = c->this_ptr;
  c->this_ptr = thisv;
  ptrval saved_rptr = c->ret_ptr;
  lin saved_rint = c->ret_int;
  c->n_ret = 0;
  c->ret_ptr = ptr_none(c);
  c->ret_int = lin_opaque(c, 0);
  c->helpers[c->depth++] = def;
  visit_stmt(c, cursor_fn_body(def));
  c->depth--;
  if (c->n_ret > 0) {
    *rp = c->ret_ptr;
    *ri = c->ret_int;
  }
  c->n_ret = saved_nret;
  c->this_ptr = saved_this;
  c->ret_ptr = saved_rptr;
  c->ret_int = saved_rint;
  env_restore(c, saved);
}

/* Note [helper returns]: `return e;` in a helper being analysed inline
 * gives the call's value: a pointer (`row_ptr(out, r, C)` returning
 * `base + r*C`) or an affine integer (`idx2(r, c, C)` returning `r*C + c`),
 * in the caller's base variables (guards in the helper included).  Over
 * several returns the value is kept only where they agree: the same
 * parameter with different offsets is an unknown offset into it; different
 * parameters escape; different integers are opaque.  A pointer value the
 * caller does not follow escapes (visit_call). */
static int lin_equal(const lin *x, const lin *y) {
  if (!x->ok || !y->ok || x->n != y->n || !sym_equal(x->k, y->k)) return 0;
  for (int i = 0; i < x->n; i++) {
    int j;
    for (j = 0; j < y->n && y->var[j] != x->var[i]; j++) {}
    if (j == y->n || !sym_equal(x->coef[i], y->coef[j])) return 0;
  }
  return 1;
}

static void helper_return(kctx *c, CXCursor value) {
  CXType rt = clang_getCursorResultType(c->helpers[c->depth - 1]);
  if (is_pointer_type(rt)) {
    ptrval p = eval_ptr(c, value);
    if (c->n_ret == 0) {
      c->ret_ptr = p;
    } else if (c->ret_ptr.param == p.param) {
      if (!lin_equal(&c->ret_ptr.off, &p.off)) c->ret_ptr.off = lin_bad(c);
    } else {
      escape(c, c->ret_ptr, ACCESS_READWRITE, "helper returns pointers into different buffers");
      escape(c, p, ACCESS_READWRITE, "helper returns pointers into different buffers");
      c->ret_ptr = ptr_none(c);
    }
  } else if (cursor_is_integer_type(rt)) {
    lin v = eval_int(c, value);
    if (c->n_ret == 0) c->ret_int = v;
    else if (!lin_equal(&c->ret_int, &v)) c->ret_int = lin_opaque(c, 0);
  } else {
    visit_expr(c, value);
  }
  c->n_ret++;
}

/* ---- statements, guards and loops ---------------------------------------------------------- */

static void narrow_value(kctx *c, lin x, sym *mx, int strict);
static void rebind_guarded(kctx *c, CXCursor d, lin l, sym *mx, int strict);
static void rebind_nonneg(kctx *c, CXCursor d);

/* Applies "e holds" (negate: "e does not hold") as bounds on locals:
 * v < E, v <= E, E > v, E >= v, and conjunctions (disjunctions when
 * negated, by De Morgan). */
static void apply_guard(kctx *c, CXCursor e, int negate) {
  e = cursor_strip(e);
  enum CXCursorKind k = clang_getCursorKind(e);
  if (k == CXCursor_UnaryOperator && clang_getCursorUnaryOperatorKind(e) == CXUnaryOperator_LNot) {
    kids ch = children(e);
    if (ch.n == 1) apply_guard(c, ch.v[0], !negate);
    return;
  }
  if (k != CXCursor_BinaryOperator) return;
  kids ch = children(e);
  if (ch.n != 2) return;
  enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(e);
  if ((op == CXBinaryOperator_LAnd && !negate) || (op == CXBinaryOperator_LOr && negate)) {
    apply_guard(c, ch.v[0], negate);
    apply_guard(c, ch.v[1], negate);
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
    var = ch.v[0];
    lim = ch.v[1];
    strict = op == CXBinaryOperator_LT;
  } else if (op == CXBinaryOperator_GT || op == CXBinaryOperator_GE) {
    var = ch.v[1];
    lim = ch.v[0];
    strict = op == CXBinaryOperator_GT;
  } else {
    return;
  }
  lin x = eval_int(c, var); /* the guarded value, before any rebinding */
  lin l = eval_int(c, lim);
  /* the other side is bounded below: `oh >= 0` (0 <= oh), `w > -1` make
   * a local E in `v < E` / `v <= E` non-negative when v's minimum is */
  sym *mn = lin_min(c, x);
  if (mn && (sym_nonneg(mn) || (strict && sym_nonneg(sym_add(c->a, mn, sym_const(c->a, 1)))))) {
    CXCursor ld = local_decl(lim);
    if (!clang_Cursor_isNull(ld) && cursor_is_integer_type(clang_getCursorType(ld))) rebind_nonneg(c, ld);
  }
  sym *mx = lin_max(c, l);
  if (!mx) return;
  CXCursor d = local_decl(var);
  if (!clang_Cursor_isNull(d) && cursor_is_integer_type(clang_getCursorType(d))) rebind_guarded(c, d, l, mx, strict);
  narrow_value(c, x, mx, strict);
}

/* Note [guards narrow values]: a guard `a*v + k < E` (<=, and the mirrored
 * forms; a > 0 and k constants) bounds the base variable v itself, in
 * place, for as long as the environment scope the guard holds in: the
 * then-branch, the rest of the block after `if (...) return;`, a loop
 * body.  Base variables are values, not storage, so every value built from
 * v - a pointer `x = inp + idx*C` computed before the guard, `4*i` in
 * `if (4*i < N)` - is bounded on those paths.  The narrowing is undone when
 * the scope ends (env_restore), so code that may run without the guard
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
    if (sym_equal(v->bound, bound) || dominates(c, bound, v->bound)) return; /* already as tight */
    if (!dominates(c, v->bound, bound)) bound = sym_min(c->a, v->bound, bound);
  }
  /* an empty binding marks the scope: env_restore undoes the narrowing when
   * the environment drops below it */
  binding mark;
  memset(&mark, 0, sizeof mark);
  mark.decl = clang_getNullCursor();
  mark.kind = BIND_INT;
  mark.val = lin_bad(c);
  bind(c, mark);
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
  binding *b = lookup(c, d);
  if (!b || b->kind != BIND_INT || lin_nonneg(c, b->val)) return;
  sym *own = b->val.ok ? lin_max_mode(c, b->val, 0) : NULL;
  int nv = new_var(c, own ? sym_add(c->a, own, sym_const(c->a, 1)) : NULL, 1);
  if (nv >= 0) bind_int(c, d, lin_var(c, nv));
}

/* The local d guarded by `d < E` (E's value l, inclusive maximum mx) is
 * rebound to a fresh variable bounded by E. */
static void rebind_guarded(kctx *c, CXCursor d, lin l, sym *mx, int strict) {
  binding *b = lookup(c, d);
  int nonneg = b && b->kind == BIND_INT && lin_nonneg(c, b->val);
  sym *bound = strict ? mx : sym_add(c->a, mx, sym_const(c->a, 1));
  /* Keep a tighter existing bound if the variable had one of its own. */
  if (b && b->kind == BIND_INT && b->val.ok) {
    sym *old = lin_max_mode(c, b->val, 0);
    if (old) bound = sym_min(c->a, bound, sym_add(c->a, old, sym_const(c->a, 1)));
  }
  /* A covering variable bounded by parameters alone stays covering, now
   * over [0, bound) (Note [dense]). */
  int cover = COV_NONE;
  if (b && b->kind == BIND_INT && l.ok && l.n == 0) {
    switch (var_cover(c, &b->val)) {
    case COV_GTID_RAW:
    case COV_THREADS: cover = COV_THREADS; break;
    case COV_BID_RAW:
    case COV_BLOCKS: cover = COV_BLOCKS; break;
    case COV_LOOP:
    case COV_ALL: cover = COV_ALL; break;
    default: break;
    }
  }
  int nv = new_var(c, bound, nonneg);
  if (nv >= 0 && cover != COV_NONE) {
    c->vars[nv].cover = cover;
    if (c->n_gv < PATH_MAX_VARS) c->gv[c->n_gv++] = nv;
  }
  bind_int(c, d, lin_var(c, nv));
}

/* 1 if "e holds" (negate: "does not hold") is a pure bound guard: a
 * conjunction of v < E (<=, >, >= likewise) where v is a covering variable
 * and E is over parameters only - a condition that restricts the index
 * range and nothing else (Note [dense]).  Mirrors apply_guard. */
static int guard_pure(kctx *c, CXCursor e, int negate) {
  e = cursor_strip(e);
  enum CXCursorKind k = clang_getCursorKind(e);
  if (k == CXCursor_UnaryOperator && clang_getCursorUnaryOperatorKind(e) == CXUnaryOperator_LNot) {
    kids ch = children(e);
    return ch.n == 1 && guard_pure(c, ch.v[0], !negate);
  }
  if (k != CXCursor_BinaryOperator) return 0;
  kids ch = children(e);
  if (ch.n != 2) return 0;
  enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(e);
  if ((op == CXBinaryOperator_LAnd && !negate) || (op == CXBinaryOperator_LOr && negate))
    return guard_pure(c, ch.v[0], negate) && guard_pure(c, ch.v[1], negate);
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
    var = ch.v[0];
    lim = ch.v[1];
  } else if (op == CXBinaryOperator_GT || op == CXBinaryOperator_GE) {
    var = ch.v[1];
    lim = ch.v[0];
  } else {
    return 0;
  }
  CXCursor d = local_decl(var);
  if (clang_Cursor_isNull(d) || !cursor_is_integer_type(clang_getCursorType(d))) return 0;
  binding *b = lookup(c, d);
  if (!b || b->kind != BIND_INT) return 0;
  int cv = var_cover(c, &b->val);
  if (cv != COV_GTID_RAW && cv != COV_THREADS && cv != COV_BID_RAW && cv != COV_BLOCKS &&
      cv != COV_LOOP && cv != COV_ALL)
    return 0;
  lin l = eval_int(c, lim);
  return l.ok && l.n == 0;
}

/* Appends the covering variables the last apply_guard made to the path. */
static void path_push_guard(kctx *c) {
  for (int i = 0; i < c->n_gv; i++) {
    if (c->n_path >= PATH_MAX_VARS) {
      c->n_path = PATH_MAX_VARS + 1;
      return;
    }
    c->path[c->n_path++] = c->gv[i];
  }
}

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
      kids ch = children(cur);
      if (ch.n == 2) target = local_decl(ch.v[0]);
    }
  } else if (k == CXCursor_UnaryOperator) {
    enum CXUnaryOperatorKind op = clang_getCursorUnaryOperatorKind(cur);
    if (op >= CXUnaryOperator_PostInc && op <= CXUnaryOperator_PreDec) {
      kids ch = children(cur);
      if (ch.n == 1) target = local_decl(ch.v[0]);
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
    binding *b = lookup(c, as.v[i]);
    if (!b || b->kind == BIND_REF) continue; /* assigning through a reference keeps its target */
    if (b->kind == BIND_PTR) {
      ptrval p = b->ptr;
      p.off = lin_bad(c);
      bind_ptr(c, as.v[i], p);
    } else {
      bind_int(c, as.v[i], lin_opaque(c, 0));
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
    int n = all_children(s, &st);
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
  int ncol = all_children(s, &col);
  for (int i = 0; i < ncol; i++) {
    CXCursor st = col[i];
    int early = 0;
    kids ik = {.n = 0};
    if (clang_getCursorKind(st) == CXCursor_IfStmt) {
      ik = children(st);
      /* children: cond, then (no else) */
      early = ik.n == 2 && is_expr_kind(clang_getCursorKind(ik.v[0])) && is_return_only(ik.v[1]);
    }
    /* `if (v >= N) return;` is a bound guard, not an early exit (Note [dense]) */
    int pure = early && guard_pure(c, ik.v[0], 1);
    int saved_exit = c->exit_ok;
    c->exit_ok = pure;
    visit_stmt(c, st);
    c->exit_ok = saved_exit;
    if (early) {
      c->n_gv = 0;
      apply_guard(c, ik.v[0], 1);
      if (pure) path_push_guard(c);
    }
  }
  free(col);
  env_restore(c, saved);
  c->n_path = saved_path;
  /* Locals declared outside and assigned inside now hold unknown values. */
  havoc_assigned(c, s, clang_getNullCursor());
}

/* What a reference bound to init refers to: the address and size of the
 * element an lvalue names (`out[i]`, `*p`, `p->f` (the whole element: field
 * offsets are not tracked), another reference).  Anything else - a
 * temporary bound to a const reference, a call returning a reference - is
 * visited for its reads and refers to no parameter. */
static ptrval ref_target(kctx *c, CXCursor init, int *len) {
  CXCursor in = cursor_strip(init);
  enum CXCursorKind ik = clang_getCursorKind(in);
  *len = 0;
  if (ik == CXCursor_ArraySubscriptExpr || ik == CXCursor_MemberRefExpr ||
      (ik == CXCursor_UnaryOperator && clang_getCursorUnaryOperatorKind(in) == CXUnaryOperator_Deref) ||
      ik == CXCursor_DeclRefExpr)
    return eval_lvalue(c, in, len);
  visit_expr(c, init);
  return ptr_none(c);
}

/* Binds reference d (of type t) to what init names.  A reference to a
 * pointer (`float *&q = p`) would alias the pointer variable itself, which
 * the environment does not model: the pointer escapes. */
static void bind_reference(kctx *c, CXCursor d, CXType t, CXCursor init) {
  CXType rt = clang_getPointeeType(clang_getCanonicalType(t));
  if (is_pointer_type(rt)) {
    ptrval p = eval_ptr(c, init);
    escape(c, p, ACCESS_READWRITE, "pointer bound to a reference");
    if (p.param >= 0) p.off = lin_bad(c);
    bind_ptr(c, d, p);
    return;
  }
  int len;
  ptrval p = ref_target(c, init, &len);
  bind_ref(c, d, p, len);
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
  return lin_const(c, sym_var(c->a, ds->name));
}

static sym *size_lookup(void *ud, const char *name) {
  kctx *c = ud;
  for (int i = 0; i < c->n_sizes; i++)
    if (!strcmp(c->sizes[i].name, name)) return sym_subst(c->a, c->sizes[i].value, size_lookup, c);
  return NULL;
}

/* An extent or launch condition over parameters only (Note [derived sizes]). */
static sym *unsize(kctx *c, sym *e) { return e && c->n_sizes ? sym_subst(c->a, e, size_lookup, c) : e; }

static void visit_decl(kctx *c, CXCursor d) {
  if (clang_getCursorKind(d) != CXCursor_VarDecl) return;
  CXType t = clang_getCursorType(d);
  CXCursor init = cursor_last_expr_child(d);
  enum CXTypeKind tk = clang_getCanonicalType(t).kind;
  if ((tk == CXType_LValueReference || tk == CXType_RValueReference) && !clang_Cursor_isNull(init)) {
    bind_reference(c, d, t, init);
    return;
  }
  if (is_pointer_type(t)) {
    bind_ptr(c, d, clang_Cursor_isNull(init) ? ptr_none(c) : eval_ptr(c, init));
  } else if (cursor_is_integer_type(t)) {
    bind_int(c, d, clang_Cursor_isNull(init) ? lin_opaque(c, 0) : size_local(c, d, eval_int(c, init)));
  } else if (!clang_Cursor_isNull(init)) {
    visit_expr(c, init);
  }
}

/* 0 when s has more children than a for statement can (init, condition
 * variable, condition, increment, body): never, but then visit_stmt walks
 * them as plain statements. */
static int visit_for(kctx *c, CXCursor s) {
  kids ch = children(s);
  if (ch.n > KIDS_MAX) return 0;
  if (ch.n == 0) return 1;
  int saved = c->n_env;
  CXCursor body = ch.v[ch.n - 1];
  CXCursor init = clang_getNullCursor(), cond = clang_getNullCursor(), inc = clang_getNullCursor();
  /* libclang omits empty for-clauses: tell them apart by shape. */
  for (int i = 0; i < ch.n - 1; i++) {
    CXCursor x = cursor_strip(ch.v[i]);
    enum CXCursorKind k = clang_getCursorKind(x);
    int is_cmp = 0;
    if (k == CXCursor_BinaryOperator) {
      enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(x);
      is_cmp = (op >= CXBinaryOperator_LT && op <= CXBinaryOperator_NE) ||
               op == CXBinaryOperator_LAnd || op == CXBinaryOperator_LOr;
    }
    if (is_cmp && clang_Cursor_isNull(cond)) cond = ch.v[i];
    else if (clang_Cursor_isNull(cond) && clang_Cursor_isNull(init)) init = ch.v[i];
    else inc = ch.v[i];
  }
  if (!clang_Cursor_isNull(init)) visit_stmt(c, init);
  /* The loop variable: bounded by the condition when its start is >= 0
   * and it only grows (++, += of a non-negative amount). */
  CXCursor lv = clang_getNullCursor();
  int grows = 0;
  int step_kind = 0; /* 1: +1, 2: += blockDim.x*gridDim.x, 3: += blockDim.x */
  if (!clang_Cursor_isNull(inc)) {
    CXCursor x = cursor_strip(inc);
    enum CXCursorKind k = clang_getCursorKind(x);
    kids ich = children(x);
    if (k == CXCursor_UnaryOperator && ich.n == 1) {
      enum CXUnaryOperatorKind op = clang_getCursorUnaryOperatorKind(x);
      lv = local_decl(ich.v[0]);
      grows = op == CXUnaryOperator_PostInc || op == CXUnaryOperator_PreInc;
    } else if (k == CXCursor_CompoundAssignOperator && ich.n == 2 &&
               clang_getCursorBinaryOperatorKind(x) == CXBinaryOperator_AddAssign) {
      lv = local_decl(ich.v[0]);
      lin step = eval_int(c, ich.v[1]);
      grows = lin_nonneg(c, step);
      int64_t one;
      if (step.ok && step.n == 0 && sym_get_const(step.k, &one) && one == 1) step_kind = 1;
      else if (var_cover(c, &step) == COV_STRIDE_RAW) step_kind = 2;
      else if (var_cover(c, &step) == COV_BDIM_RAW) step_kind = 3;
    }
    if (k == CXCursor_UnaryOperator && grows) step_kind = 1;
  }
  binding *lb = clang_Cursor_isNull(lv) ? NULL : lookup(c, lv);
  int start_nonneg = lb && lb->kind == BIND_INT && lin_nonneg(c, lb->val);
  /* Loops whose variable takes every value of [0, bound) (Note [dense]):
   * from 0 by 1, a grid-stride loop, a block loop. */
  int covering = 0;
  if (lb && lb->kind == BIND_INT) {
    int64_t z;
    int sc = var_cover(c, &lb->val);
    covering = (step_kind == 1 && lb->val.ok && lb->val.n == 0 && sym_get_const(lb->val.k, &z) &&
                z == 0) ||
               (step_kind == 2 && sc == COV_GTID_RAW) || (step_kind == 3 && sc == COV_TID_RAW);
  }
  havoc_assigned(c, body, clang_getNullCursor());
  /* whatever the increment assigns (`i = i + 1`, `i++, j++`, `s <<= 1`)
   * differs from its entry value from the second iteration on; a
   * recognised loop variable is rebound below */
  if (!clang_Cursor_isNull(inc)) havoc_assigned(c, inc, clang_getNullCursor());
  if (!clang_Cursor_isNull(lv) && is_pointer_type(clang_getCursorType(lv))) {
    /* a pointer loop variable (`for (p = out; p < end; p++) *p = 0`):
     * still into its parameter, offset not tracked */
    binding *pb = lookup(c, lv);
    ptrval p = pb && pb->kind == BIND_PTR ? pb->ptr : ptr_none(c);
    if (p.param >= 0) p.off = lin_bad(c);
    bind_ptr(c, lv, p);
  } else if (!clang_Cursor_isNull(lv)) {
    /* the body must not assign the loop variable itself */
    assigned as = {NULL, 0, 0};
    clang_visitChildren(body, assigned_visitor, &as);
    for (int i = 0; i < as.n; i++)
      if (clang_equalCursors(as.v[i], lv)) grows = 0;
    free(as.v);
    lin v = lin_opaque(c, grows && start_nonneg);
    if (covering && grows && start_nonneg && v.ok && v.n == 1) c->vars[v.var[0]].cover = COV_LOOP;
    bind_int(c, lv, v);
  }
  int saved_path = c->n_path;
  int pure = 0;
  if (!clang_Cursor_isNull(cond)) {
    visit_expr(c, cond);
    pure = guard_pure(c, cond, 0);
    c->n_gv = 0;
    apply_guard(c, cond, 0);
    if (pure) path_push_guard(c);
  }
  /* the body runs for every value of a covering loop's variable; any other
   * loop's body is a conditional (Note [dense]) */
  int conditional = !pure;
  c->cond += conditional;
  c->loops++;
  visit_stmt(c, body);
  c->loops--;
  c->cond -= conditional;
  c->n_path = saved_path;
  if (!clang_Cursor_isNull(inc)) visit_expr(c, inc);
  env_restore(c, saved);
  /* After the loop, what it assigned is unknown. */
  havoc_assigned(c, s, clang_getNullCursor());
  return 1;
}

static void visit_stmt(kctx *c, CXCursor s) {
  if (clang_Cursor_isNull(s) || stack_too_deep(s, "statement")) return;
  enum CXCursorKind k = clang_getCursorKind(s);
  if (is_expr_kind(k)) {
    visit_expr(c, s);
    return;
  }
  switch (k) {
  case CXCursor_CompoundStmt:
    visit_compound(c, s);
    return;
  case CXCursor_DeclStmt: {
    CXCursor *col;
    int ncol = all_children(s, &col);
    for (int i = 0; i < ncol; i++) visit_decl(c, col[i]);
    free(col);
    return;
  }
  case CXCursor_IfStmt: {
    kids ch = children(s);
    if (ch.n > KIDS_MAX) break; /* never (init, condition variable, condition, then, else) */
    int ci = -1;
    for (int i = 0; i < ch.n; i++)
      if (is_expr_kind(clang_getCursorKind(ch.v[i]))) {
        ci = i;
        break;
      }
    if (ci < 0) {
      for (int i = 0; i < ch.n; i++) visit_stmt(c, ch.v[i]);
      return;
    }
    for (int i = 0; i < ci; i++) visit_stmt(c, ch.v[i]); /* init / condition variable */
    visit_expr(c, ch.v[ci]);
    int saved = c->n_env, saved_path = c->n_path;
    /* Note [dense]: a bound guard's then-branch runs for every index in
     * range; any other branch only sometimes */
    int pure = ci == 0 && guard_pure(c, ch.v[ci], 0);
    if (ci + 1 < ch.n) {
      c->n_gv = 0;
      apply_guard(c, ch.v[ci], 0);
      if (pure) path_push_guard(c);
      c->cond += !pure;
      visit_stmt(c, ch.v[ci + 1]);
      c->cond -= !pure;
      env_restore(c, saved);
      c->n_path = saved_path;
    }
    if (ci + 2 < ch.n) {
      apply_guard(c, ch.v[ci], 1);
      c->cond++;
      visit_stmt(c, ch.v[ci + 2]);
      c->cond--;
      env_restore(c, saved);
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
    int nch = all_children(s, &ch);
    c->cond++; /* Note [dense]: how often the body runs is not known */
    c->loops++;
    for (int i = 0; i < nch; i++) visit_stmt(c, ch[i]);
    free(ch);
    c->loops--;
    c->cond--;
    env_restore(c, saved);
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
    int ncol = all_children(s, &col);
    for (int i = 0; i < ncol; i++) {
      if (k == CXCursor_ReturnStmt && c->depth > 0 && is_expr_kind(clang_getCursorKind(col[i])))
        helper_return(c, col[i]);
      else
        visit_stmt(c, col[i]);
    }
    free(col);
    return;
  }
  case CXCursor_SwitchStmt:
  case CXCursor_CaseStmt:
  case CXCursor_DefaultStmt: {
    CXCursor *col;
    int ncol = all_children(s, &col);
    c->cond++; /* Note [dense]: which case runs depends on data */
    for (int i = 0; i < ncol; i++) visit_stmt(c, col[i]);
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
  int ncol = all_children(s, &col);
  for (int i = 0; i < ncol; i++) visit_stmt(c, col[i]);
  free(col);
}

/* ---- kernels --------------------------------------------------------------------------------- */

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
  params_list pl = fn_params(f);
  int np = pl.n;
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
    free(pl.v);
    return -1;
  }
  for (int i = 0; i < np; i++) {
    CXCursor p = pl.v[i];
    CXType pt = clang_getCursorType(p);
    kernel_param *kp = &ki->params[i];
    kp->name = string_and_dispose(clang_getCursorSpelling(p));
    kp->is_pointer = is_pointer_type(pt);
    if (kp->is_pointer) {
      kp->elem_type = elem_type_name(pt);
      kp->elem_bytes = eb[i] = pointee_bytes(pt);
      if (kp->elem_type && strstr(kp->elem_type, "curandState")) c.flags |= KERNEL_RNG;
      ptrval pv;
      pv.param = i;
      pv.off = lin_const(&c, sym_const(c.a, 0));
      pv.elem_bytes = eb[i];
      bind_ptr(&c, p, pv);
    } else {
      /* Scalars are names in the extents; Note [extents] assumes them >= 0. */
      bind_int(&c, p, cursor_is_integer_type(pt) ? lin_const(&c, sym_var(c.a, kp->name ? kp->name : "?"))
                                          : lin_opaque(&c, 0));
    }
  }
  free(pl.v);
  char **names = calloc((size_t)(np ? np : 1), sizeof *names);
  for (int i = 0; names && i < np; i++) names[i] = ki->params[i].name;
  c.param_names = names;
  if (ki->has_body) visit_stmt(&c, cursor_fn_body(f));
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
    kp->extent = unsize(&c, kp->extent);
    kp->threads_needed = unsize(&c, kp->threads_needed);
    kp->blocks_needed = unsize(&c, kp->blocks_needed);
  }
  ki->flags = c.flags;
  /* Note [elementwise split] (split.c): needs the modes, extents and flags */
  int rc = kernels_split_analyze(f, ki, c.a);
  free(c.ps);
  free(c.vars);
  free(c.env);
  free(c.trail);
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
 * one), which is the entry in the table.  The rewriter walks template
 * bodies as written, so without this the launch was no op site: never
 * instrumented, and never said. */
static CXCursor dependent_callee(CXCursor call) {
  if (clang_getCursorKind(call) != CXCursor_CallExpr) return clang_getNullCursor();
  kids ch = children(call);
  CXCursor c = ch.n >= 1 ? ch.v[0] : clang_getNullCursor();
  for (int depth = 0; depth < 4 && !clang_Cursor_isNull(c); depth++) {
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_DeclRefExpr) { /* an unresolved name refers to its overload set */
      CXCursor r = clang_getCursorReferenced(c);
      if (clang_getCursorKind(r) == CXCursor_OverloadedDeclRef) c = r, k = CXCursor_OverloadedDeclRef;
      else if (!clang_Cursor_isNull(r)) return r;
    }
    if (k == CXCursor_OverloadedDeclRef)
      return clang_getNumOverloadedDecls(c) >= 1 ? clang_getOverloadedDecl(c, 0) : clang_getNullCursor();
    if (k != CXCursor_DeclRefExpr && k != CXCursor_UnexposedExpr) {
      break;
    }
    kids g = children(c);
    c = g.n == 1 ? g.v[0] : clang_getNullCursor();
  }
  return clang_getNullCursor();
}

const kernel_info *kernels_find(const kernel_table *kt, CXCursor callee) {
  CXCursor ref = clang_getCursorReferenced(callee);
  if (clang_Cursor_isNull(ref)) ref = dependent_callee(callee); /* Note [launches in templates] */
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

/* ---- launches (Note [dense]) ------------------------------------------------------------- */

/* The integer x component of a dim3-typed launch argument. */
static CXCursor dim_x(CXCursor e) {
  for (int depth = 0; depth < 8 && !clang_Cursor_isNull(e); depth++) {
    e = cursor_strip(e);
    if (cursor_is_integer_type(clang_getCursorType(e))) return e;
    enum CXCursorKind k = clang_getCursorKind(e);
    if (k == CXCursor_CallExpr && clang_Cursor_getNumArguments(e) >= 1) {
      /* dim3(x, ...) or the implicit conversion from an integer */
      e = clang_Cursor_getArgument(e, 0);
      continue;
    }
    if (k == CXCursor_CXXFunctionalCastExpr || k == CXCursor_UnexposedExpr) {
      e = cursor_last_expr_child(e);
      continue;
    }
    break;
  }
  return clang_getNullCursor();
}

static int is_config_call(CXCursor e) {
  e = cursor_strip(e);
  if (clang_getCursorKind(e) != CXCursor_CallExpr) return 0;
  char *n = callee_name(e);
  int r = n && (strstr(n, "PushCallConfiguration") || !strcmp(n, "cudaConfigureCall"));
  free(n);
  return r;
}

void kernels_launch_dims(CXCursor call, CXCursor *grid_x, CXCursor *block_x) {
  *grid_x = *block_x = clang_getNullCursor();
  CXCursor cfg = clang_getNullCursor();
  char *n = callee_name(call);
  int launch_kernel = n && !strcmp(n, "cudaLaunchKernel");
  free(n);
  if (launch_kernel) {
    cfg = call;
  } else {
    kids ch = children(call);
    for (int i = 0; i < ch.n && i < 3 && clang_Cursor_isNull(cfg); i++)
      if (is_config_call(ch.v[i])) cfg = cursor_strip(ch.v[i]);
  }
  if (clang_Cursor_isNull(cfg)) return;
  int first = launch_kernel ? 1 : 0;
  if (clang_Cursor_getNumArguments(cfg) < first + 2) return;
  *grid_x = dim_x(clang_Cursor_getArgument(cfg, (unsigned)first));
  *block_x = dim_x(clang_Cursor_getArgument(cfg, (unsigned)first + 1));
}

void kernels_launch_config(CXCursor call, CXCursor *grid, CXCursor *block) {
  *grid = *block = clang_getNullCursor();
  CXCursor cfg = clang_getNullCursor();
  char *n = callee_name(call);
  int launch_kernel = n && !strcmp(n, "cudaLaunchKernel");
  free(n);
  if (launch_kernel) {
    cfg = call;
  } else {
    kids ch = children(call);
    for (int i = 0; i < ch.n && i < 3 && clang_Cursor_isNull(cfg); i++)
      if (is_config_call(ch.v[i])) cfg = cursor_strip(ch.v[i]);
  }
  if (clang_Cursor_isNull(cfg)) return;
  int first = launch_kernel ? 1 : 0;
  if (clang_Cursor_getNumArguments(cfg) < first + 2) return;
  *grid = clang_Cursor_getArgument(cfg, (unsigned)first);
  *block = clang_Cursor_getArgument(cfg, (unsigned)first + 1);
}

sym *kernels_launch_dim3(sym_arena *a, const char *name, sym *const grid[3],
                         sym *const block[3]) {
  int g = !strncmp(name, "gridDim.", 8), bl = !strncmp(name, "blockDim.", 9);
  if (!g && !bl) return NULL;
  const char *c = name + (g ? 8 : 9);
  int i = !strcmp(c, "x") ? 0 : !strcmp(c, "y") ? 1 : !strcmp(c, "z") ? 2 : -1;
  sym *v = i < 0 ? NULL : g ? grid[i] : block[i];
  return v && !sym_is_unknown(v) ? v : sym_unknown(a);
}

sym *kernels_launch_dim(sym_arena *a, const char *name, sym *grid_x, sym *block_x) {
  int grid = !strncmp(name, "gridDim.", 8), block = !strncmp(name, "blockDim.", 9);
  if (!grid && !block) return NULL;
  sym *v = !strcmp(name, "gridDim.x") ? grid_x : !strcmp(name, "blockDim.x") ? block_x : NULL;
  return v && !sym_is_unknown(v) ? v : sym_unknown(a);
}

typedef struct args_ud {
  const kernel_info *k;
  sym *const *args;
  sym_arena *a;
} args_ud;

static sym *arg_lookup(void *ud, const char *name) {
  args_ud *u = ud;
  for (int i = 0; i < u->k->n_params; i++)
    if (u->k->params[i].name && !strcmp(u->k->params[i].name, name))
      return u->args[i] ? u->args[i] : sym_unknown(u->a);
  return sym_unknown(u->a); /* Note [dense] bounds are over parameters only */
}

int kernels_launch_covers(sym_arena *a, const kernel_info *k, const kernel_param *p,
                          sym *const *args, sym *grid_x, sym *block_x, sym_value_fn value,
                          void *ud) {
  if (!p->dense) return 0;
  if (!p->threads_needed && !p->blocks_needed) return 1;
  if (!grid_x || sym_is_unknown(grid_x)) return 0;
  args_ud au = {k, args, a};
  sym *need = sym_subst(a, p->threads_needed ? p->threads_needed : p->blocks_needed, arg_lookup, &au);
  sym *have = grid_x;
  if (p->threads_needed) {
    if (!block_x || sym_is_unknown(block_x)) return 0;
    have = sym_mul(a, grid_x, block_x);
  }
  if (sym_is_unknown(need) || sym_is_unknown(have)) return 0;
  /* have - need folds to a non-negative polynomial (grid N, block 1) */
  sym *slack = sym_sub(a, have, need);
  if (!sym_is_unknown(slack) && sym_nonneg(slack)) return 1;
  /* ceil-division: grid.x = X / b with block.x = b >= 1 and X >= need + b - 1 */
  if (p->threads_needed && sym_get_kind(grid_x) == SYM_DIV) {
    sym *b = (sym *)sym_rhs(grid_x);
    int64_t bv;
    int b_pos = sym_get_const(b, &bv) ? bv >= 1 : sym_get_kind(b) == SYM_VAR;
    if (b_pos && sym_equal(b, block_x)) {
      sym *x = (sym *)sym_lhs(grid_x);
      sym *d = sym_sub(a, x, sym_add(a, need, sym_sub(a, b, sym_const(a, 1))));
      if (!sym_is_unknown(d) && sym_nonneg(d)) return 1;
    }
  }
  /* numerically, when every name is bound */
  int64_t h, n;
  if (value && sym_eval(have, value, ud, &h) == 0 && sym_eval(need, value, ud, &n) == 0)
    return h >= n;
  return 0;
}
