/* split.c - which __global__ kernels are elementwise over a count
 * parameter (kernels.h kernel_info.split), so that a launch over [0, n)
 * may run as launches over [o, o + l) with every pointer argument advanced
 * by o and the count replaced by l: how an op bigger than the memory
 * budget (an optimizer update over all parameters) still runs.
 *
 * Note [elementwise split]
 * The proof is syntactic and conservative.  The body must have one of two
 * shapes, i an integer local and n an integer parameter:
 *   guard:        T i = blockIdx.x * blockDim.x + threadIdx.x;
 *                 (operands in any order, integer casts, const), then as
 *                 the first if after it `if (i >= n) return;` (the rest of
 *                 the body is guarded) or `if (i < n) { ... }` (its branch
 *                 is; no else); mirrored comparisons too.
 *   grid-stride:  for (T i = <the same>; i < n; i += blockDim.x * gridDim.x)
 *                 (either product order, or a local holding it).
 * Inside, and nowhere else, each pointer parameter p appears only as p[i]
 * or *(p + i), read or written in any way (=, op=, ++), or as the address
 * &p[i] or p + i handed to a cache-hint load or store (__ldg, __stcs...).  Nothing else may
 * tell which element a thread has: i is used nowhere else (not i + 1, not
 * i % C, not passed to a function), n nowhere but the bound (a piece gets
 * a smaller n), and threadIdx/blockIdx/blockDim/gridDim/warpSize not at
 * all.  Nor may threads share anything: no __shared__, no barrier, warp,
 * atomic, curand or cooperative-groups call, no globals but constants
 * (const scalars, __constant__ memory), no local pointer or reference, no
 * address taken, no early exit from the grid-stride loop (it would tie
 * later elements to the thread).
 * Scalars computed from the elements, other scalar parameters, and calls
 * on scalars are free: a call passes no pointer (an element or a local by
 * reference is fine - `__half` operators take them so - unless the callee
 * is only declared in the project); a __device__ function defined in the
 * project is checked by these same rules; one only declared here (a math
 * function from a header, the toolkit's own headers) is trusted.  Kernels flagged rng or atomics
 * are never split.  Any shape or construct not recognised means not split,
 * with the first reason found in split_why.
 * Under these rules thread i's work depends on i only through the
 * addresses p + i, so a launch over [o, o + l) with pointers p + o and
 * count l does what threads o .. o + l - 1 of the whole launch did.
 * Finally every touched pointer's extent (kernels.c) must be exactly n
 * elements: what the graph declares per piece is then count * elem_bytes.
 *
 * Memory: the reason is malloc'd into the kernel_info (kernel_info_free
 * frees it); cursor lists live for one call. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cxstring.h"
#include "base/cursor.h"
#include "analysis/split.h"

#define SPLIT_HELPER_DEPTH 8  /* nested __device__ helpers checked */
#define SPLIT_HELPERS_SEEN 32 /* helpers remembered as checked */
#define SPLIT_WHY_MAX 200     /* bytes of one reason */

typedef struct clist {
  CXCursor *v;
  int n;
  int oom; /* out of memory: v is empty */
} clist;

/* All children of c; free .v. */
static clist kids_of(CXCursor c) {
  clist l = {NULL, 0, 0};
  l.n = cursor_children_all(c, &l.v);
  if (l.n < 0) {
    l.n = 0;
    l.oom = 1;
  }
  return l;
}

typedef struct sctx {
  const kernel_info *k;
  CXCursor *params;   /* the kernel's ParmDecls, k->n_params of them */
  CXCursor index;     /* the VarDecl of i (null until found) */
  int count;          /* parameter index of n, -1 until found */
  CXCursor stride;    /* a local holding blockDim.x * gridDim.x, or null */
  int guarded;        /* walking code that runs only for i < n */
  int in_loop;        /* walking the grid-stride loop's body */
  int nest;           /* loops and switches entered inside that body (for break) */
  int helper;         /* depth of __device__ helpers being checked */
  CXCursor seen[SPLIT_HELPERS_SEEN]; /* helpers already found clean */
  int n_seen;
  int failed, oom;
  char why[SPLIT_WHY_MAX];
} sctx;

static void refuse(sctx *c, const char *fmt, ...) {
  if (c->failed) return; /* the first reason is the one reported */
  c->failed = 1;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->why, sizeof c->why, fmt, ap);
  va_end(ap);
}

/* ---- cursor helpers ---- */

static int is_scalar_type(CXType t) {
  t = clang_getCanonicalType(t);
  return cursor_is_integer_type(t) || (t.kind >= CXType_Float && t.kind <= CXType_Float128) ||
         t.kind == CXType_Half || t.kind == CXType_Float16 || t.kind == CXType_BFloat16;
}

