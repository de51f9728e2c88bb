/* kernels_expr.c - expressions in a kernel body: integers as affine values
 * (eval_int), pointers into parameters (eval_ptr), lvalues, and the
 * accesses expressions make: loads, stores (with the dense proof's
 * candidates, Note [dense]), increments, address escapes. */
#include <stdlib.h>
#include <string.h>

#include "analysis/kernels_impl.h"
#include "base/stack.h"

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
  CXCursor ch[1];
  int n_ch = cursor_children(e, ch, 1);
  if (n_ch != 1) return BI_NONE;
  char *member = cursor_member_name(e);
  char *bn = string_and_dispose(clang_getCursorSpelling(cursor_strip(ch[0])));
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
  CXCursor ch[2];
  int n_ch = cursor_children(e, ch, 2);
  if (n_ch != 2) return 0;
  int x = builtin_x(ch[0]), y = builtin_x(ch[1]);
  return (x == a && y == b) || (x == b && y == a);
}

/* Values made while evaluating e that read memory are data-dependent
 * (base_var.data): only the reason given for an unknown extent uses it. */
static lin eval_int_value(kctx *c, CXCursor e);

/* Note [bounded products]: x*y of two non-negative values is not affine,
 * but it is bounded when both are: max(x)*max(y).  The y and z thread
 * indices are written that way (`oc = 8*(blockIdx.y * blockDim.y +
 * threadIdx.y)`, llm.c's matmul_forward_kernel4): blockIdx.y < gridDim.y
 * and blockDim.y <= blockDim.y, so the product is below
 * (gridDim.y - 1)*blockDim.y + 1 and the index below
 * gridDim.y*blockDim.y - an extent in the launch's dimensions (Note
 * [launch bounds], kernels_value.c).  The product is a fresh variable
 * bounded by its own bound when both factors have one, else by the launch
 * bound; it covers nothing (Note [dense]: its values are not all taken). */
static lin product_var(kctx *c, lin x, lin y, int nonneg) {
  if (!nonneg) return ka_lin_opaque(c, 0);
  sym *xo = ka_lin_max_mode(c, x, 0), *yo = ka_lin_max_mode(c, y, 0);
  if (xo && yo)
    return ka_lin_var(c, ka_new_var(c, sym_add(c->a, sym_mul(c->a, xo, yo), sym_const(c->a, 1)), 1));
  sym *xm = ka_lin_max(c, x), *ym = ka_lin_max(c, y);
  int v = ka_new_var(c, NULL, 1);
  if (v >= 0 && xm && ym) {
    sym *lb = sym_add(c->a, sym_mul(c->a, xm, ym), sym_const(c->a, 1));
    c->vars[v].lbound = sym_is_unknown(lb) ? NULL : lb;
  }
  return ka_lin_var(c, v);
}

lin ka_eval_int(kctx *c, CXCursor e) {
  int loads = c->n_loads, vars = c->n_vars;
  lin r = eval_int_value(c, e);
  if (c->n_loads != loads)
    for (int i = 0; r.ok && i < r.n; i++)
      if (r.var[i] >= vars) c->vars[r.var[i]].data = 1;
  return r;
}

/* x (one fresh variable) marked as the launch builtin tag (Note [reversed
 * indices], kernels_value.c). */
static lin launch_tagged(kctx *c, lin x, int tag) {
  if (x.ok && x.n == 1) c->vars[x.var[0]].launch = tag;
  return x;
}

