/* kernels_call.c - calls in a kernel body: __device__ helpers analysed inline
 * with their parameters bound to the arguments (their return values,
 * Note [helper returns]), methods on objects (Note [member calls]), load
 * and store intrinsics, atomics, and what escapes into calls without a
 * body (Note [conservative]). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/kernels_impl.h"

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

char *ka_callee_name(CXCursor call) {
  CXCursor ref = clang_getCursorReferenced(call);
  if (!clang_Cursor_isNull(ref)) return string_and_dispose(clang_getCursorSpelling(ref));
  return string_and_dispose(clang_getCursorSpelling(call));
}

static int starts_with(const char *s, const char *p) {
  return !strncmp(s, p, strlen(p));
}

static int is_load_intrinsic(const char *n) {
  return !strcmp(n, "__ldg") || !strcmp(n, "__ldcs") || !strcmp(n, "__ldcg") ||
         !strcmp(n, "__ldca") || !strcmp(n, "__ldlu") || !strcmp(n, "__ldcv");
}
static int is_store_intrinsic(const char *n) {
  return !strcmp(n, "__stcs") || !strcmp(n, "__stcg") || !strcmp(n, "__stwb") ||
         !strcmp(n, "__stwt");
}

static void analyze_helper(kctx *c, CXCursor def, CXCursor call, int nargs, ptrval thisv,
                           ptrval *rp, lin *ri);

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
  CXCursor ch[1];
  int n_ch = cursor_children(call, ch, 1);
  if (n_ch < 1) return 0;
  CXCursor callee = cursor_strip(ch[0]);
  if (clang_getCursorKind(callee) != CXCursor_MemberRefExpr ||
      !is_method_kind(clang_getCursorKind(clang_getCursorReferenced(callee))))
    return 0;
  CXCursor mc[KIDS_MAX];
  int n_mc = cursor_children(callee, mc, KIDS_MAX);
  for (int i = 0; i < n_mc && i < KIDS_MAX; i++) /* the object comes first */
    if (clang_isExpression(clang_getCursorKind(mc[i]))) {
      *obj = mc[i];
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
    if (c->depth == 0 || c->this_ptr.param < 0) return ka_ptr_none(c);
    *len = c->this_ptr.elem_bytes;
    return c->this_ptr;
  }
  CXCursor o = cursor_strip(obj);
  CXType ot = clang_getCursorType(o);
  ptrval p;
  if (cursor_is_pointer_type(ot)) { /* p->m(): the object is *p */
    *len = cursor_pointee_bytes(ot);
    p = ka_eval_ptr(c, o);
  } else {
    enum CXCursorKind k = clang_getCursorKind(o);
    if (k == CXCursor_ArraySubscriptExpr || k == CXCursor_MemberRefExpr ||
        k == CXCursor_DeclRefExpr ||
        (k == CXCursor_UnaryOperator && clang_getCursorUnaryOperatorKind(o) == CXUnaryOperator_Deref)) {
      p = ka_eval_lvalue(c, o, len);
    } else {
      ka_visit_expr(c, o);
      return ka_ptr_none(c);
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
  if (cursor_is_pointer_type(ot)) ot = clang_getPointeeType(clang_getCanonicalType(ot));
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
  int v = ka_new_var(c, sym_const(c->a, n), 1);
  CXCursor od = cursor_strip(obj);
  if (v >= 0 && clang_getCursorKind(od) == CXCursor_DeclRefExpr)
    c->vars[v].rank_of = clang_getCursorReferenced(od);
  *ri = ka_lin_var(c, v);
}

/* The mode a call of method m makes on its object (Note [member calls]);
 * ACCESS_NONE for a static method. */
static unsigned method_object_mode(CXCursor m) {
  if (clang_CXXMethod_isStatic(m)) return ACCESS_NONE;
  return clang_CXXMethod_isConst(m) ? ACCESS_READ : ACCESS_READWRITE;
}

/* A call whose value is not followed (discarded, or used where tidal does
 * not look): a pointer a helper returns escapes. */
void ka_visit_call(kctx *c, CXCursor call) {
  ptrval rp;
  lin ri;
  ka_visit_call_value(c, call, &rp, &ri);
  ka_escape(c, rp, ACCESS_READWRITE, "pointer returned by a helper escapes");
}

/* Visits a call for its accesses; *rp / *ri receive the value a __device__
 * helper with a body returns (Note [helper returns]), else no pointer and
 * an opaque integer. */
void ka_visit_call_value(kctx *c, CXCursor call, ptrval *rp, lin *ri) {
  *rp = ka_ptr_none(c);
  /* what a call returns, unless a helper's body says more: an unsigned
   * result is >= 0 (as threadIdx.x is: values are assumed not to wrap when
   * converted to int), which is what makes `warp.meta_group_rank()` and
   * the like usable in an index */
  *ri = ka_lin_opaque(c, cursor_is_unsigned_type(clang_getCursorType(call)));
  char *name = ka_callee_name(call);
  int nargs = clang_Cursor_getNumArguments(call);
  CXCursor ref = clang_getCursorReferenced(call);
  CXCursor obj;
  int member = member_call_object(call, &obj);

  if (starts_with(name, "operator")) {
    /* Overloaded operators of user types (float4 assignment, __half
     * arithmetic) and conversion functions (`operator float`).  Operator
     * form: the children are the operands around the callee reference;
     * member form: the object, then the arguments. */
    CXCursor *args;
    int na = 0;
    if (member) {
      args = malloc(sizeof *args * (size_t)(nargs > 0 ? nargs + 1 : 1));
      if (args && !clang_Cursor_isNull(obj)) args[na++] = obj;
      for (int i = 0; args && i < nargs; i++)
        args[na++] = clang_Cursor_getArgument(call, (unsigned)i);
    } else {
      int nch = cursor_children_all(call, &args);
      for (int i = 0; i < nch; i++) { /* the operands, kept in place */
        CXCursor s = cursor_strip(args[i]);
        enum CXCursorKind sk = clang_getCursorKind(s);
        /* skip the callee reference itself */
        if (sk == CXCursor_DeclRefExpr && is_method_kind(clang_getCursorKind(clang_getCursorReferenced(s))))
          continue;
        if (sk == CXCursor_DeclRefExpr && clang_getCursorType(s).kind == CXType_FunctionProto) continue;
        if (!clang_isExpression(sk)) continue;
        args[na++] = args[i];
      }
    }
    if (!strcmp(name, "operator=") && na >= 1) {
      ka_store(c, args[0], ACCESS_WRITE, na >= 2 ? args[1] : clang_getNullCursor(), -1);
      for (int i = 2; i < na; i++)
        ka_visit_expr(c, args[i]);
    } else if (strlen(name) > 9 && name[strlen(name) - 1] == '=' && strcmp(name, "operator==") &&
               strcmp(name, "operator!=") && strcmp(name, "operator<=") && strcmp(name, "operator>=") &&
               na >= 1) {
      ka_store(c, args[0], ACCESS_READWRITE, na >= 2 ? args[1] : clang_getNullCursor(), -1);
      for (int i = 2; i < na; i++)
        ka_visit_expr(c, args[i]);
    } else if (member && !clang_Cursor_isNull(obj) && method_object_mode(ref) != ACCESS_READ) {
      /* a non-const member operator (`v[i]` of a user type, `operator()`)
       * may change its object */
      int len;
      ptrval p = object_address(c, obj, &len);
      if (method_object_mode(ref) != ACCESS_NONE) ka_record(c, p, ACCESS_READWRITE, len, NULL);
      for (int i = 1; i < na; i++)
        ka_visit_expr(c, args[i]);
    } else {
      for (int i = 0; i < na; i++)
        ka_visit_expr(c, args[i]);
    }
    free(args);
    free(name);
    return;
  }

  if (starts_with(name, "atomic")) {
    c->flags |= KERNEL_ATOMICS;
    for (int i = 0; i < nargs; i++) {
      CXCursor a = clang_Cursor_getArgument(call, (unsigned)i);
      if (i == 0 && cursor_is_pointer_type(clang_getCursorType(a))) {
        if (pointee_is_float(clang_getCursorType(a)) && strcmp(name, "atomicExch") &&
            strcmp(name, "atomicCAS"))
          c->flags |= KERNEL_NONDETERMINISTIC;
        ptrval p = ka_eval_ptr(c, a);
        ka_record(c, p, ACCESS_READWRITE, cursor_pointee_bytes(clang_getCursorType(a)), NULL);
      } else {
        ka_visit_expr(c, a);
      }
    }
    free(name);
    return;
  }
  if (is_load_intrinsic(name) || is_store_intrinsic(name)) {
    unsigned mode = is_load_intrinsic(name) ? ACCESS_READ : ACCESS_WRITE;
    for (int i = 0; i < nargs; i++) {
      CXCursor a = clang_Cursor_getArgument(call, (unsigned)i);
      if (i == 0 && cursor_is_pointer_type(clang_getCursorType(a))) {
        ptrval p = ka_eval_ptr(c, a);
        ka_record(c, p, mode, cursor_pointee_bytes(clang_getCursorType(a)), NULL);
        if (mode == ACCESS_WRITE) ka_note_cover(c, p, cursor_pointee_bytes(clang_getCursorType(a)));
      } else {
        ka_visit_expr(c, a);
      }
    }
    free(name);
    return;
  }
  /* `__builtin_assume_aligned(p, 16)` (llm.c's bf16 softmax) returns p
   * and touches nothing: its value is p's (the other arguments are
   * integers).  A hint only - if it were wrong the program would be
   * undefined, not reading elsewhere. */
  if (!strcmp(name, "__builtin_assume_aligned") && nargs >= 1 &&
      cursor_is_pointer_type(clang_getCursorType(clang_Cursor_getArgument(call, 0)))) {
    *rp = ka_eval_ptr(c, clang_Cursor_getArgument(call, 0));
    for (int i = 1; i < nargs; i++)
      ka_visit_expr(c, clang_Cursor_getArgument(call, (unsigned)i));
    free(name);
    return;
  }
  if (starts_with(name, "curand")) c->flags |= KERNEL_RNG;

  /* The object of a member call (Note [member calls]). */
  int obj_len = 0;
  ptrval objp = member ? object_address(c, obj, &obj_len) : ka_ptr_none(c);

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
    if (om != ACCESS_NONE) ka_record(c, objp, om, obj_len, NULL);
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
    if (cursor_is_pointer_type(clang_getCursorType(a))) {
      ptrval p = ka_eval_ptr(c, a);
      int ro = i < nfp ? pointee_is_const(clang_getArgType(fty, (unsigned)i))
                       : pointee_is_const(clang_getCursorType(a));
      ka_escape(c, p, ro ? ACCESS_READ : ACCESS_READWRITE, why);
    } else {
      ka_visit_expr(c, a);
    }
  }
  free(name);
}