static int is_cast_kind(enum CXCursorKind k) {
  return k == CXCursor_CStyleCastExpr || k == CXCursor_CXXStaticCastExpr ||
         k == CXCursor_CXXFunctionalCastExpr;
}

/* Through parentheses, implicit conversions and explicit integer casts of
 * integers (`(size_t)i`, `(long)blockIdx.x`). */
static CXCursor strip_int_casts(CXCursor e) {
  for (int d = 0; d < 16; d++) {
    e = cursor_strip(e);
    if (!is_cast_kind(clang_getCursorKind(e)) || !cursor_is_integer_type(clang_getCursorType(e))) return e;
    CXCursor in = cursor_last_expr_child(e);
    if (clang_Cursor_isNull(in) || !cursor_is_integer_type(clang_getCursorType(in))) return e;
    e = in;
  }
  return e;
}

static int spelled(CXCursor c, const char *s) {
  char *n = string_and_dispose(clang_getCursorSpelling(c));
  int r = n && !strcmp(n, s);
  free(n);
  return r;
}


/* 1 if e is base.x (threadIdx.x ...), through integer casts. */
static int is_builtin_x(CXCursor e, const char *base) {
  e = strip_int_casts(e);
  if (clang_getCursorKind(e) != CXCursor_MemberRefExpr) return 0;
  clist l = kids_of(e);
  int r = 0;
  if (l.n == 1) {
    CXCursor b = cursor_strip(l.v[0]);
    if (clang_getCursorKind(b) == CXCursor_DeclRefExpr && spelled(b, base)) {
      char *m = cursor_member_name(e);
      r = m && !strcmp(m, "x");
      free(m);
    }
  }
  free(l.v);
  return r;
}

/* 1 if e is the binary operator op whose operands are {a-test, b-test} in
 * either order, the tests being builtin names. */
static int is_product(CXCursor e, const char *a, const char *b) {
  e = strip_int_casts(e);
  if (clang_getCursorKind(e) != CXCursor_BinaryOperator ||
      clang_getCursorBinaryOperatorKind(e) != CXBinaryOperator_Mul)
    return 0;
  clist l = kids_of(e);
  int r = l.n == 2 && ((is_builtin_x(l.v[0], a) && is_builtin_x(l.v[1], b)) ||
                       (is_builtin_x(l.v[0], b) && is_builtin_x(l.v[1], a)));
  free(l.v);
  return r;
}

/* blockIdx.x * blockDim.x + threadIdx.x in any operand order. */
static int is_global_index(CXCursor e) {
  e = strip_int_casts(e);
  if (clang_getCursorKind(e) != CXCursor_BinaryOperator ||
      clang_getCursorBinaryOperatorKind(e) != CXBinaryOperator_Add)
    return 0;
  clist l = kids_of(e);
  int r = l.n == 2 &&
          ((is_product(l.v[0], "blockIdx", "blockDim") && is_builtin_x(l.v[1], "threadIdx")) ||
           (is_product(l.v[1], "blockIdx", "blockDim") && is_builtin_x(l.v[0], "threadIdx")));
  free(l.v);
  return r;
}

/* The one VarDecl a DeclStmt declares, else null. */
static CXCursor single_var(CXCursor s) {
  CXCursor v = clang_getNullCursor();
  if (clang_getCursorKind(s) != CXCursor_DeclStmt) return v;
  clist l = kids_of(s);
  if (l.n == 1 && clang_getCursorKind(l.v[0]) == CXCursor_VarDecl) v = l.v[0];
  free(l.v);
  return v;
}

/* An integer local initialised to the global thread index. */
static int is_index_decl(CXCursor v) {
  if (clang_Cursor_isNull(v) || !cursor_is_integer_type(clang_getCursorType(v))) return 0;
  CXCursor init = cursor_last_expr_child(v);
  return !clang_Cursor_isNull(init) && is_global_index(init);
}

static int is_ref(CXCursor e, CXCursor decl) {
  if (clang_Cursor_isNull(decl)) return 0;
  e = strip_int_casts(e);
  return clang_getCursorKind(e) == CXCursor_DeclRefExpr &&
         clang_equalCursors(clang_getCursorReferenced(e), decl);
}

static int param_index(const sctx *c, CXCursor decl) {
  for (int i = 0; i < c->k->n_params; i++)
    if (clang_equalCursors(c->params[i], decl)) return i;
  return -1;
}

/* The kernel pointer parameter e names (through parentheses), else -1. */
static int pointer_ref(const sctx *c, CXCursor e) {
  e = cursor_strip(e);
  if (clang_getCursorKind(e) != CXCursor_DeclRefExpr) return -1;
  int j = param_index(c, clang_getCursorReferenced(e));
  return j >= 0 && c->k->params[j].is_pointer ? j : -1;
}