static lin eval_int_value(kctx *c, CXCursor e) {
  if (stack_too_deep(e, "expression")) return ka_lin_bad(c);
  e = cursor_strip(e);
  enum CXCursorKind k = clang_getCursorKind(e);
  int64_t cv;
  switch (k) {
  case CXCursor_IntegerLiteral:
  case CXCursor_CharacterLiteral:
  case CXCursor_UnaryExpr: /* sizeof, alignof */
    if (cursor_eval_int(e, &cv)) return ka_lin_const(c, sym_const(c->a, cv));
    return ka_lin_opaque(c, 0);
  case CXCursor_DeclRefExpr: {
    CXCursor d = clang_getCursorReferenced(e);
    binding *b = ka_lookup(c, d);
    if (b && b->kind == BIND_INT) return b->val;
    if (b && b->kind == BIND_REF) { /* `int &k = idx[i]; ... k`: a load */
      ka_record(c, b->ptr, ACCESS_READ, b->ref_len, NULL);
      return ka_lin_opaque(c, 0);
    }
    if (clang_getCursorKind(d) == CXCursor_EnumConstantDecl)
      return ka_lin_const(c, sym_const(c->a, clang_getEnumConstantDeclValue(d)));
    if (cursor_eval_int(e, &cv)) return ka_lin_const(c, sym_const(c->a, cv));
    return ka_lin_opaque(c, 0);
  }
  case CXCursor_MemberRefExpr: {
    /* threadIdx.x and friends: non-negative, unbounded (the launch decides). */
    int bx = builtin_x(e);
    sym *one = sym_const(c->a, 1);
    if (bx == BI_TID)
      return launch_tagged(c, ka_lin_cover(c, COV_TID_RAW, ka_launch_name(c, "blockDim", "x")),
                           LAUNCH_TID);
    if (bx == BI_BID)
      return launch_tagged(c, ka_lin_cover(c, COV_BID_RAW, ka_launch_name(c, "gridDim", "x")),
                           LAUNCH_BID);
    if (bx == BI_BDIM)
      return launch_tagged(
          c, ka_lin_cover(c, COV_BDIM_RAW, sym_add(c->a, ka_launch_name(c, "blockDim", "x"), one)),
          LAUNCH_BDIM);
    CXCursor ch[1];
    int n_ch = cursor_children(e, ch, 1);
    if (n_ch == 1) {
      CXCursor base = cursor_strip(ch[0]);
      char *bn = string_and_dispose(clang_getCursorSpelling(base));
      char *mn = cursor_member_name(e);
      /* the launch bound of each builtin: threadIdx < blockDim, blockIdx <
       * gridDim, blockDim <= blockDim (Note [launch bounds]) */
      const char *dim = !strcmp(bn, "threadIdx") || !strcmp(bn, "blockDim") ? "blockDim"
                        : !strcmp(bn, "blockIdx") || !strcmp(bn, "gridDim") ? "gridDim"
                                                                             : NULL;
      int tag = !strcmp(bn, "gridDim")    ? LAUNCH_GDIM
                : !strcmp(bn, "blockIdx") ? LAUNCH_BID
                : !strcmp(bn, "blockDim") ? LAUNCH_BDIM
                : !strcmp(bn, "threadIdx") ? LAUNCH_TID
                                           : LAUNCH_NONE;
      sym *lb = NULL;
      if (dim && mn && (!strcmp(mn, "x") || !strcmp(mn, "y") || !strcmp(mn, "z"))) {
        lb = ka_launch_name(c, dim, mn);
        if (!strcmp(bn, "blockDim") || !strcmp(bn, "gridDim")) lb = sym_add(c->a, lb, one);
        tag += mn[0] - 'x';
      } else {
        tag = LAUNCH_NONE;
      }
      free(bn);
      free(mn);
      if (dim) return launch_tagged(c, ka_lin_cover(c, COV_NONE, lb), tag);
    }
    ka_visit_expr(c, e);
    return ka_lin_opaque(c, cursor_is_unsigned_type(clang_getCursorType(e)));
  }
  case CXCursor_CStyleCastExpr:
  case CXCursor_CXXStaticCastExpr:
  case CXCursor_CXXFunctionalCastExpr: {
    CXCursor in = cursor_last_expr_child(e);
    if (!clang_Cursor_isNull(in) && cursor_is_integer_type(clang_getCursorType(in)))
      return ka_eval_int(c, in);
    ka_visit_expr(c, e);
    return ka_lin_opaque(c, 0);
  }
  case CXCursor_BinaryOperator: {
    CXCursor ch[2];
    int n_ch = cursor_children(e, ch, 2);
    if (n_ch != 2) break;
    enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(e);
    /* the global thread index and the grid-stride step (Note [dense]) */
    if (op == CXBinaryOperator_Add &&
        ((is_builtin_product(ch[0], BI_BID, BI_BDIM) && builtin_x(ch[1]) == BI_TID) ||
         (is_builtin_product(ch[1], BI_BID, BI_BDIM) && builtin_x(ch[0]) == BI_TID)))
      return ka_lin_cover(
          c, COV_GTID_RAW,
          sym_mul(c->a, ka_launch_name(c, "gridDim", "x"), ka_launch_name(c, "blockDim", "x")));
    if (op == CXBinaryOperator_Mul && is_builtin_product(e, BI_BDIM, BI_GDIM))
      return ka_lin_cover(c, COV_STRIDE_RAW,
                          sym_add(c->a,
                                  sym_mul(c->a, ka_launch_name(c, "gridDim", "x"),
                                          ka_launch_name(c, "blockDim", "x")),
                                  sym_const(c->a, 1)));
    if (op == CXBinaryOperator_Add || op == CXBinaryOperator_Sub || op == CXBinaryOperator_Mul ||
        op == CXBinaryOperator_Div || op == CXBinaryOperator_Rem || op == CXBinaryOperator_Shl) {
      lin x = ka_eval_int(c, ch[0]), y = ka_eval_int(c, ch[1]);
      switch (op) {
      case CXBinaryOperator_Add: {
        lin r = ka_lin_launch_pairs(c, ka_lin_add_scaled(c, x, y, sym_const(c->a, 1)));
        return r.ok ? r : ka_lin_opaque(c, ka_lin_nonneg(c, x) && ka_lin_nonneg(c, y));
      }
      case CXBinaryOperator_Sub: {
        lin r = ka_lin_launch_pairs(c, ka_lin_add_scaled(c, x, y, sym_const(c->a, -1)));
        return r.ok ? r : ka_lin_opaque(c, 0);
      }
      case CXBinaryOperator_Mul:
      case CXBinaryOperator_Shl: {
        int nn = ka_lin_nonneg(c, x) && ka_lin_nonneg(c, y);
        if (op == CXBinaryOperator_Shl) {
          int64_t sh;
          if (!y.ok || y.n || !sym_get_const(y.k, &sh) || sh < 0 || sh > 40)
            return ka_lin_opaque(c, 0);
          return ka_lin_scale(c, x, sym_const(c->a, (int64_t)1 << sh));
        }
        if (x.ok && x.n == 0) return ka_lin_scale(c, y, x.k);
        if (y.ok && y.n == 0) return ka_lin_scale(c, x, y.k);
        return product_var(c, x, y, nn); /* two variables: not affine, maybe bounded */
      }
      default: { /* / and %: a new variable bounded through the divisor */
        int nn = ka_lin_nonneg(c, x) && ka_lin_nonneg(c, y);
        if (!y.ok || y.n != 0 || !sym_nonneg(y.k)) return ka_lin_opaque(c, nn);
        if (x.ok && x.n == 0) {
          return ka_lin_const(
              c, op == CXBinaryOperator_Div
                     ? sym_div(c->a, x.k, y.k)
                     : sym_sub(c->a, x.k, sym_mul(c->a, y.k, sym_div(c->a, x.k, y.k))));
        }
        if (!nn) return ka_lin_opaque(c, 0);
        if (op == CXBinaryOperator_Rem) return ka_lin_var(c, ka_new_var(c, y.k, 1));
        return ka_quotient_var(c, x, y.k);
      }
      }
    }
    if (op == CXBinaryOperator_And || op == CXBinaryOperator_Shr) {
      /* lane = threadIdx.x & 31: in [0, M] for a constant M >= 0, whatever
       * x is; x >> k of x >= 0 is x / 2^k */
      lin x = ka_eval_int(c, ch[0]), y = ka_eval_int(c, ch[1]);
      int64_t m;
      if (op == CXBinaryOperator_And) {
        if (y.ok && y.n == 0 && sym_get_const(y.k, &m) && m >= 0)
          return ka_lin_var(c, ka_new_var(c, sym_const(c->a, m + 1), 1));
        if (x.ok && x.n == 0 && sym_get_const(x.k, &m) && m >= 0)
          return ka_lin_var(c, ka_new_var(c, sym_const(c->a, m + 1), 1));
        return ka_lin_opaque(c, 0);
      }
      if (y.ok && y.n == 0 && sym_get_const(y.k, &m) && m >= 0 && m <= 40 && ka_lin_nonneg(c, x))
        return ka_quotient_var(c, x, sym_const(c->a, (int64_t)1 << m));
      return ka_lin_opaque(c, 0);
    }
    /* comparisons, logic, bit operations: read the operands, value opaque */
    ka_visit_expr(c, e);
    return ka_lin_opaque(c, 0);
  }
  case CXCursor_UnaryOperator: {
    /* -x and +x stay affine */
    enum CXUnaryOperatorKind uop = clang_getCursorUnaryOperatorKind(e);
    if (uop == CXUnaryOperator_Minus || uop == CXUnaryOperator_Plus) {
      CXCursor ch[1];
      int n_ch = cursor_children(e, ch, 1);
      if (n_ch == 1) {
        lin x = ka_eval_int(c, ch[0]);
        lin r = ka_lin_scale(c, x, sym_const(c->a, uop == CXUnaryOperator_Minus ? -1 : 1));
        return r.ok ? r : ka_lin_opaque(c, 0);
      }
    }
    break;
  }
  case CXCursor_CallExpr: {
    ptrval rp;
    lin ri;
    ka_visit_call_value(c, e, &rp, &ri);
    ka_escape(c, rp, ACCESS_READWRITE, "pointer returned by a helper escapes");
    /* a constexpr call (a tile's size()) is its value */
    if (cursor_eval_int(e, &cv)) return ka_lin_const(c, sym_const(c->a, cv));
    if (ri.ok) return ri;
    return ka_lin_opaque(c, 0);
  }
  default:
    break;
  }
  /* Anything else (loads p[i], conditionals): visit for accesses; an
   * unsigned value is >= 0 (see ka_visit_call_value). */
  ka_visit_expr(c, e);
  if (cursor_eval_int(e, &cv)) return ka_lin_const(c, sym_const(c->a, cv));
  return ka_lin_opaque(c, cursor_is_unsigned_type(clang_getCursorType(e)));
}

