/* interp_call.c - calls: a user function entered with its arguments bound
 * to its parameters (gb_run_function), library descriptors (cuDNN tensor
 * descriptors, cublasLt layouts) and their size queries, host allocators,
 * methods on their objects (Note [C++ objects]), and one op per call site
 * however often a macro spells it (Note [one op per call site]).  Calls
 * into the CUDA runtime and libraries are handed to the handlers
 * (handlers.h); C++ heap objects and smart pointers are interp_cxx.c's.
 * Also the globals initialised before main() runs (gb_init_globals). */
#include <stdlib.h>
#include <string.h>

#include "graph/interp_impl.h"
#include "analysis/libcalls.h"

/* CUDA's dim3 (and uint3, its base in the toolkit's headers). */
static int is_dim3(CXType t) {
  char *sp = string_and_dispose(clang_getTypeSpelling(clang_getCanonicalType(t)));
  int r = sp && (!strcmp(sp, "dim3") || !strcmp(sp, "struct dim3") || !strcmp(sp, "const dim3"));
  free(sp);
  return r;
}

int gb_is_user_function(gb *b, CXCursor def) {
  if (clang_Cursor_isNull(def) || !clang_isCursorDefinition(def)) return 0;
  if (clang_Location_isInSystemHeader(clang_getCursorLocation(def))) return 0;
  /* __global__ and __device__-only functions are device code */
  int host = 1;
  CXCursor *ch;
  int n = cursor_children_all(def, &ch);
  for (int i = 0; i < n; i++) {
    enum CXCursorKind k = clang_getCursorKind(ch[i]);
    if (k == CXCursor_CUDAGlobalAttr || k == CXCursor_CUDADeviceAttr) host = 0;
  }
  for (int i = 0; i < n; i++)
    if (clang_getCursorKind(ch[i]) == CXCursor_CUDAHostAttr) host = 1;
  free(ch);
  return host;
}

static int host_allocator(const char *name) {
  return strcmp(name, "malloc") == 0 || strcmp(name, "calloc") == 0 ||
         strcmp(name, "realloc") == 0 || strcmp(name, "aligned_alloc") == 0 ||
         strcmp(name, "mallocCheck") == 0 || strcmp(name, "malloc_check") == 0;
}

/* The store key of the descriptor variable passed as argument i of call
 * (`d`, `this->d`, a reference parameter bound to a field, `&layout`). */
static const char *descriptor_key(gb *b, gb_frame *f, CXCursor call, int i) {
  CXCursor a = clang_Cursor_getArgument(call, (unsigned)i);
  CXCursor s = cursor_strip_casts(a);
  if (clang_getCursorKind(s) == CXCursor_UnaryOperator &&
      clang_getCursorUnaryOperatorKind(s) == CXUnaryOperator_AddrOf) {
    gval av = gb_eval(b, f, s);
    return av.k == GV_ADDR ? av.path : NULL;
  }
  return gb_lvalue(b, f, a, NULL, NULL);
}

/* Stores a descriptor setter's result into the descriptor variable. */
static void descriptor_call(gb *b, gb_frame *f, CXCursor call, const char *name, int nargs) {
  libcall_arg args[32];
  if (nargs > 32) return;
  for (int i = 0; i < nargs; i++) {
    CXCursor a = clang_Cursor_getArgument(call, (unsigned)i);
    gval v = gb_eval(b, f, a);
    args[i].value = v.k == GV_INT ? v.s : sym_unknown(b->a);
    args[i].text = gb_text(b, a);
  }
  int desc = -1, dense = 1;
  sym *bytes = NULL;
  if (libcall_descriptor_info(name, args, nargs, b->a, &desc, &bytes, &dense) != 0 || desc < 0 ||
      desc >= nargs)
    return;
  gval d = gb_none_val();
  d.k = GV_DESC;
  d.s = bytes ? bytes : sym_unknown(b->a);
  d.dense = dense;
  {
    sym *dims[LIBCALL_QUERY_MAX * 2];
    /* a tensor's (dataType, n, c, h, w): its n, for a batch split */
    if (!strncmp(name, "cudnnSetTensor4dDescriptor", 26) &&
        libcall_descriptor_params(name, args, nargs, dims, LIBCALL_QUERY_MAX * 2) == 5)
      d.batch = dims[1];
  }
  const char *key = descriptor_key(b, f, call, desc);
  if (!key) return;
  gb_store(b, key, d);
  /* Note [descriptor extents at the op]: the same bytes in the setter's own
   * names (`rows`, `ld`), for the op's declaration at run time; valid at an
   * op in the same activation of the same function only (opsites.c checks
   * "@frame"), as llm.c's matmul_cublaslt sets its layouts and calls the
   * matmul in one function. */
  libcall_arg largs[32];
  for (int i = 0; i < nargs; i++) {
    largs[i].value = gb_eval_local(b, clang_Cursor_getArgument(call, (unsigned)i));
    largs[i].text = args[i].text;
  }
  int ldense = 1;
  sym *lbytes = NULL;
  if (libcall_descriptor_info(name, largs, nargs, b->a, NULL, &lbytes, &ldense) != 0) lbytes = NULL;
  gb_store(b, gb_fmt(b, "%s.@frame", key), gb_int(b, sym_const(b->a, f ? f->id : -1), NULL, 0));
  gb_store(b, gb_fmt(b, "%s.@lbytes", key), gb_int(b, lbytes, NULL, 0));
  sym *lp[LIBCALL_QUERY_MAX * 2];
  int nlp = libcall_descriptor_params(name, largs, nargs, lp, LIBCALL_QUERY_MAX * 2);
  for (int i = 0; i < nlp && i < LIBCALL_QUERY_MAX * 2; i++)
    gb_store(b, gb_fmt(b, "%s.@ld%d", key, i), gb_int(b, lp[i], NULL, 0));
  /* Note [descriptor parameters]: the setter's integers (n, c, h, w; a
   * convolution's pads, strides, dilations) are kept beside the
   * descriptor as "KEY.@dI", their count as "KEY.@nd", so that a query
   * (cudnnGetConvolution2dForwardOutputDim) can compute the shapes a
   * program reads back from cuDNN; a setter keeping none clears them. */
  sym *params[LIBCALL_QUERY_MAX * 2];
  int np = libcall_descriptor_params(name, args, nargs, params, LIBCALL_QUERY_MAX * 2);
  if (np < 0 || np > LIBCALL_QUERY_MAX * 2) np = 0;
  gb_store(b, gb_fmt(b, "%s.@nd", key), gb_int(b, sym_const(b->a, np), NULL, 0));
  for (int i = 0; i < np; i++) gb_store(b, gb_fmt(b, "%s.@d%d", key, i), gb_int(b, params[i], NULL, 0));
}