/* The integer parameter e names (through casts), else -1. */
static int count_ref(const sctx *c, CXCursor e) {
  e = strip_int_casts(e);
  if (clang_getCursorKind(e) != CXCursor_DeclRefExpr) return -1;
  int j = param_index(c, clang_getCursorReferenced(e));
  return j >= 0 && !c->k->params[j].is_pointer &&
                 cursor_is_integer_type(clang_getCursorType(c->params[j]))
             ? j
             : -1;
}

/* For `i < n` (less) or `i >= n` (!less), mirrored forms included: the
 * parameter index of n, else -1. */
static int bound_cmp(const sctx *c, CXCursor e, int less) {
  e = cursor_strip(e);
  if (clang_getCursorKind(e) != CXCursor_BinaryOperator) return -1;
  enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(e);
  clist l = kids_of(e);
  int r = -1;
  if (l.n == 2) {
    if (op == (less ? CXBinaryOperator_LT : CXBinaryOperator_GE) && is_ref(l.v[0], c->index))
      r = count_ref(c, l.v[1]);
    else if (op == (less ? CXBinaryOperator_GT : CXBinaryOperator_LE) && is_ref(l.v[1], c->index))
      r = count_ref(c, l.v[0]);
  }
  free(l.v);
  return r;
}

/* The source text of e (tokens joined by spaces when there are several). */
static void expr_text(CXCursor e, char *buf, size_t n) {
  CXTranslationUnit tu = clang_Cursor_getTranslationUnit(e);
  CXToken *toks = NULL;
  unsigned nt = 0;
  size_t used = 0;
  buf[0] = '\0';
  clang_tokenize(tu, clang_getCursorExtent(e), &toks, &nt);
  for (unsigned i = 0; i < nt && used + 1 < n; i++) {
    char *t = string_and_dispose(clang_getTokenSpelling(tu, toks[i]));
    int w = snprintf(buf + used, n - used, "%s%s", i ? " " : "", t ? t : "");
    free(t);
    if (w < 0) break;
    used += (size_t)w < n - used ? (size_t)w : n - used - 1;
  }
  if (toks) clang_disposeTokens(tu, toks, nt);
}

/* The operand compared with i in a comparison `i OP x` / `x OP i`, else null. */
static CXCursor compared_with_index(const sctx *c, CXCursor e) {
  CXCursor r = clang_getNullCursor();
  e = cursor_strip(e);
  if (clang_getCursorKind(e) != CXCursor_BinaryOperator) return r;
  enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(e);
  if (op < CXBinaryOperator_LT || op > CXBinaryOperator_GE) return r;
  clist l = kids_of(e);
  if (l.n == 2 && is_ref(l.v[0], c->index)) r = l.v[1];
  else if (l.n == 2 && is_ref(l.v[1], c->index)) r = l.v[0];
  free(l.v);
  return r;
}

/* `return;` or `{ return; }`. */
static int is_return(CXCursor s) {
  enum CXCursorKind k = clang_getCursorKind(s);
  clist l = kids_of(s);
  int r = 0;
  if (k == CXCursor_ReturnStmt) r = l.n == 0;
  else if (k == CXCursor_CompoundStmt && l.n == 1) r = is_return(l.v[0]);
  free(l.v);
  return r;
}

static const char *name_of(CXCursor c, char *buf, size_t n) {
  char *s = string_and_dispose(clang_getCursorSpelling(c));
  snprintf(buf, n, "%s", s ? s : "?");
  free(s);
  return buf;
}

static int has_attr(CXCursor d, enum CXCursorKind attr) {
  clist l = kids_of(d);
  int r = 0;
  for (int i = 0; i < l.n && !r; i++) r = clang_getCursorKind(l.v[i]) == attr;
  free(l.v);
  return r;
}

/* ---- the body walk ---- */

static void walk(sctx *c, CXCursor e);

static void walk_kids(sctx *c, CXCursor e) {
  clist l = kids_of(e);
  if (l.oom) c->oom = c->failed = 1;
  for (int i = 0; i < l.n && !c->failed; i++) walk(c, l.v[i]);
  free(l.v);
}

/* Calls that let threads see each other or the launch, by name. */
static int forbidden_call(const char *n) {
  static const char *const prefixes[] = {
      "__sync", "atomic", "__shfl", "__ballot", "__any", "__all", "__activemask", "__threadfence",
      "curand", "__match", "__reduce", "__nanosleep", "clock", "this_thread_block", "this_grid",
      "tiled_partition", "coalesced_threads", "__fns", "__trap", "__brkpt", "__lane", "__warp",
      "__pipeline", "__barrier", "__cluster"};
  for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
    if (!strncmp(n, prefixes[i], strlen(prefixes[i]))) return 1;
  return strstr(n, "sync") != NULL;
}

static void check_fn(sctx *c, CXCursor fn);