/* Pointer values; also visits index subexpressions for their reads. */
ptrval ka_eval_ptr(kctx *c, CXCursor e) {
  if (stack_too_deep(e, "expression")) return ka_ptr_none(c);
  e = cursor_strip(e);
  enum CXCursorKind k = clang_getCursorKind(e);
  CXType ty = clang_getCursorType(e);
  switch (k) {
  case CXCursor_DeclRefExpr: {
    binding *b = ka_lookup(c, clang_getCursorReferenced(e));
    if (b && b->kind == BIND_PTR) {
      ptrval p = b->ptr;
      int eb = cursor_pointee_bytes(ty);
      if (eb) p.elem_bytes = eb;
      return p;
    }
    return ka_ptr_none(c);
  }
  case CXCursor_CStyleCastExpr:
  case CXCursor_CXXReinterpretCastExpr:
  case CXCursor_CXXStaticCastExpr:
  case CXCursor_CXXConstCastExpr:
  case CXCursor_CXXFunctionalCastExpr: {
    CXCursor in = cursor_last_expr_child(e);
    if (clang_Cursor_isNull(in)) return ka_ptr_none(c);
    ptrval p =
        cursor_is_pointer_type(clang_getCursorType(in)) ? ka_eval_ptr(c, in) : ka_ptr_none(c);
    if (!cursor_is_pointer_type(clang_getCursorType(in))) ka_visit_expr(c, in);
    p.elem_bytes = cursor_pointee_bytes(ty);
    return p;
  }
  case CXCursor_BinaryOperator: {
    CXCursor ch[2];
    int n_ch = cursor_children(e, ch, 2);
    enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(e);
    if (n_ch == 2 && (op == CXBinaryOperator_Add || op == CXBinaryOperator_Sub)) {
      int lp = cursor_is_pointer_type(clang_getCursorType(ch[0]));
      CXCursor pe = lp ? ch[0] : ch[1], ie = lp ? ch[1] : ch[0];
      ptrval p = ka_eval_ptr(c, pe);
      lin idx = ka_eval_int(c, ie);
      if (p.param < 0) return p;
      int eb = cursor_pointee_bytes(clang_getCursorType(pe));
      if (!eb) {
        p.off = ka_lin_bad(c);
        return p;
      }
      p.off =
          ka_lin_add_scaled(c, p.off, idx, sym_const(c->a, op == CXBinaryOperator_Sub ? -eb : eb));
      p.elem_bytes = cursor_pointee_bytes(ty);
      return p;
    }
    if (n_ch == 2 && op == CXBinaryOperator_Comma) {
      ka_visit_expr(c, ch[0]);
      return ka_eval_ptr(c, ch[1]);
    }
    if (n_ch == 2 && op == CXBinaryOperator_Assign) {
      ka_visit_expr(c, e);
      return ka_eval_ptr(c, ch[0]);
    }
    ka_visit_expr(c, e);
    return ka_ptr_none(c);
  }
  case CXCursor_UnaryOperator: {
    CXCursor ch[1];
    int n_ch = cursor_children(e, ch, 1);
    if (n_ch == 1 && clang_getCursorUnaryOperatorKind(e) == CXUnaryOperator_AddrOf) {
      /* &p[i], &*p: the address, no access */
      CXCursor in = cursor_strip(ch[0]);
      enum CXCursorKind ik = clang_getCursorKind(in);
      if (ik == CXCursor_ArraySubscriptExpr) {
        CXCursor sub[2];
        int n_sub = cursor_children(in, sub, 2);
        if (n_sub == 2) {
          int bp = cursor_is_pointer_type(clang_getCursorType(sub[0]));
          CXCursor be = bp ? sub[0] : sub[1], ie = bp ? sub[1] : sub[0];
          ptrval p = ka_eval_ptr(c, be);
          lin idx = ka_eval_int(c, ie);
          int eb = cursor_pointee_bytes(clang_getCursorType(be));
          if (p.param >= 0)
            p.off = eb ? ka_lin_add_scaled(c, p.off, idx, sym_const(c->a, eb)) : ka_lin_bad(c);
          p.elem_bytes = cursor_pointee_bytes(ty);
          return p;
        }
      }
      if (ik == CXCursor_UnaryOperator && clang_getCursorUnaryOperatorKind(in) == CXUnaryOperator_Deref) {
        CXCursor d[1];
        int n_d = cursor_children(in, d, 1);
        if (n_d == 1) return ka_eval_ptr(c, d[0]);
      }
      if (ik == CXCursor_MemberRefExpr) {
        /* &p->field, &p[i].field: inside the element; offset of the field unknown */
        CXCursor m[1];
        int n_m = cursor_children(in, m, 1);
        if (n_m == 1) {
          CXCursor b = cursor_strip(m[0]);
          ptrval p = ka_ptr_none(c);
          if (cursor_is_pointer_type(clang_getCursorType(b)))
            p = ka_eval_ptr(c, b);
          else if (clang_getCursorKind(b) == CXCursor_ArraySubscriptExpr) {
            CXCursor sub[2];
            int n_sub = cursor_children(b, sub, 2);
            if (n_sub == 2) {
              p = ka_eval_ptr(c, sub[0]);
              lin idx = ka_eval_int(c, sub[1]);
              int eb = cursor_pointee_bytes(clang_getCursorType(sub[0]));
              if (p.param >= 0)
                p.off = eb ? ka_lin_add_scaled(c, p.off, idx, sym_const(c->a, eb)) : ka_lin_bad(c);
            }
          }
          if (p.param >= 0) p.off = ka_lin_bad(c);
          return p;
        }
      }
      /* &r of a reference, &x of a local (`atomicAdd(&count, 1)` on a
       * __shared__ counter), &(...): the address of what the lvalue names.
       * Never ka_visit_expr(e) here: its AddrOf case comes back to ka_eval_ptr. */
      int len;
      ptrval p = ka_eval_lvalue(c, in, &len);
      if (p.param >= 0 && clang_getCursorKind(in) != CXCursor_DeclRefExpr) p.off = ka_lin_bad(c);
      p.elem_bytes = cursor_pointee_bytes(ty);
      return p;
    }
    if (n_ch == 1) {
      /* p++, ++p, p--, --p of a pointer local: the value before (post) or
       * after (pre) the step; ka_visit_expr moves the binding */
      enum CXUnaryOperatorKind op = clang_getCursorUnaryOperatorKind(e);
      CXCursor d = ka_local_decl(ch[0]);
      if ((op == CXUnaryOperator_PostInc || op == CXUnaryOperator_PreInc ||
           op == CXUnaryOperator_PostDec || op == CXUnaryOperator_PreDec) &&
          !clang_Cursor_isNull(d) && cursor_is_pointer_type(clang_getCursorType(d))) {
        ptrval before = ka_eval_ptr(c, ch[0]);
        ka_visit_expr(c, e);
        if (op == CXUnaryOperator_PostInc || op == CXUnaryOperator_PostDec) return before;
        return ka_eval_ptr(c, ch[0]);
      }
    }
    ka_visit_expr(c, e);
    return ka_ptr_none(c);
  }
  case CXCursor_CallExpr: {
    ptrval rp;
    lin ri;
    ka_visit_call_value(c, e, &rp, &ri);
    if (rp.param >= 0) rp.elem_bytes = cursor_pointee_bytes(ty);
    return rp;
  }
  case CXCursor_CXXThisExpr: {
    ptrval p = c->depth > 0 ? c->this_ptr : ka_ptr_none(c);
    if (p.param >= 0) p.elem_bytes = cursor_pointee_bytes(ty);
    return p;
  }
  case CXCursor_ConditionalOperator: {
    CXCursor ch[3];
    int n_ch = cursor_children(e, ch, 3);
    if (n_ch == 3) {
      ka_visit_expr(c, ch[0]);
      ptrval x = ka_eval_ptr(c, ch[1]), y = ka_eval_ptr(c, ch[2]);
      if (x.param >= 0 && x.param == y.param) {
        x.off = ka_lin_bad(c);
        return x;
      }
      /* Two different buffers: follow neither precisely. */
      ka_escape(c, x, ACCESS_READWRITE, "pointer chosen by a conditional");
      ka_escape(c, y, ACCESS_READWRITE, "pointer chosen by a conditional");
      return ka_ptr_none(c);
    }
    break;
  }
  default:
    break;
  }
  ka_visit_expr(c, e);
  return ka_ptr_none(c);
}