/* A descriptor attribute (cublasLtMatrixLayoutSetAttribute(l, BATCH_COUNT,
 * &n, sizeof n), cublasLtMatmulDescSetAttribute(d, BIAS_POINTER, &bias,
 * ..)): *buf kept beside the descriptor as "KEY.@SLOT" (a device pointer
 * with its text, for the op's access; an integer; unknown when *buf is not
 * known), for the matmul (opsites.c; analysis/libcalls_cublaslt.c, Note
 * [cublasLt descriptors]).  An attribute not modelled is ignored. */
/* An attribute's value in the setter's own names.  A local variable
 * (`int64_t ld = m;` inside `if (pre_gelu) {..}`) may be out of scope at
 * the op, so it is its initializer's, when the variable still holds what
 * the initializer gives; otherwise unknown.  A parameter or a member is its
 * name. */
static sym *attr_local(gb *b, gb_frame *f, CXCursor e) {
  if (clang_getCursorKind(e) != CXCursor_DeclRefExpr) return gb_eval_local(b, e);
  CXCursor d = clang_getCursorReferenced(e);
  if (clang_getCursorKind(d) == CXCursor_ParmDecl || gb_is_global_var(d)) return gb_eval_local(b, e);
  if (clang_getCursorKind(d) != CXCursor_VarDecl) return sym_unknown(b->a);
  CXCursor init = cursor_last_expr_child(d);
  if (clang_Cursor_isNull(init)) return sym_unknown(b->a);
  gval now = gb_eval(b, f, e), was = gb_eval(b, f, init);
  if (now.k != GV_INT || was.k != GV_INT || !now.s || !was.s || sym_is_unknown(now.s) ||
      !sym_equal(now.s, was.s))
    return sym_unknown(b->a);
  return gb_eval_local(b, init);
}

static void descriptor_attr(gb *b, gb_frame *f, CXCursor call, const char *name, int nargs) {
  if (nargs < 3) return;
  CXCursor ac = clang_Cursor_getArgument(call, 1);
  gval av = gb_eval(b, f, ac);
  libcall_arg attr = {av.k == GV_INT ? av.s : sym_unknown(b->a), gb_text(b, ac)};
  const char *slot;
  int is_ptr = 0;
  const char *key = descriptor_key(b, f, call, 0);
  gval buf = gb_eval(b, f, clang_Cursor_getArgument(call, 2));
  for (int i = 3; i < nargs; i++) gb_eval(b, f, clang_Cursor_getArgument(call, (unsigned)i));
  if (!key || !libcall_attr_slot(name, &attr, &slot, &is_ptr)) return;
  gval v = gb_none_val();
  /* the integer in the setter's own names (`batch_count`), for the op's
   * declaration at run time (Note [descriptor extents at the op]) */
  CXCursor bc = cursor_strip_casts(clang_Cursor_getArgument(call, 2));
  CXCursor pc[1];
  gb_store(b, gb_fmt(b, "%s.@frame", gb_resolve_alias(b, key)),
           gb_int(b, sym_const(b->a, f ? f->id : -1), NULL, 0));
  if (!is_ptr && clang_getCursorKind(bc) == CXCursor_UnaryOperator &&
      clang_getCursorUnaryOperatorKind(bc) == CXUnaryOperator_AddrOf && cursor_children(bc, pc, 1) == 1)
    gb_store(b, gb_fmt(b, "%s.@l.%s", gb_resolve_alias(b, key), slot),
             gb_int(b, attr_local(b, f, cursor_strip_casts(pc[0])), NULL, 0));
  if (buf.k == GV_ADDR) {
    gval *p = gb_lookup(b, buf.path);
    if (p && (is_ptr ? p->k == GV_DEVPTR || p->k == GV_INT : p->k == GV_INT)) v = *p;
    else if (is_ptr && !p) v.k = GV_DEVPTR, v.base = sym_const(b->a, 0), v.delta = sym_unknown(b->a);
    /* the pointer as written where it is set (`bias` of `&bias`): the op's text */
    if (buf.text && buf.text[0] == '&') {
      v.text = buf.text + 1;
      v.text_ok = buf.text_ok;
      v.prec = 0;
    }
  } else if (is_ptr) {
    v.k = GV_DEVPTR; /* set from a pointer the analysis cannot follow */
    v.base = sym_const(b->a, 0);
    v.delta = sym_unknown(b->a);
  }
  gb_store(b, gb_fmt(b, "%s.@%s", gb_resolve_alias(b, key), slot), v);
}