/* A name used in the body (not one of the shapes' own uses). */
static void check_ref(sctx *c, CXCursor e) {
  CXCursor d = clang_getCursorReferenced(e);
  char nb[64], ib[64];
  if (clang_Cursor_isNull(d)) {
    refuse(c, "a name not resolved (template code)");
    return;
  }
  if (!clang_Cursor_isNull(c->index) && clang_equalCursors(d, c->index)) {
    refuse(c, "index '%s' used other than as a subscript", name_of(d, nb, sizeof nb));
    return;
  }
  if (!clang_Cursor_isNull(c->stride) && clang_equalCursors(d, c->stride)) {
    refuse(c, "grid stride '%s' used outside the loop header", name_of(d, nb, sizeof nb));
    return;
  }
  int j = param_index(c, d);
  if (j >= 0) {
    if (c->k->params[j].is_pointer)
      refuse(c, "pointer '%s' used other than as %s[%s]", name_of(d, nb, sizeof nb), nb,
             clang_Cursor_isNull(c->index) ? "i" : name_of(c->index, ib, sizeof ib));
    else if (j == c->count)
      refuse(c, "count '%s' used other than in the bound", name_of(d, nb, sizeof nb));
    return;
  }
  switch (clang_getCursorKind(d)) {
  case CXCursor_VarDecl: {
    name_of(d, nb, sizeof nb);
    if (!strcmp(nb, "threadIdx") || !strcmp(nb, "blockIdx") || !strcmp(nb, "blockDim") ||
        !strcmp(nb, "gridDim") || !strcmp(nb, "warpSize")) {
      refuse(c, "uses %s beyond the global index", nb);
      return;
    }
    enum CXCursorKind pk = clang_getCursorKind(clang_getCursorSemanticParent(d));
    if (pk == CXCursor_FunctionDecl || pk == CXCursor_FunctionTemplate || pk == CXCursor_CXXMethod)
      return; /* a local */
    CXType t = clang_getCanonicalType(clang_getCursorType(d));
    /* __constant__ memory: device code cannot write it, and no index into
     * it can depend on i (i is used nowhere but p[i]) */
    if (has_attr(d, CXCursor_CUDAConstantAttr)) return;
    if (!clang_isConstQualifiedType(t) || !is_scalar_type(t))
      refuse(c, "uses global '%s'", nb);
    return;
  }
  case CXCursor_FunctionDecl:
  case CXCursor_FunctionTemplate:
  case CXCursor_CXXMethod:
  case CXCursor_ConversionFunction:
    check_fn(c, d);
    return;
  case CXCursor_ParmDecl:                    /* a helper's own parameter */
  case CXCursor_EnumConstantDecl:
  case CXCursor_NonTypeTemplateParameter:
  case CXCursor_FieldDecl:
    return;
  default:
    refuse(c, "uses '%s'", name_of(d, nb, sizeof nb));
  }
}

/* The target of an assignment or increment. */
static void check_target(sctx *c, CXCursor lhs) {
  char nb[64];
  if (is_ref(lhs, c->index)) {
    refuse(c, "index '%s' assigned in the body", name_of(c->index, nb, sizeof nb));
    return;
  }
  if (c->count >= 0 && is_ref(lhs, c->params[c->count]))
    refuse(c, "count '%s' assigned in the body", name_of(c->params[c->count], nb, sizeof nb));
}

/* An element p[i]: allowed under the guard. */
static void element(sctx *c, int p, CXCursor index) {
  char ib[64];
  const char *pn = c->k->params[p].name ? c->k->params[p].name : "?";
  const char *in = name_of(c->index, ib, sizeof ib);
  if (!is_ref(index, c->index)) refuse(c, "'%s' indexed by other than '%s'", pn, in);
  else if (!c->guarded) refuse(c, "'%s[%s]' outside the bound on '%s'", pn, in, in);
}

static void check_call(sctx *c, CXCursor call) {
  CXCursor fn = clang_getCursorReferenced(call);
  char nb[64];
  if (clang_Cursor_isNull(fn)) {
    refuse(c, "a call not resolved (template code or a function pointer)");
    return;
  }
  name_of(fn, nb, sizeof nb);
  int na = clang_Cursor_getNumArguments(call), np = clang_Cursor_getNumArguments(fn);
  int trusted = clang_Location_isInSystemHeader(clang_getCursorLocation(fn)) ||
                !clang_Cursor_isNull(clang_getCursorDefinition(fn));
  for (int i = 0; i < na; i++) {
    CXType t = clang_getCanonicalType(clang_getCursorType(clang_Cursor_getArgument(call, (unsigned)i)));
    if (t.kind == CXType_Pointer || t.kind == CXType_BlockPointer) {
      refuse(c, "passes a pointer to '%s'", nb);
      return;
    }
    /* By non-const reference: the argument is an element or a local (the
     * walk checks which), and a callee from the toolkit's headers or with a
     * body checked here touches only that; one only declared might step
     * from its address. */
    if (i < np && !trusted) {
      CXType pt = clang_getCanonicalType(clang_getCursorType(clang_Cursor_getArgument(fn, (unsigned)i)));
      if (pt.kind == CXType_LValueReference && !clang_isConstQualifiedType(clang_getPointeeType(pt))) {
        refuse(c, "passes '%s' an argument by reference", nb);
        return;
      }
    }
  }
  check_fn(c, fn);
}