/* An lvalue that names memory: p[i], *p, p->f, p[i].f.  Returns the
 * pointer and access size; param -1 for locals and shared memory. */
ptrval ka_eval_lvalue(kctx *c, CXCursor e, int *len) {
  e = cursor_strip(e);
  enum CXCursorKind k = clang_getCursorKind(e);
  *len = cursor_type_bytes(clang_getCursorType(e));
  if (k == CXCursor_ArraySubscriptExpr) {
    CXCursor ch[2];
    int n_ch = cursor_children(e, ch, 2);
    if (n_ch != 2) return ka_ptr_none(c);
    int bp = cursor_is_pointer_type(clang_getCursorType(ch[0]));
    CXCursor be = bp ? ch[0] : ch[1], ie = bp ? ch[1] : ch[0];
    if (!cursor_is_pointer_type(clang_getCursorType(be))) {
      /* a local or shared array: not a parameter; still read the index */
      ka_visit_expr(c, ie);
      int dummy;
      ka_eval_lvalue(c, be, &dummy);
      return ka_ptr_none(c);
    }
    ptrval p = ka_eval_ptr(c, be);
    lin idx = ka_eval_int(c, ie);
    int eb = cursor_pointee_bytes(clang_getCursorType(be));
    if (p.param >= 0)
      p.off = eb ? ka_lin_add_scaled(c, p.off, idx, sym_const(c->a, eb)) : ka_lin_bad(c);
    return p;
  }
  if (k == CXCursor_UnaryOperator && clang_getCursorUnaryOperatorKind(e) == CXUnaryOperator_Deref) {
    CXCursor ch[1];
    int n_ch = cursor_children(e, ch, 1);
    return n_ch == 1 ? ka_eval_ptr(c, ch[0]) : ka_ptr_none(c);
  }
  if (k == CXCursor_MemberRefExpr) {
    CXCursor ch[1];
    int n_ch = cursor_children(e, ch, 1);
    if (n_ch == 0 && c->depth > 0 && c->this_ptr.param >= 0 &&
        clang_getCursorKind(clang_getCursorReferenced(e)) == CXCursor_FieldDecl) {
      /* a field through the implicit `this` of a method analysed inline:
       * the whole object (Note [member calls]) */
      *len = c->this_ptr.elem_bytes;
      return c->this_ptr;
    }
    if (n_ch != 1) return ka_ptr_none(c);
    CXCursor b = cursor_strip(ch[0]);
    if (cursor_is_pointer_type(clang_getCursorType(b))) {
      /* p->f: the whole element (the field offset is not tracked) */
      ptrval p = ka_eval_ptr(c, b);
      *len = cursor_pointee_bytes(clang_getCursorType(b));
      return p;
    }
    int inner;
    ptrval p = ka_eval_lvalue(c, b, &inner); /* p[i].x: the whole p[i] */
    *len = inner;
    return p;
  }
  if (k == CXCursor_ParenExpr) {
    CXCursor ch[1];
    int n_ch = cursor_children(e, ch, 1);
    if (n_ch == 1) return ka_eval_lvalue(c, ch[0], len);
  }
  if (k == CXCursor_DeclRefExpr) {
    binding *b = ka_lookup(c, clang_getCursorReferenced(e));
    if (b && b->kind == BIND_REF) {
      if (b->ref_len > 0) *len = b->ref_len;
      return b->ptr;
    }
  }
  return ka_ptr_none(c);
}