/* A descriptor query (cudnnGetConvolution2dForwardOutputDim(conv, x, w,
 * &n, &c, &h, &w)): the integers it writes, computed from the parameters
 * the setters kept (Note [descriptor parameters]).  What cannot be
 * computed is forgotten, as after any opaque call. */
static void descriptor_query(gb *b, gb_frame *f, CXCursor call, const char *name, int nargs) {
  int da[LIBCALL_QUERY_MAX], oa[LIBCALL_QUERY_MAX], nd = 0, no = 0;
  if (libcall_query_args(name, da, &nd, oa, &no) != 0) return;
  sym *pv[LIBCALL_QUERY_MAX][LIBCALL_QUERY_MAX * 2];
  sym *const *params[LIBCALL_QUERY_MAX];
  int np[LIBCALL_QUERY_MAX];
  for (int i = 0; i < nd; i++) {
    params[i] = pv[i];
    np[i] = 0;
    const char *key = da[i] < nargs ? descriptor_key(b, f, call, da[i]) : NULL;
    gval *cnt = key ? gb_lookup(b, gb_fmt(b, "%s.@nd", gb_resolve_alias(b, key))) : NULL;
    int64_t c = 0;
    if (!cnt || cnt->k != GV_INT || !sym_get_const(cnt->s, &c) || c < 0 ||
        c > LIBCALL_QUERY_MAX * 2)
      continue;
    for (int k = 0; k < (int)c; k++) {
      gval *v = gb_lookup(b, gb_fmt(b, "%s.@d%d", gb_resolve_alias(b, key), k));
      pv[i][k] = v && v->k == GV_INT ? v->s : sym_unknown(b->a);
    }
    np[i] = (int)c;
  }
  sym *out[LIBCALL_QUERY_MAX];
  if (libcall_query_eval(name, params, np, b->a, out) != 0) return;
  for (int i = 0; i < no; i++) {
    if (oa[i] >= nargs) continue;
    gval p = gb_eval(b, f, clang_Cursor_getArgument(call, (unsigned)oa[i]));
    if (p.k != GV_ADDR) continue;
    gb_store(b, p.path, sym_is_unknown(out[i]) ? gb_none_val() : gb_int(b, out[i], NULL, 0));
  }
}

/* Note [one op per call site]: an error-check macro that evaluates its
 * argument twice (`#define CHECK(s) do { if ((s) != 0) { report(s);
 * exit(1); } } while (0)`) puts the same call in the AST twice.  At run
 * time the second one only runs on the error path, so it is one op (one
 * allocation, one walk of a user function), never two.  A call is
 * identified by where it is spelled and where it is expanded (a macro
 * body spelled once but expanded in two places is two calls), the frame,
 * and the frame's setup-loop iteration (an unrolled loop runs it again). */

static int seen_before(gb *b, gb_frame *f, CXCursor e) {
  CXSourceLocation loc = clang_getRangeStart(clang_getCursorExtent(e));
  gb_seen_call k;
  memset(&k, 0, sizeof k);
  clang_getFileLocation(loc, &k.file, NULL, NULL, &k.off);
  clang_getExpansionLocation(loc, &k.exp_file, NULL, NULL, &k.exp_off);
  if (k.file == k.exp_file && k.off == k.exp_off) return 0; /* not in a macro */
  k.frame = f ? f->id : -1;
  k.iter = f ? f->iter : 0;
  int n = b->n_seen < GB_SEEN_CALLS ? b->n_seen : GB_SEEN_CALLS;
  for (int i = 0; i < n; i++) {
    const gb_seen_call *s = &b->seen[i];
    if (s->off == k.off && s->exp_off == k.exp_off && s->frame == k.frame && s->iter == k.iter &&
        s->file == k.file && s->exp_file == k.exp_file)
      return 1;
  }
  b->seen[b->n_seen++ % GB_SEEN_CALLS] = k;
  return 0;
}

/* Note [C++ objects]: a method runs with "fN:this" holding the address of
 * its object (a store path), so `y_`, `this->y_` and `p.w` inside it name
 * the object's fields; constructors run for declared objects, member
 * initialisers first.  The object of `obj.m()` or `ptr->m()` is the
 * lvalue's path or the pointer's target; a call `m()` inside a method
 * passes its own `this`. */