/* A function called from the body (Note [elementwise split]). */
static void check_fn(sctx *c, CXCursor fn) {
  char nb[64];
  name_of(fn, nb, sizeof nb);
  char *usr = string_and_dispose(clang_getCursorUSR(fn));
  int cg = usr && strstr(usr, "cooperative_groups");
  free(usr);
  if (forbidden_call(nb) || cg) {
    refuse(c, "calls '%s'", nb);
    return;
  }
  if (clang_Location_isInSystemHeader(clang_getCursorLocation(fn))) return; /* the toolkit's */
  CXCursor def = clang_getCursorDefinition(fn);
  if (clang_Cursor_isNull(def)) return; /* declared only: trusted (Note [elementwise split]) */
  if (clang_Location_isInSystemHeader(clang_getCursorLocation(def))) return;
  /* a defaulted member (the implicit copy or move of a plain element
   * struct, `h[i] = g[i]`, `float4 v = in[i]`) copies the object's members:
   * nothing a thread could share */
  enum CXCursorKind dk = clang_getCursorKind(def);
  if ((dk == CXCursor_CXXMethod || dk == CXCursor_Constructor || dk == CXCursor_Destructor) &&
      clang_CXXMethod_isDefaulted(def))
    return;
  for (int i = 0; i < c->n_seen; i++)
    if (clang_equalCursors(c->seen[i], def)) return;
  if (c->helper >= SPLIT_HELPER_DEPTH) {
    refuse(c, "helpers nested too deep at '%s'", nb);
    return;
  }
  int np = clang_Cursor_getNumArguments(def);
  for (int i = 0; i < np; i++) {
    CXType t = clang_getCanonicalType(clang_getCursorType(clang_Cursor_getArgument(def, (unsigned)i)));
    if (t.kind == CXType_Pointer) {
      refuse(c, "helper '%s' takes a pointer", nb);
      return;
    }
  }
  int guarded = c->guarded, in_loop = c->in_loop, nest = c->nest;
  c->in_loop = 0;
  c->nest = 0;
  c->helper++;
  /* the body, and a constructor's member initializers */
  clist l = kids_of(def);
  for (int i = 0; i < l.n && !c->failed; i++) {
    enum CXCursorKind k = clang_getCursorKind(l.v[i]);
    if (k != CXCursor_ParmDecl && k != CXCursor_TemplateTypeParameter &&
        k != CXCursor_NonTypeTemplateParameter && k != CXCursor_TemplateTemplateParameter &&
        !clang_isReference(k) && !clang_isAttribute(k))
      walk(c, l.v[i]);
  }
  free(l.v);
  c->helper--;
  c->guarded = guarded;
  c->in_loop = in_loop;
  c->nest = nest;
  if (!c->failed && c->n_seen < SPLIT_HELPERS_SEEN) c->seen[c->n_seen++] = def;
}

/* The toolkit's cache-hint loads and stores (`__ldg(&p[i])`, `__stcs(p + i,
 * v)`): the element their first argument addresses, read or written. */