/* Binds the helper's parameters to the argument values and walks its body
 * in this same context: accesses land on the kernel's parameters. */
static void analyze_helper(kctx *c, CXCursor def, CXCursor call, int nargs, ptrval thisv,
                           ptrval *rp, lin *ri) {
  for (int i = 0; i < c->depth; i++)
    if (clang_equalCursors(c->helpers[i], def) || c->depth >= HELPER_MAX_DEPTH) {
      /* recursion or too deep: every pointer argument escapes */
      ka_escape(c, thisv, ACCESS_READWRITE, "passed to a recursive or deeply nested helper");
      for (int j = 0; j < nargs; j++) {
        CXCursor a = clang_Cursor_getArgument(call, (unsigned)j);
        if (cursor_is_pointer_type(clang_getCursorType(a)))
          ka_escape(c, ka_eval_ptr(c, a), ACCESS_READWRITE,
                    "passed to a recursive or deeply nested helper");
        else
          ka_visit_expr(c, a);
      }
      return;
    }
  CXCursor *parms;
  int np = cursor_fn_params(def, &parms);
  if (np < 0) return;
  binding *vals = calloc((size_t)(np > 0 ? np : 1), sizeof *vals);
  if (!vals) {
    free(parms);
    return;
  }
  /* Evaluate every argument in the caller's environment first. */
  for (int i = 0; i < np; i++) {
    CXCursor parm = parms[i];
    vals[i].decl = parm;
    CXType pt = clang_getCursorType(parm);
    if (i >= nargs) {
      vals[i].kind = BIND_INT;
      vals[i].val = ka_lin_opaque(c, 0); /* default argument */
      continue;
    }
    CXCursor a = clang_Cursor_getArgument(call, (unsigned)i);
    if (cursor_is_pointer_type(pt)) {
      vals[i].kind = BIND_PTR;
      vals[i].ptr = ka_eval_ptr(c, a);
    } else if (clang_getCanonicalType(pt).kind == CXType_LValueReference ||
               clang_getCanonicalType(pt).kind == CXType_RValueReference) {
      CXType rt = clang_getPointeeType(clang_getCanonicalType(pt));
      if (cursor_is_pointer_type(rt)) {
        /* T *& parameter: the helper may move the caller's pointer */
        ptrval p = ka_eval_ptr(c, a);
        ka_escape(c, p, ACCESS_READWRITE, "bound to a reference parameter of a helper");
        vals[i].kind = BIND_PTR;
        vals[i].ptr = p;
        if (p.param >= 0) vals[i].ptr.off = ka_lin_bad(c);
      } else {
        /* T &x = p[i]: reads and writes of x are of p[i] */
        vals[i].kind = BIND_REF;
        vals[i].ptr = ka_ref_target(c, a, &vals[i].ref_len);
      }
    } else if (cursor_is_integer_type(pt)) {
      vals[i].kind = BIND_INT;
      vals[i].val = ka_eval_int(c, a);
    } else {
      ka_visit_expr(c, a);
      vals[i].kind = BIND_INT;
      vals[i].val = ka_lin_opaque(c, 0);
    }
  }
  free(parms);
  int saved = c->n_env;
  for (int i = 0; i < np; i++)
    ka_bind(c, vals[i]);
  free(vals);
  int saved_nret = c->n_ret;
  ptrval saved_this = c->this_ptr;
  c->this_ptr = thisv;
  ptrval saved_rptr = c->ret_ptr;
  lin saved_rint = c->ret_int;
  c->n_ret = 0;
  c->ret_ptr = ka_ptr_none(c);
  c->ret_int = ka_lin_opaque(c, 0);
  c->helpers[c->depth++] = def;
  ka_visit_stmt(c, cursor_fn_body(def));
  c->depth--;
  if (c->n_ret > 0) {
    *rp = c->ret_ptr;
    *ri = c->ret_int;
  }
  c->n_ret = saved_nret;
  c->this_ptr = saved_this;
  c->ret_ptr = saved_rptr;
  c->ret_int = saved_rint;
  ka_env_restore(c, saved);
}