const char *gb_method_object(gb *b, gb_frame *f, CXCursor call) {
  CXCursor ch[1];
  if (cursor_children(call, ch, 1) < 1) return NULL;
  CXCursor callee = cursor_strip_casts(ch[0]);
  if (clang_getCursorKind(callee) != CXCursor_MemberRefExpr) return NULL;
  CXCursor ob[1];
  if (cursor_children(callee, ob, 1) < 1) return gb_this_of(b, f); /* implicit this */
  if (clang_getCursorKind(cursor_strip_casts(ob[0])) == CXCursor_CXXThisExpr)
    return gb_this_of(b, f);
  if (cursor_is_pointer_type(clang_getCursorType(ob[0]))) {
    gval v = gb_eval(b, f, ob[0]);
    return v.k == GV_ADDR ? v.path : NULL;
  }
  return gb_lvalue(b, f, ob[0], NULL, NULL);
}

/* Arguments of call bound to def's parameters, the call's argument `skip`
 * first: a reference parameter is the argument's lvalue (an alias), a
 * smart pointer passed by value the pointer it holds, others the value.
 * Returns how many were bound. */
/* Note [integer min and max]: sizes are often `max(3*C, max(NH*T, Vp))`
 * (llm.c's scratch buffer) through the toolkit's or the standard library's
 * integer min/max, which have no body the interpreter can enter.  Their
 * value is the symbolic min/max of the arguments, so the size unrolls once
 * the names are bound.  Only integer results of two integer arguments: a
 * float max is no size. */
static int is_int_type(CXType t) {
  t = clang_getCanonicalType(t);
  return (t.kind >= CXType_Char_U && t.kind <= CXType_UInt128 && t.kind != CXType_Bool) ||
         (t.kind >= CXType_Char_S && t.kind <= CXType_Int128);
}

static int int_min_max(gb *b, gb_frame *f, CXCursor e, const char *name, gval *out) {
  int is_max = strcmp(name, "max") == 0, is_min = strcmp(name, "min") == 0;
  if ((!is_max && !is_min) || clang_Cursor_getNumArguments(e) != 2 ||
      !is_int_type(clang_getCursorType(e)))
    return 0;
  CXCursor x = clang_Cursor_getArgument(e, 0), y = clang_Cursor_getArgument(e, 1);
  if (!is_int_type(clang_getCursorType(cursor_strip_casts(x))) ||
      !is_int_type(clang_getCursorType(cursor_strip_casts(y))))
    return 0;
  gval a = gb_eval(b, f, x), c = gb_eval(b, f, y);
  if (a.k != GV_INT || c.k != GV_INT) return 0;
  sym *s = is_max ? sym_max(b->a, a.s, c.s) : sym_min(b->a, a.s, c.s);
  const char *text = a.text && c.text ? gb_fmt(b, "%s(%s, %s)", name, a.text, c.text) : NULL;
  *out = gb_int(b, s, text, text && a.text_ok && c.text_ok);
  out->carried = a.carried || c.carried;
  return 1;
}

/* Note [default arguments]: an argument the call leaves out
 * (`matmul(out, inp, w, bias, B, T, C, OC, stream)` of a function declared
 * `..., floatX *pre_gelu = NULL, int gelu_fusion = 1`) is, in libclang, a
 * leaf with no children: folded when it is an integer constant, but a NULL
 * pointer (`__null`, `nullptr`) or any other expression is not.  Its value
 * is the parameter's default expression, evaluated here (defaults are
 * constants or globals in practice; the caller's scope is the one C++
 * evaluates them in, but they name only what the declaration sees). */
static int is_default_arg(CXCursor a) {
  if (clang_getCursorKind(a) != CXCursor_UnexposedExpr) return 0;
  CXCursor ch[1];
  return cursor_children(a, ch, 1) == 0;
}

static CXCursor default_expr(CXCursor decl, int i) {
  if (clang_Cursor_isNull(decl) || i >= clang_Cursor_getNumArguments(decl)) return clang_getNullCursor();
  CXCursor p = clang_Cursor_getArgument(decl, (unsigned)i);
  CXCursor *ch;
  int n = cursor_children_all(p, &ch);
  CXCursor r = clang_getNullCursor();
  for (int j = 0; j < n; j++)
    if (clang_isExpression(clang_getCursorKind(ch[j]))) r = ch[j];
  free(ch);
  return r;
}

int gb_bind_call_args(gb *b, gb_frame *f, CXCursor call, CXCursor def, int skip, gval *args,
                      int max) {
  int n = clang_Cursor_getNumArguments(call);
  int np = clang_Cursor_isNull(def) ? 0 : clang_Cursor_getNumArguments(def);
  int na = n - skip < max ? n - skip : max;
  if (na < 0) na = 0;
  for (int i = 0; i < na; i++) {
    CXCursor ac = clang_Cursor_getArgument(call, (unsigned)(i + skip));
    CXType pt = i < np ? clang_getCursorType(clang_Cursor_getArgument(def, (unsigned)i))
                       : clang_getCursorType(ac);
    const char *key = NULL, *text = NULL;
    int ok = 0;
    if (i < np && (pt.kind == CXType_LValueReference || pt.kind == CXType_RValueReference))
      key = gb_lvalue(b, f, ac, &text, &ok);
    if (!key && is_default_arg(ac)) {
      /* Note [default arguments]: from the declaration that has it */
      CXCursor dx = default_expr(gb_callee_decl(call), i);
      if (clang_Cursor_isNull(dx)) dx = default_expr(def, i);
      if (!clang_Cursor_isNull(dx)) {
        args[i] = gb_eval(b, f, dx);
        continue;
      }
    }
    if (!key) {
      args[i] = i < np && gb_is_smart_ptr(pt) ? gb_smart_held(b, f, ac, NULL) : gb_eval(b, f, ac);
      /* a temporary object bound to a reference (`relu(w1 * x)`): the
       * parameter names the object the call returned */
      if (i < np && (pt.kind == CXType_LValueReference || pt.kind == CXType_RValueReference) &&
          args[i].k == GV_ADDR && gb_is_record_type(clang_getPointeeType(pt)) &&
          !gb_is_smart_ptr(pt))
        args[i].k = GV_ALIAS;
      continue;
    }
    args[i] = gb_none_val();
    args[i].k = GV_ALIAS;
    args[i].path = key;
    args[i].index = b->lv_index;
    args[i].text = text;
    args[i].text_ok = ok;
  }
  return na;
}