static int is_element_intrinsic(const char *n) {
  static const char *const names[] = {"__ldg", "__ldcs", "__ldcg", "__ldca", "__ldlu", "__ldcv",
                                      "__stcs", "__stcg", "__stwb", "__stwt"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (!strcmp(n, names[i])) return 1;
  return 0;
}

/* A call of such an intrinsic on &p[i] or p + i: checks the element and
 * walks the other arguments; 0 (nothing done) for any other call. */
static int element_intrinsic(sctx *c, CXCursor call) {
  CXCursor fn = clang_getCursorReferenced(call);
  char nb[64];
  int na = clang_Cursor_getNumArguments(call);
  if (clang_Cursor_isNull(fn) || na < 1 || !is_element_intrinsic(name_of(fn, nb, sizeof nb)))
    return 0;
  CXCursor a = cursor_strip(clang_Cursor_getArgument(call, 0));
  enum CXCursorKind k = clang_getCursorKind(a);
  int p = -1;
  CXCursor idx = clang_getNullCursor();
  clist l = kids_of(a);
  if (k == CXCursor_UnaryOperator && clang_getCursorUnaryOperatorKind(a) == CXUnaryOperator_AddrOf &&
      l.n == 1) {
    CXCursor s = cursor_strip(l.v[0]);
    clist sl = kids_of(s);
    if (clang_getCursorKind(s) == CXCursor_ArraySubscriptExpr && sl.n == 2 &&
        (p = pointer_ref(c, sl.v[0])) >= 0)
      idx = sl.v[1];
    free(sl.v);
  } else if (k == CXCursor_BinaryOperator &&
             clang_getCursorBinaryOperatorKind(a) == CXBinaryOperator_Add && l.n == 2) {
    if ((p = pointer_ref(c, l.v[0])) >= 0) idx = l.v[1];
    else if ((p = pointer_ref(c, l.v[1])) >= 0) idx = l.v[0];
  }
  free(l.v);
  if (p < 0) return 0;
  element(c, p, idx);
  for (int i = 1; i < na && !c->failed; i++) walk(c, clang_Cursor_getArgument(call, (unsigned)i));
  return 1;
}

static void check_var(sctx *c, CXCursor v) {
  char nb[64];
  name_of(v, nb, sizeof nb);
  if (has_attr(v, CXCursor_CUDASharedAttr)) {
    refuse(c, "__shared__ memory ('%s')", nb);
    return;
  }
  if (clang_Cursor_getStorageClass(v) == CX_SC_Static) {
    refuse(c, "static local '%s'", nb);
    return;
  }
  CXType t = clang_getCanonicalType(clang_getCursorType(v));
  if (t.kind == CXType_Pointer || t.kind == CXType_LValueReference ||
      t.kind == CXType_RValueReference) {
    refuse(c, "local pointer or reference '%s'", nb);
    return;
  }
  char *ts = string_and_dispose(clang_getTypeSpelling(t));
  if (ts && (strstr(ts, "cooperative_groups") || strstr(ts, "thread_block") ||
             strstr(ts, "grid_group") || strstr(ts, "curand")))
    refuse(c, "local '%s' of type '%s'", nb, ts);
  free(ts);
  if (!c->failed) walk_kids(c, v);
}

static void walk(sctx *c, CXCursor e) {
  if (c->failed) return;
  enum CXCursorKind k = clang_getCursorKind(e);
  if (clang_isAttribute(k)) return;
  switch (k) {
  case CXCursor_CompoundStmt:
  case CXCursor_DeclStmt:
  case CXCursor_IfStmt:
  case CXCursor_CaseStmt:
  case CXCursor_DefaultStmt:
  case CXCursor_NullStmt:
  case CXCursor_ParenExpr:
  case CXCursor_UnexposedExpr:
  case CXCursor_ConditionalOperator:
  case CXCursor_CStyleCastExpr:
  case CXCursor_CXXStaticCastExpr:
  case CXCursor_CXXFunctionalCastExpr:
  case CXCursor_CXXConstCastExpr:
  case CXCursor_InitListExpr:
    walk_kids(c, e);
    return;
  case CXCursor_ForStmt:
  case CXCursor_WhileStmt:
  case CXCursor_DoStmt:
  case CXCursor_SwitchStmt:
    c->nest++;
    walk_kids(c, e);
    c->nest--;
    return;
  case CXCursor_ReturnStmt:
    if (c->in_loop && !c->helper) refuse(c, "return inside the grid-stride loop");
    else walk_kids(c, e);
    return;
  case CXCursor_BreakStmt:
    if (c->in_loop && !c->helper && c->nest == 0) refuse(c, "break out of the grid-stride loop");
    return;
  case CXCursor_ContinueStmt:
  case CXCursor_TypeRef:
  case CXCursor_TemplateRef:
  case CXCursor_NamespaceRef:
  case CXCursor_IntegerLiteral:
  case CXCursor_FloatingLiteral:
  case CXCursor_CharacterLiteral:
  case CXCursor_CXXBoolLiteralExpr:
  case CXCursor_UnaryExpr: /* sizeof, alignof */
    return;
  case CXCursor_VarDecl:
    check_var(c, e);
    return;
  case CXCursor_DeclRefExpr:
    check_ref(c, e);
    return;
  case CXCursor_MemberRefExpr: {
    CXCursor d = clang_getCursorReferenced(e);
    enum CXCursorKind dk = clang_Cursor_isNull(d) ? CXCursor_NoDeclFound : clang_getCursorKind(d);
    if (dk == CXCursor_CXXMethod || dk == CXCursor_ConversionFunction) check_fn(c, d);
    walk_kids(c, e);
    return;
  }
  case CXCursor_CallExpr:
    if (element_intrinsic(c, e)) return;
    check_call(c, e);
    walk_kids(c, e);
    return;
  case CXCursor_ArraySubscriptExpr: {
    clist l = kids_of(e);
    int p = l.n == 2 ? pointer_ref(c, l.v[0]) : -1;
    if (p >= 0) element(c, p, l.v[1]);
    free(l.v);
    if (p < 0) walk_kids(c, e);
    return;
  }
  case CXCursor_UnaryOperator: {
    enum CXUnaryOperatorKind op = clang_getCursorUnaryOperatorKind(e);
    CXCursor in = cursor_last_expr_child(e);
    if (op == CXUnaryOperator_AddrOf) {
      refuse(c, "takes an address (&)");
      return;
    }
    if (op == CXUnaryOperator_Deref) {
      /* *(p + i), either order */
      CXCursor s = cursor_strip(in);
      clist l = kids_of(s);
      int p = -1, ok = 0;
      if (clang_getCursorKind(s) == CXCursor_BinaryOperator &&
          clang_getCursorBinaryOperatorKind(s) == CXBinaryOperator_Add && l.n == 2) {
        if ((p = pointer_ref(c, l.v[0])) >= 0) ok = 1, element(c, p, l.v[1]);
        else if ((p = pointer_ref(c, l.v[1])) >= 0) ok = 1, element(c, p, l.v[0]);
      }
      free(l.v);
      if (!ok) refuse(c, "dereferences a pointer other than *(p + i)");
      return;
    }
    if (op == CXUnaryOperator_PostInc || op == CXUnaryOperator_PostDec ||
        op == CXUnaryOperator_PreInc || op == CXUnaryOperator_PreDec)
      check_target(c, in);
    walk_kids(c, e);
    return;
  }
  case CXCursor_BinaryOperator:
  case CXCursor_CompoundAssignOperator: {
    enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(e);
    if (op >= CXBinaryOperator_Assign && op <= CXBinaryOperator_OrAssign) {
      clist l = kids_of(e);
      if (l.n == 2) check_target(c, l.v[0]);
      free(l.v);
    }
    walk_kids(c, e);
    return;
  }
  default: {
    char *ks = string_and_dispose(clang_getCursorKindSpelling(k));
    refuse(c, "unsupported construct (%s)", ks ? ks : "?");
    free(ks);
  }
  }
}

/* ---- the shapes ---- */

/* `for (T i = <global index>; i < n; i += blockDim.x * gridDim.x) body`:
 * sets c->index and c->count and returns the body, else a null cursor. */
static CXCursor grid_stride_loop(sctx *c, CXCursor s) {
  CXCursor body = clang_getNullCursor();
  if (clang_getCursorKind(s) != CXCursor_ForStmt) return body;
  clist l = kids_of(s);
  if (l.n == 4) {
    CXCursor v = single_var(l.v[0]);
    if (is_index_decl(v)) {
      c->index = v;
      int n = bound_cmp(c, l.v[1], 1);
      CXCursor inc = cursor_strip(l.v[2]);
      clist il = kids_of(inc);
      int stride_ok = clang_getCursorKind(inc) == CXCursor_CompoundAssignOperator &&
                      clang_getCursorBinaryOperatorKind(inc) == CXBinaryOperator_AddAssign &&
                      il.n == 2 && is_ref(il.v[0], v) &&
                      (is_product(il.v[1], "blockDim", "gridDim") || is_ref(il.v[1], c->stride));
      free(il.v);
      if (n >= 0 && stride_ok) {
        c->count = n;
        body = l.v[3];
      } else {
        c->index = clang_getNullCursor();
      }
    }
  }
  free(l.v);
  return body;
}

static void analyze_body(sctx *c, CXCursor body, int *grid_stride) {
  clist s = kids_of(body);
  int idx_at = -1, guard_at = -1, guard_if = 0, loop_at = -1, stride_at = -1;
  CXCursor loop_body = clang_getNullCursor(), then = clang_getNullCursor();
  if (s.oom) c->oom = c->failed = 1;
  for (int k = 0; k < s.n && stride_at < 0; k++) {
    CXCursor v = single_var(s.v[k]);
    if (!clang_Cursor_isNull(v) && cursor_is_integer_type(clang_getCursorType(v)) &&
        !clang_Cursor_isNull(cursor_last_expr_child(v)) &&
        is_product(cursor_last_expr_child(v), "blockDim", "gridDim")) {
      stride_at = k;
      c->stride = v;
    }
  }
  for (int k = 0; k < s.n && idx_at < 0; k++)
    if (is_index_decl(single_var(s.v[k]))) {
      idx_at = k;
      c->index = single_var(s.v[k]);
    }
  char ib[64];
  if (c->failed) {
    /* out of memory */
  } else if (idx_at >= 0) {
    const char *in = name_of(c->index, ib, sizeof ib);
    for (int k = idx_at + 1; k < s.n && guard_at < 0; k++)
      if (clang_getCursorKind(s.v[k]) == CXCursor_IfStmt) guard_at = k;
    clist g = guard_at >= 0 ? kids_of(s.v[guard_at]) : (clist){NULL, 0, 0};
    int n;
    if (guard_at < 0) {
      refuse(c, "no 'if (%s < n)' or 'if (%s >= n) return;' after the index", in, in);
    } else if (g.n == 2 && (n = bound_cmp(c, g.v[0], 0)) >= 0 && is_return(g.v[1])) {
      c->count = n;
    } else if (g.n == 2 && (n = bound_cmp(c, g.v[0], 1)) >= 0) {
      c->count = n;
      guard_if = 1;
      then = g.v[1];
    } else {
      CXCursor other = g.n >= 1 ? compared_with_index(c, g.v[0]) : clang_getNullCursor();
      char ob[64];
      if (!clang_Cursor_isNull(other) && count_ref(c, other) < 0) {
        expr_text(other, ob, sizeof ob);
        refuse(c, "bound '%s' of '%s' is not an integer parameter", ob, in);
      } else {
        refuse(c, "the first if after '%s' is not 'if (%s < n)' or 'if (%s >= n) return;' with n "
               "an integer parameter", in, in, in);
      }
    }
    free(g.v);
  } else {
    for (int k = 0; k < s.n && loop_at < 0; k++) {
      loop_body = grid_stride_loop(c, s.v[k]);
      if (!clang_Cursor_isNull(loop_body)) loop_at = k;
    }
    if (loop_at < 0)
      refuse(c, "no global index 'blockIdx.x * blockDim.x + threadIdx.x' with a bound or a "
             "grid-stride loop");
  }
  for (int k = 0; k < s.n && !c->failed; k++) {
    if (k == idx_at || k == stride_at) continue; /* checked above */
    if (k == guard_at) {
      if (guard_if) {
        c->guarded = 1;
        walk(c, then);
        c->guarded = 0;
      } else {
        c->guarded = 1; /* the rest of the body */
      }
    } else if (k == loop_at) {
      c->guarded = c->in_loop = 1;
      walk(c, loop_body);
      c->guarded = c->in_loop = 0;
    } else {
      walk(c, s.v[k]);
    }
  }
  *grid_stride = loop_at >= 0;
  free(s.v);
}

int kernels_split_analyze(CXCursor f, kernel_info *k, sym_arena *a) {
  free(k->split_why);
  k->split = 0;
  k->split_count_param = -1;
  k->split_grid_stride = 0;
  k->split_why = NULL;
  sctx *c = calloc(1, sizeof *c);
  if (!c) return -1;
  c->k = k;
  c->count = -1;
  c->index = c->stride = clang_getNullCursor();
  clist pl = kids_of(f); /* its ParmDecls, moved to the front */
  int np = 0;
  for (int i = 0; i < pl.n; i++)
    if (clang_getCursorKind(pl.v[i]) == CXCursor_ParmDecl) pl.v[np++] = pl.v[i];
  pl.n = np;
  c->params = pl.v;
  int grid_stride = 0;
  char nb[64];
  if (pl.oom) {
    c->oom = c->failed = 1;
  } else if (pl.n != k->n_params) {
    refuse(c, "parameters not matched");
  } else if (!k->has_body) {
    refuse(c, "no body in this file");
  } else if (k->flags & KERNEL_RNG) {
    refuse(c, "uses curand state");
  } else if (k->flags & KERNEL_ATOMICS) {
    refuse(c, "uses atomics");
  }
  for (int i = 0; i < k->n_params && !c->failed; i++) {
    CXType t = clang_getCanonicalType(clang_getCursorType(c->params[i]));
    name_of(c->params[i], nb, sizeof nb);
    if (k->params[i].is_pointer) {
      CXType pt = clang_getCanonicalType(clang_getPointeeType(t));
      if (pt.kind == CXType_Pointer || pt.kind == CXType_Void)
        refuse(c, "'%s' points to %s", nb, pt.kind == CXType_Void ? "void" : "pointers");
    } else if (!is_scalar_type(t)) {
      refuse(c, "parameter '%s' is not a scalar", nb);
    }
  }
  if (!c->failed) {
    CXCursor body = cursor_fn_body(f);
    if (clang_Cursor_isNull(body)) refuse(c, "no body in this file");
    else analyze_body(c, body, &grid_stride);
  }
  /* Every touched pointer covers exactly [0, n): per piece, count * elem_bytes. */
  for (int i = 0; i < k->n_params && !c->failed; i++) {
    const kernel_param *p = &k->params[i];
    if (!p->is_pointer || p->mode == ACCESS_NONE) continue;
    const char *cn = k->params[c->count].name;
    if (!p->extent || !cn || !sym_equal(p->extent, sym_var(a, cn)))
      refuse(c, "extent of '%s' is not '%s'", p->name ? p->name : "?", cn ? cn : "?");
  }
  int rc = 0;
  if (c->oom) {
    rc = -1;
  } else if (c->failed) {
    k->split_why = strdup(c->why);
    if (!k->split_why) rc = -1;
  } else {
    k->split = 1;
    k->split_count_param = c->count;
    k->split_grid_stride = grid_stride;
  }
  free(pl.v);
  free(c);
  return rc;
}