/* The binding of the reference e names, or NULL. */
static binding *ref_binding(kctx *c, CXCursor e) {
  e = cursor_strip(e);
  if (clang_getCursorKind(e) != CXCursor_DeclRefExpr) return NULL;
  binding *b = ka_lookup(c, clang_getCursorReferenced(e));
  return b && b->kind == BIND_REF ? b : NULL;
}

/* Is e a local variable (DeclRefExpr to a bound or unbound local)? */
CXCursor ka_local_decl(CXCursor e) {
  e = cursor_strip(e);
  if (clang_getCursorKind(e) != CXCursor_DeclRefExpr) return clang_getNullCursor();
  CXCursor d = clang_getCursorReferenced(e);
  enum CXCursorKind dk = clang_getCursorKind(d);
  if (dk == CXCursor_VarDecl || dk == CXCursor_ParmDecl) return d;
  return clang_getNullCursor();
}

/* Writes (mode WRITE or READWRITE) to an lvalue expression. */
void ka_store(kctx *c, CXCursor lhs, unsigned mode, CXCursor rhs, int op_assign) {
  CXCursor d = ref_binding(c, lhs) ? clang_getNullCursor() : ka_local_decl(lhs);
  if (!clang_Cursor_isNull(d)) {
    CXType t = clang_getCursorType(d);
    if (cursor_is_pointer_type(t)) {
      if (op_assign == CXBinaryOperator_Assign && !clang_Cursor_isNull(rhs)) {
        ka_bind_ptr(c, d, ka_eval_ptr(c, rhs));
      } else if ((op_assign == CXBinaryOperator_AddAssign || op_assign == CXBinaryOperator_SubAssign) &&
                 !clang_Cursor_isNull(rhs)) {
        binding *b = ka_lookup(c, d);
        lin idx = ka_eval_int(c, rhs);
        ptrval p = b && b->kind == BIND_PTR ? b->ptr : ka_ptr_none(c);
        int eb = cursor_pointee_bytes(t);
        if (p.param >= 0)
          p.off = eb ? ka_lin_add_scaled(
                           c, p.off, idx,
                           sym_const(c->a, op_assign == CXBinaryOperator_SubAssign ? -eb : eb))
                     : ka_lin_bad(c);
        ka_bind_ptr(c, d, p);
      } else {
        binding *b = ka_lookup(c, d);
        ptrval p = b && b->kind == BIND_PTR ? b->ptr : ka_ptr_none(c);
        p.off = ka_lin_bad(c);
        ka_bind_ptr(c, d, p);
        if (!clang_Cursor_isNull(rhs)) ka_visit_expr(c, rhs);
      }
    } else if (cursor_is_integer_type(t)) {
      lin v;
      if (op_assign == CXBinaryOperator_Assign && !clang_Cursor_isNull(rhs)) {
        v = ka_eval_int(c, rhs);
      } else if ((op_assign == CXBinaryOperator_AddAssign || op_assign == CXBinaryOperator_SubAssign) &&
                 !clang_Cursor_isNull(rhs)) {
        binding *b = ka_lookup(c, d);
        lin old = b && b->kind == BIND_INT ? b->val : ka_lin_opaque(c, 0);
        v = ka_lin_add_scaled(c, old, ka_eval_int(c, rhs),
                              sym_const(c->a, op_assign == CXBinaryOperator_SubAssign ? -1 : 1));
      } else {
        if (!clang_Cursor_isNull(rhs)) ka_visit_expr(c, rhs);
        v = ka_lin_opaque(c, 0);
      }
      ka_bind_int(c, d, v);
    } else if (!clang_Cursor_isNull(rhs)) {
      ka_visit_expr(c, rhs);
    }
    return;
  }
  int len;
  ptrval p = ka_eval_lvalue(c, lhs, &len);
  ka_record(c, p, mode, len, NULL);
  /* p[i] and *q store whole elements; p[i].f and p->f only part of one */
  CXCursor sl = cursor_strip(lhs);
  enum CXCursorKind lk = clang_getCursorKind(sl);
  if (mode == ACCESS_WRITE &&
      (lk == CXCursor_ArraySubscriptExpr ||
       (lk == CXCursor_UnaryOperator && clang_getCursorUnaryOperatorKind(sl) == CXUnaryOperator_Deref)))
    ka_note_cover(c, p, len);
  if (!clang_Cursor_isNull(rhs)) ka_visit_expr(c, rhs);
}