GB_NOINLINE gval gb_eval_call(gb *b, gb_frame *f, CXCursor e) {
  if (seen_before(b, f, e)) return gb_none_val();
  /* libclang shows C++ constructions as calls: a copy of a struct
   * (`ActivationTensors acts = model->acts;`) is its one argument. */
  CXCursor ref = clang_getCursorReferenced(e);
  if (!clang_Cursor_isNull(ref) && clang_getCursorKind(ref) == CXCursor_Constructor) {
    int n = clang_Cursor_getNumArguments(e);
    /* A user constructor of a declared object (`Relu relu(4096);`): run it
     * with `this` the object, so the sizes and buffers it sets are seen
     * (Note [C++ objects]). */
    const char *obj = b->this_path;
    b->this_path = NULL;
    if (gb_is_smart_ptr(clang_getCursorType(e))) return gb_smart_construct(b, f, e, obj);
    if (obj && is_dim3(clang_getCursorType(e)) &&
        !(n == 1 && gb_is_record_type(clang_getCursorType(clang_Cursor_getArgument(e, 0))))) {
      /* `dim3 grid(CEIL_DIV(N, 128), OC / 128);`, `dim3 block = {4, 8, 32};`:
       * the fields a launch configuration reads (opsites.c, Note [launch
       * dimensions]); a component left out is 1 */
      static const char *const comp[3] = {"x", "y", "z"};
      for (int i = 0; i < 3; i++) {
        gval v = i < n ? gb_eval(b, f, clang_Cursor_getArgument(e, (unsigned)i))
                       : gb_int(b, sym_const(b->a, 1), "1", 1);
        if (v.k != GV_INT) v = gb_int(b, NULL, NULL, 0);
        gb_store(b, gb_fmt(b, "%s.%s", obj, comp[i]), v);
      }
      return gb_none_val();
    }
    if (obj && gb_is_vector_type(clang_getCursorType(e))) {
      /* std::vector<T> v(count[, value]): its size() is count; v: 0
       * (interp_container.c, Note [container elements]) */
      gval cnt = n == 0 ? gb_int(b, sym_const(b->a, 0), NULL, 0) : gb_none_val();
      for (int i = 0; i < n; i++) {
        gval v = gb_eval(b, f, clang_Cursor_getArgument(e, (unsigned)i));
        if (i == 0 && v.k == GV_INT &&
            !gb_is_record_type(clang_getCursorType(clang_Cursor_getArgument(e, 0))))
          cnt = v;
      }
      gb_store(b, gb_fmt(b, "%s.@size", obj), cnt);
      return gb_none_val();
    }
    CXCursor cdef = program_definition(b->t, ref);
    if (obj && !clang_CXXConstructor_isCopyConstructor(ref) &&
        !clang_CXXConstructor_isMoveConstructor(ref)) {
      gb_default_members(b, f, obj, clang_getCursorType(e));
      gb_set_dynamic_class(b, obj, clang_getCursorSemanticParent(ref)); /* its virtual methods */
    }
    if (obj && !clang_CXXConstructor_isCopyConstructor(ref) &&
        !clang_CXXConstructor_isMoveConstructor(ref) && gb_is_user_function(b, cdef)) {
      gval args[64];
      int na = gb_bind_call_args(b, f, e, cdef, 0, args, 64); /* `Model(const Config &c)` */
      b->this_path = obj;
      gb_run_function(b, cdef, f, e, args, na, NULL);
      b->this_path = NULL;
      return gb_none_val();
    }
    if (n == 1 && gb_is_record_type(clang_getCursorType(e)))
      return gb_eval(b, f, clang_Cursor_getArgument(e, 0));
    for (int i = 0; i < n; i++) gb_eval(b, f, clang_Cursor_getArgument(e, (unsigned)i));
    return gb_none_val();
  }
  if (!clang_Cursor_isNull(ref) && clang_getCursorKind(ref) == CXCursor_CXXMethod) {
    gval sv;
    if (gb_smart_method(b, f, e, ref, &sv)) return sv;
  }
  /* a std::vector's size and elements (interp_container.c) */
  if (!clang_Cursor_isNull(ref) && clang_getCursorKind(ref) == CXCursor_CXXMethod) {
    gval vv;
    if (gb_vector_method(b, f, e, ref, &vv)) return vv;
  }
  /* C++ spells a struct assignment `b->a = tensor_alloc(n)` as a call of
   * the implicit (defaulted) operator=: the same alias as the C assignment. */
  if (!clang_Cursor_isNull(ref) && clang_getCursorKind(ref) == CXCursor_CXXMethod &&
      clang_Cursor_getNumArguments(e) == 2 && clang_CXXMethod_isDefaulted(ref)) {
    char *op = string_and_dispose(clang_getCursorSpelling(ref));
    int is_assign = strcmp(op, "operator=") == 0;
    free(op);
    if (is_assign) {
      CXCursor lhs = clang_Cursor_getArgument(e, 0), rhs = clang_Cursor_getArgument(e, 1);
      /* `t[i] = {&w, n};` (C++11 braced assignment): the fields one by
       * one, as the declaration `Slot e = {&w, n};` stores them */
      if (clang_getCursorKind(cursor_strip_casts(rhs)) == CXCursor_InitListExpr) {
        const char *text = NULL;
        int ok = 0;
        const char *key = gb_lvalue(b, f, lhs, &text, &ok);
        if (key) {
          gb_init_store(b, f, key, text ? text : key, clang_getCursorType(lhs), rhs, 0);
          return gb_none_val();
        }
      }
      return gb_assign(b, f, lhs, rhs, gb_eval(b, f, rhs), CXBinaryOperator_Invalid);
    }
  }
  gval ret = gb_none_val();
  /* through a function pointer, or a virtual method (interp_indirect.c); a
   * library function through a pointer is a call of it by name (callees.c,
   * Note [library functions through pointers]) */
  CXCursor lib = clang_getNullCursor();
  if (gb_call_indirect(b, f, e, &ret, &lib)) return ret;
  int through = !clang_Cursor_isNull(lib);
  char *name = through ? string_and_dispose(clang_getCursorSpelling(lib)) : gb_callee_name(e);
  if (!name) goto generic;
  if ((strcmp(name, "make_unique") == 0 || strcmp(name, "make_shared") == 0) &&
      gb_is_smart_ptr(clang_getCursorType(e))) {
    ret = gb_make_smart(b, f, e);
    goto out;
  }
  int sync = b->mode == GB_GRAPH && !b->dry && b->cur_branch < 0 ? graph_device_sync_call(name) : 0;
  if (sync) {
    b->g->loop_device_syncs++;
    if (sync == 2) /* not replaced (Note [the program's sync]) */
      b->g->loop_device_syncs_kept++;
  }
  const libcall_info *li = libcall_find(name);
  if (li && (li->flags & (LIBCALL_ALLOC | LIBCALL_FREE))) {
    if (b->h->alloc_call(b, f, e, name)) {
      /* the analysis follows the run where allocation succeeds:
       * `if (err != cudaSuccess) t.data = NULL;` is then not taken */
      ret = gb_int(b, sym_const(b->a, 0), NULL, 0);
      goto out;
    }
  }
  if (li && (li->flags & LIBCALL_DESCRIPTOR_SETTER)) {
    descriptor_call(b, f, e, name, clang_Cursor_getNumArguments(e));
    goto out;
  }
  if (li && (li->flags & LIBCALL_DESCRIPTOR_ATTR)) {
    descriptor_attr(b, f, e, name, clang_Cursor_getNumArguments(e));
    goto out;
  }
  if (li && (li->flags & LIBCALL_DESCRIPTOR_QUERY)) {
    descriptor_query(b, f, e, name, clang_Cursor_getNumArguments(e));
    goto out;
  }
  if (b->h->op_site(b, f, e, through ? name : NULL)) {
    if (b->in_once) b->once_sites++;
    goto out;
  }
  if (gb_device_query(b, f, e, name)) {
    ret = gb_int(b, sym_const(b->a, 0), NULL, 0); /* cudaSuccess */
    goto out;
  }
  if (!gb_is_user_function(b, program_definition(b->t, gb_callee_decl(e))) &&
      int_min_max(b, f, e, name, &ret))
    goto out;
  if (host_allocator(name)) {
    /* evaluate the size for side effects; the result is a fresh host array */
    int n = clang_Cursor_getNumArguments(e);
    for (int i = 0; i < n; i++) gb_eval(b, f, clang_Cursor_getArgument(e, (unsigned)i));
    ret.k = GV_ADDR;
    /* named after the variable it is stored to, as a heap object is
     * (interp_cxx.c Note [heap objects]): its elements' regions read
     * `net.layers[0].w`, not `h5[0].w` */
    const char *nm = b->new_name;
    b->new_name = NULL;
    ret.path = nm && gb_is_plain_lvalue_text(nm) ? gb_fmt(b, "h%d:%s[0]", b->next_frame++, nm)
                                                 : gb_fmt(b, "h%d[0]", b->next_frame++);
    goto out;
  }
  {
    CXCursor decl = gb_callee_decl(e);
    CXCursor def = program_definition(b->t, decl); /* in any input */
    int n = clang_Cursor_getNumArguments(e);
    if (n < 0) n = 0;
    gval args[64];
    int np = clang_Cursor_isNull(def) ? 0 : clang_Cursor_getNumArguments(def);
    /* An operator call (a lambda `launch(p.w, g.w, 150)`, a functor) lists
     * the object as argument 0: the parameters bind the ones after it. */
    int skip = !clang_Cursor_isNull(def) && clang_getCursorKind(def) == CXCursor_CXXMethod &&
               n == np + 1;
    if (skip) gb_eval(b, f, clang_Cursor_getArgument(e, 0));
    /* C++ reference parameters (`void alloc(P &p)`, `float *&q`): the
     * parameter is the argument's lvalue, so writes through it land there */
    int na = gb_bind_call_args(b, f, e, def, skip, args, 64);
    if (gb_is_user_function(b, def) && !clang_Cursor_isNull(def)) {
      if (clang_getCursorKind(def) == CXCursor_CXXMethod && !clang_CXXMethod_isStatic(def)) {
        b->this_path = gb_method_object(b, f, e); /* virtual calls: gb_call_indirect */
      }
      gb_run_function(b, def, f, e, args, na, &ret);
      b->this_path = NULL;
    } else {
      /* a pure virtual method has no body for the static type: say so, or
       * the ops of its overrides would vanish without a word */
      if (!clang_Cursor_isNull(decl) && clang_getCursorKind(decl) == CXCursor_CXXMethod &&
          clang_CXXMethod_isPureVirtual(decl))
        gb_note(b, e, "call of a pure virtual method: overrides in derived classes are not "
                "followed, ops below them are not in the graph");
      /* An opaque call may write through the addresses it is given
       * (cudaGetDeviceCount(&n)): forget integers stored there, and
       * functions (`register_hook(&fp)` may store another one) */
      for (int i = 0; i < na; i++) {
        if (args[i].k != GV_ADDR) continue;
        gval *st = gb_lookup(b, args[i].path);
        if (st && ((st->k == GV_INT && !st->ind) || st->k == GV_FUNC))
          gb_store(b, args[i].path, gb_none_val());
      }
    }
    goto out;
  }
generic: {
  int n = clang_Cursor_getNumArguments(e);
  for (int i = 0; i < n; i++) gb_eval(b, f, clang_Cursor_getArgument(e, (unsigned)i));
}
out:
  free(name);
  return ret;
}