/* Note [helper returns]: `return e;` in a helper being analysed inline
 * gives the call's value: a pointer (`row_ptr(out, r, C)` returning
 * `base + r*C`) or an affine integer (`idx2(r, c, C)` returning `r*C + c`),
 * in the caller's base variables (guards in the helper included).  Over
 * several returns the value is kept only where they agree: the same
 * parameter with different offsets is an unknown offset into it; different
 * parameters escape; different integers are opaque.  A pointer value the
 * caller does not follow escapes (ka_visit_call). */
static int lin_equal(const lin *x, const lin *y) {
  if (!x->ok || !y->ok || x->n != y->n || !sym_equal(x->k, y->k)) return 0;
  for (int i = 0; i < x->n; i++) {
    int j;
    for (j = 0; j < y->n && y->var[j] != x->var[i]; j++) {}
    if (j == y->n || !sym_equal(x->coef[i], y->coef[j])) return 0;
  }
  return 1;
}

void ka_helper_return(kctx *c, CXCursor value) {
  CXType rt = clang_getCursorResultType(c->helpers[c->depth - 1]);
  if (cursor_is_pointer_type(rt)) {
    ptrval p = ka_eval_ptr(c, value);
    if (c->n_ret == 0) {
      c->ret_ptr = p;
    } else if (c->ret_ptr.param == p.param) {
      if (!lin_equal(&c->ret_ptr.off, &p.off)) c->ret_ptr.off = ka_lin_bad(c);
    } else {
      ka_escape(c, c->ret_ptr, ACCESS_READWRITE, "helper returns pointers into different buffers");
      ka_escape(c, p, ACCESS_READWRITE, "helper returns pointers into different buffers");
      c->ret_ptr = ka_ptr_none(c);
    }
  } else if (cursor_is_integer_type(rt)) {
    lin v = ka_eval_int(c, value);
    if (c->n_ret == 0) c->ret_int = v;
    else if (!lin_equal(&c->ret_int, &v))
      c->ret_int = ka_lin_opaque(c, 0);
  } else {
    ka_visit_expr(c, value);
  }
  c->n_ret++;
}