/* Note [short-circuit guards]: in `i < n && h[i] <= 0.f` the load h[i]
 * runs only where i < n holds, as it would inside `if (i < n)`; in
 * `i >= n || h[i] > 0` only where it fails; an arm of `c ? x : y` only
 * where c holds (x) or fails (y).  So the operand is visited with the
 * condition applied as a guard (kernels_guard.c), undone after it: the
 * load's extent is n, not the launch's whole index range.  An operand that
 * assigns a local (`i < n && (v = h[i]) > 0`) is visited without the guard:
 * undoing the guard's scope would undo the assignment too. */
static enum CXChildVisitResult assigns_visitor(CXCursor x, CXCursor parent, CXClientData d) {
  (void)parent;
  enum CXCursorKind k = clang_getCursorKind(x);
  if ((k == CXCursor_BinaryOperator || k == CXCursor_CompoundAssignOperator) &&
      clang_getCursorBinaryOperatorKind(x) >= CXBinaryOperator_Assign &&
      clang_getCursorBinaryOperatorKind(x) <= CXBinaryOperator_OrAssign) {
    *(int *)d = 1;
    return CXChildVisit_Break;
  }
  if (k == CXCursor_UnaryOperator && clang_getCursorUnaryOperatorKind(x) >= CXUnaryOperator_PostInc &&
      clang_getCursorUnaryOperatorKind(x) <= CXUnaryOperator_PreDec) {
    *(int *)d = 1;
    return CXChildVisit_Break;
  }
  return CXChildVisit_Recurse;
}