/* Global structs initialised at file scope (`config_t config = {.n_embd
 * = 768, ...}`) and global objects (`static Pool pool;`: default member
 * initialisers, then the constructor) in any input: their fields hold
 * those values when main() starts, as the program's own reads will see
 * them. */
static enum CXChildVisitResult global_init_visitor(CXCursor c, CXCursor parent, CXClientData d) {
  (void)parent;
  gb *b = d;
  enum CXCursorKind k = clang_getCursorKind(c);
  if (k == CXCursor_Namespace || k == CXCursor_LinkageSpec) return CXChildVisit_Recurse;
  if (k != CXCursor_VarDecl || !clang_isCursorDefinition(c) ||
      !gb_is_record_type(clang_getCursorType(c)) || !program_view_of(b->t, c))
    return CXChildVisit_Continue;
  CXCursor *ch;
  int n = cursor_children_all(c, &ch), has_init = 0;
  for (int i = 0; i < n; i++) {
    CXCursor s = cursor_strip_casts(ch[i]);
    if (clang_getCursorKind(s) == CXCursor_InitListExpr) has_init = 1;
    /* an object whose constructor runs before main (`static Pool pool;`) */
    if (clang_getCursorKind(s) == CXCursor_CallExpr &&
        clang_getCursorKind(clang_getCursorReferenced(s)) == CXCursor_Constructor)
      has_init = 1;
  }
  free(ch);
  if (has_init) gb_walk_decl(b, NULL, c);
  return CXChildVisit_Continue;
}

