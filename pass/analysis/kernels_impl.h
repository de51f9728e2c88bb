/* kernels_impl.h - what the pieces of the kernel analysis share (internal to
 * pass/analysis/kernels*.c; the rest of the pass uses kernels.h): the
 * analysis context, affine values and pointer values, and the functions
 * one piece calls in another.  The pieces recurse into each other
 * (expressions into calls into helper bodies' statements into
 * expressions), so scripts/check_layers.py counts them as one unit. */
#ifndef TIDAL_PASS_KERNELS_IMPL_H
#define TIDAL_PASS_KERNELS_IMPL_H

#include "analysis/kernels.h"
#include "base/cursor.h"

#define LIN_MAX_TERMS 8      /* affine terms kept before a value turns opaque */
#define HELPER_MAX_DEPTH 8   /* __device__ helper inlining depth */
#define PATH_MAX_VARS 16     /* covering guards in effect at one store (Note [dense]) */
#define COVER_MAX_CANDS 4    /* covering stores kept per parameter */

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
  int launch;  /* the launch builtin it is (LAUNCH_*, Note [reversed indices]), 0: none */
  CXCursor rank_of; /* `t.thread_rank()` of the tile declared here, else null (Note [guarded sums]) */
} base_var;

/* Launch builtins a base variable may be (base_var.launch): a dimension
 * (gridDim, blockDim) and the index below it (blockIdx, threadIdx), per
 * component x, y, z: LAUNCH_<kind> + component. */
enum launch_builtin {
  LAUNCH_NONE = 0,
  LAUNCH_GDIM = 1,  /* gridDim.x, .y, .z: 1, 2, 3 */
  LAUNCH_BID = 4,   /* blockIdx */
  LAUNCH_BDIM = 7,  /* blockDim */
  LAUNCH_TID = 10   /* threadIdx */
};

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

/* A guard on a sum of several values, `x <= top` (Note [guarded sums]),
 * in effect while the environment stays at or above level. */
typedef struct guarded_sum {
  lin x;
  sym *top; /* inclusive maximum of x */
  int level;
} guarded_sum;

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
  guarded_sum *gsums;
  int n_gsums, cap_gsums;
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
  int gv[PATH_MAX_VARS];   /* covering variables the last ka_apply_guard made */
  int n_gv;
} kctx;

/* Children read of a node whose grammar bounds them (a for or if
 * statement, a member call's callee); more are never there.  A cast or a
 * declaration may have more (TypeRefs, template arguments): their operand
 * and initializer come from cursor_last_expr_child. */
#define KIDS_MAX 16

/* kernels.c: recorded accesses, the kernels. */
int ka_dominates(kctx *c, const sym *x, sym *y);
void ka_record(kctx *c, ptrval p, unsigned mode, int len_bytes, const char *why_unknown);
void ka_note_cover(kctx *c, ptrval p, int len);
void ka_escape(kctx *c, ptrval p, unsigned mode, const char *why);

/* kernels_value.c: affine values, the environment. */
int ka_new_var(kctx *c, sym *bound, int nonneg);
lin ka_lin_const(kctx *c, sym *k);
lin ka_lin_var(kctx *c, int v);
lin ka_lin_opaque(kctx *c, int nonneg);
lin ka_lin_bad(kctx *c);
lin ka_lin_add_scaled(kctx *c, lin x, lin y, sym *s);
lin ka_lin_scale(kctx *c, lin x, sym *s);
sym *ka_launch_name(kctx *c, const char *base, const char *comp);
sym *ka_lin_max_mode(kctx *c, lin x, int full);
sym *ka_lin_max(kctx *c, lin x);
sym *ka_lin_min(kctx *c, lin x);
int ka_lin_nonneg(kctx *c, lin x);
int ka_var_cover(kctx *c, const lin *x);
lin ka_lin_cover(kctx *c, int cover, sym *lbound);
binding *ka_lookup(kctx *c, CXCursor decl);
void ka_bind(kctx *c, binding b);
void ka_env_restore(kctx *c, int n);
void ka_bind_int(kctx *c, CXCursor decl, lin v);
void ka_bind_ptr(kctx *c, CXCursor decl, ptrval p);
void ka_bind_ref(kctx *c, CXCursor decl, ptrval p, int len);
ptrval ka_ptr_none(kctx *c);
lin ka_quotient_var(kctx *c, lin x, sym *d);
lin ka_lin_launch_pairs(kctx *c, lin x);

/* kernels_expr.c: expressions. */
lin ka_eval_int(kctx *c, CXCursor e);
ptrval ka_eval_ptr(kctx *c, CXCursor e);
ptrval ka_eval_lvalue(kctx *c, CXCursor e, int *len);
CXCursor ka_local_decl(CXCursor e);
void ka_store(kctx *c, CXCursor lhs, unsigned mode, CXCursor rhs, int op_assign);
void ka_visit_expr(kctx *c, CXCursor e);

/* kernels_call.c: calls. */
char *ka_callee_name(CXCursor call);
void ka_visit_call(kctx *c, CXCursor call);
void ka_visit_call_value(kctx *c, CXCursor call, ptrval *rp, lin *ri);
void ka_helper_return(kctx *c, CXCursor value);

/* kernels_guard.c: guards. */
void ka_apply_guard(kctx *c, CXCursor e, int negate);
int ka_guard_pure(kctx *c, CXCursor e, int negate);
void ka_path_push_guard(kctx *c);

/* kernels_stmt.c: statements. */
ptrval ka_ref_target(kctx *c, CXCursor init, int *len);
sym *ka_unsize(kctx *c, sym *e);
void ka_visit_stmt(kctx *c, CXCursor s);

#endif