static void visit_guarded(kctx *c, CXCursor cond, int negate, CXCursor operand) {
  int assigns = 0;
  assigns_visitor(operand, clang_getNullCursor(), &assigns);
  if (!assigns) clang_visitChildren(operand, assigns_visitor, &assigns);
  if (assigns) {
    ka_visit_expr(c, operand);
    return;
  }
  int saved = c->n_env, saved_gv = c->n_gv;
  ka_apply_guard(c, cond, negate);
  c->n_gv = saved_gv; /* covering variables are the statement guards' (Note [dense]) */
  ka_visit_expr(c, operand);
  ka_env_restore(c, saved);
}

/* Visits an expression whose value is used (reads). */
void ka_visit_expr(kctx *c, CXCursor e) {
  if (clang_Cursor_isNull(e) || stack_too_deep(e, "expression")) return;
  e = cursor_strip(e);
  enum CXCursorKind k = clang_getCursorKind(e);
  switch (k) {
  case CXCursor_ArraySubscriptExpr:
  case CXCursor_MemberRefExpr:
  case CXCursor_UnaryOperator: {
    if (k == CXCursor_UnaryOperator) {
      enum CXUnaryOperatorKind op = clang_getCursorUnaryOperatorKind(e);
      CXCursor ch[1];
      int n_ch = cursor_children(e, ch, 1);
      if (n_ch != 1) return;
      if (op == CXUnaryOperator_PostInc || op == CXUnaryOperator_PreInc ||
          op == CXUnaryOperator_PostDec || op == CXUnaryOperator_PreDec) {
        CXCursor d = ka_local_decl(ch[0]);
        if (!clang_Cursor_isNull(d) && cursor_is_integer_type(clang_getCursorType(d))) {
          binding *b = ka_lookup(c, d);
          lin old = b && b->kind == BIND_INT ? b->val : ka_lin_opaque(c, 0);
          int inc = op == CXUnaryOperator_PostInc || op == CXUnaryOperator_PreInc;
          ka_bind_int(c, d,
                      ka_lin_add_scaled(c, old, ka_lin_const(c, sym_const(c->a, 1)),
                                        sym_const(c->a, inc ? 1 : -1)));
          return;
        }
        if (!clang_Cursor_isNull(d) && cursor_is_pointer_type(clang_getCursorType(d))) {
          binding *b = ka_lookup(c, d);
          ptrval p = b && b->kind == BIND_PTR ? b->ptr : ka_ptr_none(c);
          int eb = cursor_pointee_bytes(clang_getCursorType(d));
          int inc = op == CXUnaryOperator_PostInc || op == CXUnaryOperator_PreInc;
          if (p.param >= 0)
            p.off =
                eb ? ka_lin_add_scaled(c, p.off, ka_lin_const(c, sym_const(c->a, inc ? eb : -eb)),
                                       sym_const(c->a, 1))
                   : ka_lin_bad(c);
          ka_bind_ptr(c, d, p);
          return;
        }
        ka_store(c, ch[0], ACCESS_READWRITE, clang_getNullCursor(), -1);
        return;
      }
      if (op == CXUnaryOperator_AddrOf) {
        /* An address taken and used as a value: the pointer escapes. */
        ptrval p = ka_eval_ptr(c, e);
        ka_escape(c, p, ACCESS_READWRITE,
                  "address escapes (stored or used where tidal cannot follow)");
        return;
      }
      if (op != CXUnaryOperator_Deref) {
        ka_visit_expr(c, ch[0]);
        return;
      }
    }
    if (k == CXCursor_MemberRefExpr) {
      CXCursor ch[1];
      int n_ch = cursor_children(e, ch, 1);
      if (n_ch == 1) {
        CXCursor b = cursor_strip(ch[0]);
        if (!cursor_is_pointer_type(clang_getCursorType(b)) &&
            clang_getCursorKind(b) != CXCursor_ArraySubscriptExpr &&
            clang_getCursorKind(b) != CXCursor_UnaryOperator) {
          ka_visit_expr(c, b); /* s.x of a local struct, threadIdx.x */
          return;
        }
      }
    }
    int len;
    ptrval p = ka_eval_lvalue(c, e, &len);
    ka_record(c, p, ACCESS_READ, len, NULL);
    return;
  }
  case CXCursor_BinaryOperator:
  case CXCursor_CompoundAssignOperator: {
    CXCursor ch[2];
    if (cursor_children(e, ch, 2) != 2) return;
    enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(e);
    if (op == CXBinaryOperator_Assign) {
      ka_store(c, ch[0], ACCESS_WRITE, ch[1], op);
      return;
    }
    if (op >= CXBinaryOperator_MulAssign && op <= CXBinaryOperator_OrAssign) {
      ka_store(c, ch[0], ACCESS_READWRITE, ch[1], op);
      return;
    }
    if ((op >= CXBinaryOperator_LT && op <= CXBinaryOperator_NE) || op == CXBinaryOperator_Cmp) {
      /* Comparing pointers reads no memory and lets nothing escape. */
      for (int i = 0; i < 2; i++)
        if (cursor_is_pointer_type(clang_getCursorType(ch[i])))
          ka_eval_ptr(c, ch[i]);
        else
          ka_visit_expr(c, ch[i]);
      return;
    }
    if (cursor_is_pointer_type(clang_getCursorType(e))) {
      ptrval p = ka_eval_ptr(c, e); /* p + i as a value: escapes unless consumed */
      ka_escape(c, p, ACCESS_READWRITE,
                "pointer escapes (stored or used where tidal cannot follow)");
      return;
    }
    ka_visit_expr(c, ch[0]);
    /* the right of && and || runs only sometimes (Note [dense]), and only
     * where the left held (&&) or failed (||): Note [short-circuit guards] */
    int sc = op == CXBinaryOperator_LAnd || op == CXBinaryOperator_LOr;
    c->cond += sc;
    if (sc)
      visit_guarded(c, ch[0], op == CXBinaryOperator_LOr, ch[1]);
    else
      ka_visit_expr(c, ch[1]);
    c->cond -= sc;
    return;
  }
  case CXCursor_CallExpr:
    ka_visit_call(c, e);
    return;
  case CXCursor_CXXThisExpr: /* `this` used as a value: the object escapes */
    ka_escape(c, ka_eval_ptr(c, e), ACCESS_READWRITE,
              "pointer escapes (stored or used where tidal cannot follow)");
    return;
  case CXCursor_DeclRefExpr: {
    binding *rb = ref_binding(c, e);
    if (rb) { /* a read through a reference */
      ka_record(c, rb->ptr, ACCESS_READ, rb->ref_len, NULL);
      return;
    }
    /* A pointer parameter used as a bare value (stored in a struct, a
     * shared variable, returned...): we lose track of it. */
    if (cursor_is_pointer_type(clang_getCursorType(e))) {
      ptrval p = ka_eval_ptr(c, e);
      ka_escape(c, p, ACCESS_READWRITE,
                "pointer escapes (stored or used where tidal cannot follow)");
    }
    return;
  }
  case CXCursor_CStyleCastExpr:
  case CXCursor_CXXReinterpretCastExpr:
  case CXCursor_CXXStaticCastExpr:
  case CXCursor_CXXConstCastExpr:
  case CXCursor_CXXFunctionalCastExpr:
    if (cursor_is_pointer_type(clang_getCursorType(e))) {
      ptrval p = ka_eval_ptr(c, e);
      ka_escape(c, p, ACCESS_READWRITE,
                "pointer escapes (stored or used where tidal cannot follow)");
      return;
    }
    break;
  default:
    break;
  }
  if (k == CXCursor_LambdaExpr) return; /* lambdas are analysed where called (not supported: none) */
  if (k == CXCursor_ConditionalOperator) {
    CXCursor ch[3];
    if (cursor_children(e, ch, 3) == 3) {
      /* the arms run only sometimes (Note [dense]), each where the
       * condition says (Note [short-circuit guards]) */
      ka_visit_expr(c, ch[0]);
      c->cond++;
      visit_guarded(c, ch[0], 0, ch[1]);
      visit_guarded(c, ch[0], 1, ch[2]);
      c->cond--;
      return;
    }
  }
  /* every child, however many (an initializer list or constructor call
   * with more than 16 operands) */
  CXCursor *ch;
  int nch = cursor_children_all(e, &ch);
  for (int i = 0; i < nch; i++) {
    /* the arms of ?: run only sometimes (Note [dense]) */
    int arm = k == CXCursor_ConditionalOperator && i > 0;
    c->cond += arm;
    if (clang_isExpression(clang_getCursorKind(ch[i])))
      ka_visit_expr(c, ch[i]);
    else
      ka_visit_stmt(c, ch[i]);
    c->cond -= arm;
  }
  free(ch);
}