void gb_init_globals(gb *b) {
  pass_tu *const *units;
  int n = program_units(b->t, &units);
  for (int u = 0; u < n; u++)
    clang_visitChildren(clang_getTranslationUnitCursor(units[u]->tu), global_init_visitor, b);
}

int gb_run_function(gb *b, CXCursor fn, gb_frame *caller, CXCursor call, const gval *args,
                    int nargs, gval *ret) {
  if (b->n_stack >= GB_MAX_CALL_DEPTH) {
    /* Not followed: say so, or ops below this call would vanish silently. */
    if (!clang_Cursor_isNull(call))
      gb_note(b, call, "call chain deeper than %d functions: this call is not followed, "
              "ops below it are not in the graph", GB_MAX_CALL_DEPTH);
    return -1;
  }
  for (int i = 0; i < b->n_stack; i++)
    if (clang_equalCursors(b->stack[i], fn)) return -1; /* recursion: walked once */
  gb_frame fr;
  memset(&fr, 0, sizeof fr);
  fr.id = b->next_frame++;
  fr.fn = fn;
  fr.caller = caller;
  fr.depth = caller ? caller->depth + 1 : 0;
  fr.call_index = -1;
  fr.ret = gb_none_val();
  char *fname = string_and_dispose(clang_getCursorSpelling(fn));
  CXCursor lp = clang_getCursorSemanticParent(b->train_loop);
  (void)lp;
  fr.keep_names = !caller || strcmp(fname, "main") == 0;
  if (!clang_Cursor_isNull(b->train_loop)) {
    /* the function lexically containing the training loop keeps names */
    CXCursor p = b->train_loop;
    for (int guard = 0; guard < 256 && !clang_Cursor_isNull(p); guard++) {
      enum CXCursorKind pk = clang_getCursorKind(p);
      if (pk == CXCursor_FunctionDecl || pk == CXCursor_CXXMethod) break;
      p = clang_getCursorSemanticParent(p);
    }
    if (!clang_Cursor_isNull(p) && clang_equalCursors(p, fn)) fr.keep_names = 1;
  }
  /* Bind parameters to the caller's argument values. */
  int np = clang_Cursor_getNumArguments(fn);
  for (int i = 0; i < np; i++) {
    CXCursor pd = clang_Cursor_getArgument(fn, (unsigned)i);
    char *pname = string_and_dispose(clang_getCursorSpelling(pd));
    if (*pname) {
      const char *key = gb_fmt(b, "f%d:%s", fr.id, pname);
      gval v = i < nargs ? args[i] : gb_none_val();
      CXType pt = clang_getCursorType(pd);
      if (i >= nargs) {
        v = gb_read_lvalue(b, &fr, NULL, pt, gb_str(b, pname), 0);
      } else if (gb_is_record_type(pt) && !gb_is_smart_ptr(pt) && v.k == GV_ADDR) {
        v.k = GV_ALIAS; /* struct passed by value */
      } else if (!caller && v.k == GV_NONE) {
        v = gb_read_lvalue(b, &fr, NULL, pt, gb_str(b, pname), 1);
      }
      gb_store(b, key, v);
    }
    free(pname);
  }
  /* The object of a method or constructor (Note [C++ objects]). */
  const char *obj = b->this_path;
  b->this_path = NULL;
  if (obj) {
    gval tv = gb_none_val();
    tv.k = GV_ADDR;
    tv.path = obj;
    gb_store(b, gb_fmt(b, "f%d:this", fr.id), tv);
    if (clang_getCursorKind(fn) == CXCursor_Constructor) {
      /* member initialisers `: n_(n), w_(nullptr)`: a MemberRef, then its value */
      CXCursor *mi;
      int nk = cursor_children_all(fn, &mi);
      for (int i = 0; i + 1 < nk; i++) {
        if (clang_getCursorKind(mi[i]) != CXCursor_MemberRef ||
            !clang_isExpression(clang_getCursorKind(mi[i + 1])))
          continue;
        char *field = string_and_dispose(clang_getCursorSpelling(mi[i]));
        b->this_path = gb_fmt(b, "%s.%s", obj, field); /* a member object's constructor */
        CXType ft = clang_getCursorType(clang_getCursorReferenced(mi[i]));
        gval v = gb_none_val();
        if (ft.kind == CXType_LValueReference || ft.kind == CXType_RValueReference) {
          /* a reference member (`FullyConnectedLayer &ref_fc1`) names its initialiser */
          const char *key = gb_lvalue(b, &fr, mi[i + 1], NULL, NULL);
          if (key) {
            v.k = GV_ALIAS;
            v.path = key;
          }
        } else if (gb_is_smart_ptr(ft)) {
          /* `layer_(new Layer(n))`, `buf_(std::move(b))` (Note [smart pointers]) */
          if (gb_makes_heap_object(mi[i + 1])) b->new_name = gb_member_text(b, obj, field);
          v = gb_smart_held(b, &fr, mi[i + 1], NULL);
        } else {
          if (gb_makes_heap_object(mi[i + 1])) b->new_name = gb_member_text(b, obj, field);
          v = gb_eval(b, &fr, mi[i + 1]);
          if (gb_is_record_type(ft) && v.k == GV_ADDR) v.k = GV_ALIAS; /* Note [struct copies] */
        }
        b->this_path = NULL;
        b->new_name = NULL;
        gb_store(b, gb_fmt(b, "%s.%s", obj, field), v);
        free(field);
      }
      free(mi);
    }
  }
  /* Record the call on the path when inside the training loop. */
  int pushed = 0;
  if (b->mode == GB_GRAPH && caller && b->n_path < GB_MAX_CALL_DEPTH &&
      !clang_Cursor_isNull(call)) {
    graph_call *gc = &b->path[b->n_path];
    memset(gc, 0, sizeof *gc);
    gc->function = fname;
    fname = NULL;
    gb_location(b, call, &gc->file, &gc->line, &gc->col);
    gc->stmt = b->have_stmt ? gb_range(b, b->cur_stmt, 1) : gb_range(b, call, 0);
    b->path_cursor[b->n_path] = call;
    b->path_fn[b->n_path] = fn;
    fr.call_index = b->n_path;
    b->n_path++;
    pushed = 1;
  }
  b->stack[b->n_stack++] = fn;
  CXCursor saved_stmt = b->cur_stmt;
  int saved_have = b->have_stmt;
  b->have_stmt = 0;
  CXCursor body = cursor_fn_body(fn);
  if (!clang_Cursor_isNull(body)) gb_walk_stmt(b, &fr, body);
  b->cur_stmt = saved_stmt;
  b->have_stmt = saved_have;
  b->n_stack--;
  if (pushed) {
    b->n_path--;
    free(b->path[b->n_path].function);
    free(b->path[b->n_path].file);
  }
  free(fname);
  if (ret) *ret = fr.ret;
  return 0;
}
