/* interp_expr.c - expressions: gb_eval, the rvalue of an expression in the
 * loop context, and gb_eval_local, an integer as written at the op site.
 *
 * Operators, pointer arithmetic, assignment (struct copies become
 * aliases, Note [struct copies]), literals and macro constants, constant
 * tables.  Calls go to interp_call.c, `new`/`delete` to interp_cxx.c and
 * the conditional operator to interp_select.c.  gb_eval recurses once per
 * level of an expression: see Note [recursion frames] (interp_impl.h)
 * before adding locals to it. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "graph/interp_impl.h"
#include "graph/written.h"
#include "base/stack.h"

/* The wrappers gb_eval looks through (cursor_strip_casts). */
static int is_cast_like(enum CXCursorKind k) {
  return k == CXCursor_UnexposedExpr || k == CXCursor_ParenExpr || k == CXCursor_CStyleCastExpr ||
         k == CXCursor_CXXStaticCastExpr || k == CXCursor_CXXReinterpretCastExpr ||
         k == CXCursor_CXXConstCastExpr || k == CXCursor_CXXFunctionalCastExpr;
}

static int is_identifier_text(const char *s) {
  if (!s || !(isalpha((unsigned char)*s) || *s == '_')) return 0;
  for (; *s; s++)
    if (!(isalnum((unsigned char)*s) || *s == '_')) return 0;
  return 1;
}

/* sizeof the pointee of a pointer-typed expression; 1 for void. */
static int64_t pointee_size(CXCursor e) {
  CXType t = clang_getCanonicalType(clang_getCursorType(e));
  if (t.kind != CXType_Pointer) return 1;
  long long s = clang_Type_getSizeOf(clang_getPointeeType(t));
  return s > 0 ? s : 1;
}

static gval eval_binary(gb *b, gb_frame *f, CXCursor e);

/* The alternatives of a pointer chosen at run time, each moved by bytes
 * (interp_select.c, Note [either pointer]); a NULL stays NULL. */
static const gval *alt_add(gb *b, const gval *alt, sym *bytes, int negate) {
  if (!alt) return NULL;
  gval *c = gb_own(b, malloc(sizeof *c));
  if (!c) return NULL;
  *c = *alt;
  if (c->k == GV_DEVPTR)
    c->delta = negate ? sym_sub(b->a, c->delta, bytes) : sym_add(b->a, c->delta, bytes);
  c->alt = alt_add(b, alt->alt, bytes, negate);
  return c;
}

static gval ptr_add(gb *b, gval p, gval n, int64_t elem, int negate, CXCursor at) {
  if (p.k == GV_ADDR) {
    /* host pointer arithmetic over an array path "X[k]" */
    const char *lb = strrchr(p.path, '[');
    int64_t k0, c;
    int have_k0 = lb && sscanf(lb, "[%lld]", (long long *)&k0) == 1;
    sym *ns = n.k == GV_INT && n.s && !sym_is_unknown(n.s) && !n.carried ? n.s : NULL;
    if (have_k0 && gb_int_value_const(b, &n, &c)) {
      p.path = gb_fmt(b, "%.*s[%lld]", (int)(lb - p.path), p.path,
                      (long long)(negate ? k0 - c : k0 + c));
    } else if (lb && ns && (have_k0 || (p.index && strcmp(lb, "[?]") == 0))) {
      /* `blocks + l`, `&blocks[l] + 1`: an element at a symbolic index (elements.c) */
      sym *from = have_k0 ? sym_const(b->a, k0) : p.index;
      p.index = negate ? sym_sub(b->a, from, ns) : sym_add(b->a, from, ns);
      p.path = gb_fmt(b, "%.*s[?]", (int)(lb - p.path), p.path);
    } else {
      p.path = gb_fmt(b, "%s+?", p.path);
      p.index = NULL;
    }
  } else if (p.k == GV_DEVPTR) {
    sym *bytes = sym_mul(b->a, n.k == GV_INT ? n.s : sym_unknown(b->a), sym_const(b->a, elem));
    p.delta = negate ? sym_sub(b->a, p.delta, bytes) : sym_add(b->a, p.delta, bytes);
    if (p.alt) p.alt = alt_add(b, p.alt, bytes, negate); /* Note [either pointer] */
  }
  if (p.text && n.text) {
    p.text = gb_fmt(b, "%s %c %s", gb_paren(b, p.text, p.prec, 2), negate ? '-' : '+',
                    gb_paren(b, n.text, n.prec, negate ? 1 : 2));
    p.prec = 2;
  } else {
    p.text = NULL;
  }
  p.text_ok = p.text_ok && n.text_ok;
  p.carried = p.carried || n.carried;
  return p;
}

static gval arith(gb *b, enum CXBinaryOperatorKind op, gval l, gval r) {
  sym *ls = l.k == GV_INT ? l.s : sym_unknown(b->a);
  sym *rs = r.k == GV_INT ? r.s : sym_unknown(b->a);
  sym *s;
  const char *o;
  int prec;
  switch (op) {
  case CXBinaryOperator_Add: s = sym_add(b->a, ls, rs); o = "+"; prec = 2; break;
  case CXBinaryOperator_Sub: s = sym_sub(b->a, ls, rs); o = "-"; prec = 2; break;
  case CXBinaryOperator_Mul: s = sym_mul(b->a, ls, rs); o = "*"; prec = 1; break;
  case CXBinaryOperator_Div: s = sym_div(b->a, ls, rs); o = "/"; prec = 1; break;
  case CXBinaryOperator_Rem: {
    int64_t x, y;
    if (sym_get_const(ls, &x) && sym_get_const(rs, &y) && y) s = sym_const(b->a, x % y);
    else s = sym_unknown(b->a);
    o = "%"; prec = 1; break;
  }
  case CXBinaryOperator_Shl: {
    int64_t y;
    s = sym_get_const(rs, &y) && y >= 0 && y < 62 ? sym_mul(b->a, ls, sym_const(b->a, (int64_t)1 << y))
                                                  : sym_unknown(b->a);
    o = "<<"; prec = 3; break;
  }
  case CXBinaryOperator_Shr: {
    int64_t y;
    s = sym_get_const(rs, &y) && y >= 0 && y < 62 ? sym_div(b->a, ls, sym_const(b->a, (int64_t)1 << y))
                                                  : sym_unknown(b->a);
    o = ">>"; prec = 3; break;
  }
  default: {
    /* comparisons and logic: folded when both sides are constants; a
     * traced device pointer is non-null */
    int64_t x, y, v = 0;
    int ok = gb_int_value_const(b, &l, &x) && gb_int_value_const(b, &r, &y);
    if (!ok && (op == CXBinaryOperator_EQ || op == CXBinaryOperator_NE)) {
      const gval *p = l.k == GV_DEVPTR ? &l : r.k == GV_DEVPTR ? &r : NULL;
      const gval *z = p == &l ? &r : &l;
      int64_t zv;
      if (p && p->alloc >= 0 && gb_int_value_const(b, z, &zv) && zv == 0)
        return gb_int(b, sym_const(b->a, op == CXBinaryOperator_NE), NULL, 0);
      /* a function pointer holding a function is not NULL */
      const gval *fp = l.k == GV_FUNC ? &l : r.k == GV_FUNC ? &r : NULL;
      const gval *fz = fp == &l ? &r : &l;
      if (fp && gb_int_value_const(b, fz, &zv) && zv == 0)
        return gb_int(b, sym_const(b->a, op == CXBinaryOperator_NE), NULL, 0);
    }
    if (ok) {
      switch (op) {
      case CXBinaryOperator_LT: v = x < y; break;
      case CXBinaryOperator_GT: v = x > y; break;
      case CXBinaryOperator_LE: v = x <= y; break;
      case CXBinaryOperator_GE: v = x >= y; break;
      case CXBinaryOperator_EQ: v = x == y; break;
      case CXBinaryOperator_NE: v = x != y; break;
      case CXBinaryOperator_LAnd: v = x && y; break;
      case CXBinaryOperator_LOr: v = x || y; break;
      case CXBinaryOperator_And: v = x & y; break;
      case CXBinaryOperator_Or: v = x | y; break;
      case CXBinaryOperator_Xor: v = x ^ y; break;
      default: ok = 0;
      }
    }
    gval res = gb_int(b, ok ? sym_const(b->a, v) : sym_unknown(b->a), NULL, 0);
    res.carried = l.carried || r.carried;
    return res;
  }
  }
  gval v = gb_int(b, s, NULL, l.text_ok && r.text_ok);
  v.carried = l.carried || r.carried;
  if (l.text && r.text) {
    int lneed = prec, rneed = prec - 1;
    if (prec == 3) lneed = rneed = 0;
    if (op == CXBinaryOperator_Add || op == CXBinaryOperator_Mul) rneed = prec;
    v.text = gb_fmt(b, "%s%s%s%s%s", gb_paren(b, l.text, l.prec, lneed), prec == 2 ? " " : "", o,
                    prec == 2 ? " " : "", gb_paren(b, r.text, r.prec, rneed));
    v.prec = prec;
  }
  return v;
}

static enum CXBinaryOperatorKind compound_base(enum CXBinaryOperatorKind op) {
  switch (op) {
  case CXBinaryOperator_MulAssign: return CXBinaryOperator_Mul;
  case CXBinaryOperator_DivAssign: return CXBinaryOperator_Div;
  case CXBinaryOperator_RemAssign: return CXBinaryOperator_Rem;
  case CXBinaryOperator_AddAssign: return CXBinaryOperator_Add;
  case CXBinaryOperator_SubAssign: return CXBinaryOperator_Sub;
  case CXBinaryOperator_ShlAssign: return CXBinaryOperator_Shl;
  case CXBinaryOperator_ShrAssign: return CXBinaryOperator_Shr;
  default: return CXBinaryOperator_Invalid;
  }
}

/* Note [struct copies]: a struct copy made to shorten names is by far the
 * common case in trainers; aliasing keeps later reads of the copy
 * resolving to the arena carving done on the original.  A program that
 * mutates the copy and expects the original unchanged is analysed as if
 * both changed; this errs towards more (never fewer) tracked accesses. */

/* Note [struct copies], continued: a copy that is written to is not an
 * alias any more (`Config tuned = cfg; tuned.batch = n;` must leave
 * cfg.batch alone, or the value shown as found in the source is not the
 * one the loop uses).  On the first write through a variable holding an
 * alias, the original's fields are copied under the variable's own key
 * and the alias is dropped. */
/* Every entry under src ("src.f", "src[k]") stored again under dst; dst
 * itself becomes self (a plain entry, not an alias).  keep: src lives in
 * a frame that keeps names. */
static void copy_entries(gb *b, const char *dst, const char *src, gval self, int keep) {
  size_t ol = strlen(src);
  size_t n = 0;
  const char **keys = malloc((b->tab_n + 1) * sizeof *keys);
  gval *vals = malloc((b->tab_n + 1) * sizeof *vals);
  for (size_t i = 0; keys && vals && i < b->tab_cap; i++) {
    const char *k = b->tab[i].key;
    if (k && strncmp(k, src, ol) == 0 && (k[ol] == '.' || k[ol] == '[')) {
      keys[n] = gb_fmt(b, "%s%s", dst, k + ol);
      vals[n] = b->tab[i].v;
      /* an integer of a name-keeping original (`cfg = model->config` in a
       * helper, main's `model.config.channels` read from a file header)
       * copies as the original reads: its name, not the unknown stored.
       * A constant copies as the constant (copying binds nothing). */
      const char *colon = strchr(k, ':');
      int64_t c;
      if (vals[n].k == GV_INT && keep && colon && gb_is_plain_lvalue_text(colon + 1) &&
          !gb_int_value_const(b, &vals[n], &c))
        vals[n] = gb_named_int(b, gb_str(b, colon + 1), &b->tab[i].v, 0);
      n++;
    }
  }
  gb_store(b, dst, self);
  for (size_t i = 0; i < n; i++) {
    if (vals[i].k == GV_DEVPTR && b->mode == GB_SETUP) /* names its region (regions.c) */
      b->h->pointer_stored(b, keys[i], NULL, &vals[i]);
    gb_store(b, keys[i], vals[i]);
  }
  free(keys);
  free(vals);
}

void gb_copy_struct(gb *b, const char *dst, const char *src) {
  if (!dst || !src) return;
  src = gb_canon(b, src);
  if (!strcmp(dst, src)) return;
  copy_entries(b, dst, src, gb_none_val(), 0); /* a returned frame's: no names kept */
}

static void unalias_root(gb *b, gb_frame *f, CXCursor lhs) {
  CXCursor e = cursor_strip_casts(lhs);
  for (int guard = 0; guard < 16; guard++) {
    enum CXCursorKind k = clang_getCursorKind(e);
    CXCursor ch[2];
    if (k == CXCursor_MemberRefExpr && cursor_children(e, ch, 1) == 1 &&
        !cursor_is_pointer_type(clang_getCursorType(cursor_strip_casts(ch[0])))) {
      e = cursor_strip_casts(ch[0]);
    } else if (k == CXCursor_ArraySubscriptExpr && cursor_children(e, ch, 2) == 2 &&
               gb_is_array_expr(ch[0])) {
      e = cursor_strip_casts(ch[0]);
    } else {
      break;
    }
  }
  if (clang_Cursor_isNull(e) || clang_getCursorKind(e) != CXCursor_DeclRefExpr ||
      clang_equalCursors(e, cursor_strip_casts(lhs)))
    return;
  CXCursor d = clang_getCursorReferenced(e);
  /* a C++ reference is the original, never a copy: writes go through */
  enum CXTypeKind dk = clang_getCursorType(d).kind;
  if (dk == CXType_LValueReference || dk == CXType_RValueReference) return;
  char *name = string_and_dispose(clang_getCursorSpelling(d));
  const char *key = gb_var_key(b, f, d, name);
  free(name);
  gval *v = gb_lookup(b, key);
  if (!v || v->k != GV_ALIAS) return;
  const char *orig = gb_resolve_alias(b, key);
  gval own = gb_none_val();
  own.text = v->text;
  own.text_ok = v->text_ok;
  copy_entries(b, key, orig, own, gb_key_keeps_names(f, orig));
}

/* Note [struct copies], continued: a struct returned by value from a
 * function (`net.layers[0] = make_layer(...)`, `Layer l = make_layer()`)
 * is a local of a frame that has returned: nothing can write it any more,
 * so the copy is made now, field by field, instead of an alias.  The
 * fields then live under the name the program keeps them by, and the
 * pointers in them name their regions after it (`net.layers[0].w`, not
 * the helper's `l.w`). */
static int frame_is_live(gb_frame *f, int id) {
  for (; f; f = f->caller)
    if (f->id == id) return 1;
  return 0;
}

/* Only a struct holding device pointers is copied: that is what names
 * regions.  A config struct of integers (`multi_gpu_config =
 * multi_gpu_config_init(...)` in llm.c) stays an alias of the returned
 * frame, as before: its fields, set again in branches on run-time flags,
 * keep the values the program computes (a copy made them unknown after
 * such a branch, and llm.c's optimizer state then needed a --bind). */
int gb_returned_struct(gb *b, gb_frame *f, const char *path) {
  if (!path || path[0] != 'f' || frame_is_live(f, atoi(path + 1))) return 0;
  size_t ol = strlen(path);
  for (size_t i = 0; i < b->tab_cap; i++) {
    const char *k = b->tab[i].key;
    if (k && b->tab[i].v.k == GV_DEVPTR && strncmp(k, path, ol) == 0 &&
        (k[ol] == '.' || k[ol] == '['))
      return 1;
  }
  return 0;
}

/* `lhs op= rhs` and `lhs = rhs` (op Invalid). */
gval gb_assign(gb *b, gb_frame *f, CXCursor lhs, CXCursor rhs_c, gval rhs,
               enum CXBinaryOperatorKind op) {
  const char *text;
  int ok;
  unalias_root(b, f, lhs);
  const char *key = gb_lvalue(b, f, lhs, &text, &ok);
  CXType lt = clang_getCursorType(lhs);
  gval v = rhs;
  if (op != CXBinaryOperator_Invalid) {
    gval cur = gb_read_lvalue(b, f, key, lt, text, ok);
    if (cursor_is_pointer_type(lt) && (op == CXBinaryOperator_Add || op == CXBinaryOperator_Sub))
      v = ptr_add(b, cur, rhs, pointee_size(lhs), op == CXBinaryOperator_Sub, lhs);
    else
      v = arith(b, op, cur, rhs);
  } else if (gb_is_record_type(lt) && rhs.k == GV_ADDR && !gb_is_smart_ptr(lt) && key &&
             gb_returned_struct(b, f, gb_canon(b, rhs.path))) {
    gb_copy_struct(b, key, rhs.path); /* a returned struct: copied */
    return v;
  } else if (gb_is_record_type(lt) && rhs.k == GV_ADDR) {
    /* struct assignment: alias (Note [struct copies]) */
    v.k = GV_ALIAS;
  }
  /* Induction variables of graph loops are never overwritten by the body. */
  gb_write_lvalue(b, key, text, v);
  return v;
}

static gval eval_binary(gb *b, gb_frame *f, CXCursor e) {
  CXCursor ch[2];
  if (cursor_children(e, ch, 2) != 2) return gb_none_val();
  enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(e);
  if (op == CXBinaryOperator_Assign) {
    if (gb_makes_heap_object(ch[1])) b->new_name = gb_text(b, ch[0]); /* Note [heap objects] */
    gval r = gb_eval(b, f, ch[1]);
    b->new_name = NULL;
    return gb_assign(b, f, ch[0], ch[1], r, CXBinaryOperator_Invalid);
  }
  enum CXBinaryOperatorKind base = compound_base(op);
  if (base != CXBinaryOperator_Invalid) {
    gval r = gb_eval(b, f, ch[1]);
    return gb_assign(b, f, ch[0], ch[1], r, base);
  }
  if (op == CXBinaryOperator_Comma) {
    gb_eval(b, f, ch[0]);
    return gb_eval(b, f, ch[1]);
  }
  gval l = gb_eval(b, f, ch[0]);
  gval r = gb_eval(b, f, ch[1]);
  if (op == CXBinaryOperator_Add || op == CXBinaryOperator_Sub) {
    int lp = cursor_is_pointer_type(clang_getCursorType(ch[0]));
    int rp = cursor_is_pointer_type(clang_getCursorType(ch[1]));
    if (lp && !rp) return ptr_add(b, l, r, pointee_size(ch[0]), op == CXBinaryOperator_Sub, e);
    if (rp && !lp && op == CXBinaryOperator_Add) return ptr_add(b, r, l, pointee_size(ch[1]), 0, e);
    if (lp && rp) return gb_int(b, sym_unknown(b->a), NULL, 0); /* pointer difference */
  }
  return arith(b, op, l, r);
}

static gval eval_unary(gb *b, gb_frame *f, CXCursor e) {
  CXCursor ch[1];
  if (cursor_children(e, ch, 1) != 1) return gb_none_val();
  enum CXUnaryOperatorKind op = clang_getCursorUnaryOperatorKind(e);
  switch (op) {
  case CXUnaryOperator_AddrOf: {
    const char *text;
    int ok;
    gval fv = gb_eval_function_ref(b, f, ch[0]); /* `&fwd` */
    if (fv.k == GV_FUNC) return fv;
    const char *key = gb_lvalue(b, f, ch[0], &text, &ok);
    gval v = gb_none_val();
    if (key) {
      v.k = GV_ADDR;
      v.path = key;
      v.index = b->lv_index;
    }
    v.text = text ? gb_fmt(b, "&%s", text) : NULL;
    v.text_ok = ok;
    return v;
  }
  case CXUnaryOperator_Deref: {
    const char *text;
    int ok;
    const char *key = gb_lvalue(b, f, e, &text, &ok);
    return gb_read_lvalue(b, f, key, clang_getCursorType(e), text, ok);
  }
  case CXUnaryOperator_Minus: {
    gval v = gb_eval(b, f, ch[0]);
    gval r = gb_int(b, v.k == GV_INT ? sym_sub(b->a, sym_const(b->a, 0), v.s) : sym_unknown(b->a),
                    v.text ? gb_fmt(b, "-%s", gb_paren(b, v.text, v.prec, 0)) : NULL, v.text_ok);
    return r;
  }
  case CXUnaryOperator_Plus:
    return gb_eval(b, f, ch[0]);
  case CXUnaryOperator_PreInc:
  case CXUnaryOperator_PostInc:
  case CXUnaryOperator_PreDec:
  case CXUnaryOperator_PostDec: {
    gval one = gb_int(b, sym_const(b->a, 1), "1", 1);
    int dec = op == CXUnaryOperator_PreDec || op == CXUnaryOperator_PostDec;
    /* `t[n++] = e`: a postfix operator's value is the one before the step */
    int post = op == CXUnaryOperator_PostInc || op == CXUnaryOperator_PostDec;
    gval old = post ? gb_eval(b, f, ch[0]) : gb_none_val();
    gval nv = gb_assign(b, f, ch[0], ch[0], one, dec ? CXBinaryOperator_Sub : CXBinaryOperator_Add);
    return post ? old : nv;
  }
  default: {
    gval v = gb_eval(b, f, ch[0]);
    int64_t c;
    if (op == CXUnaryOperator_LNot && gb_int_value_const(b, &v, &c))
      return gb_int(b, sym_const(b->a, !c), NULL, 0);
    return gb_int(b, sym_unknown(b->a), NULL, 0);
  }
  }
}

/* A macro standing for a constant expression (#define N (256 * 1024)): the
 * outermost expression it expands to (here the parenthesised product, whose
 * text is the macro's name) becomes the symbol N, bound to its value, so
 * its parts (256, 1024) never each bind N.  1 and *out when e is one. */
static GB_NOINLINE int macro_constant(gb *b, CXCursor e, gval *out) {
  char *text = gb_text(b, e);
  int64_t c;
  if (!is_identifier_text(text) || strncmp(text, "__", 2) == 0 || !cursor_eval_int(e, &c)) return 0;
  bind_set(&b->g->binds, text, c, BIND_MACRO);
  *out = gb_int(b, sym_var(b->a, text), text, 1);
  return 1;
}

/* An integer literal, or a macro standing for one (#define B 4): the macro
 * name becomes the symbol, bound to its value. */
static GB_NOINLINE gval eval_literal(gb *b, CXCursor e) {
  int64_t c;
  if (!cursor_eval_int(e, &c)) return gb_int(b, sym_unknown(b->a), NULL, 0);
  char *text = gb_text(b, e);
  /* __LINE__ and friends are not sizes */
  if (is_identifier_text(text) && strncmp(text, "__", 2) != 0) {
    bind_set(&b->g->binds, text, c, BIND_MACRO);
    return gb_int(b, sym_var(b->a, text), text, 1);
  }
  return gb_int(b, sym_const(b->a, c), text && *text ? text : gb_fmt(b, "%lld", (long long)c), 1);
}

/* `dims[i]` read from a constant table (`static const int dims[] = {784,
 * 256, 10};`): the table is recorded with the bindings, so a size written
 * `dims[l + 1]` inside a layer loop evaluates per layer when unrolled
 * (unroll.c) instead of asking for a --bind of an expression. */
static GB_NOINLINE void const_table(gb *b, CXCursor e) {
  CXCursor ch[2];
  if (cursor_children(e, ch, 2) != 2) return;
  CXCursor base = cursor_strip_casts(ch[0]);
  if (clang_getCursorKind(base) != CXCursor_DeclRefExpr) return;
  CXCursor d = clang_getCursorReferenced(base);
  CXType t = clang_getCursorType(d);
  if (clang_getCursorKind(d) != CXCursor_VarDecl || t.kind != CXType_ConstantArray ||
      !clang_isConstQualifiedType(clang_getArrayElementType(t)))
    return;
  /* the initialiser follows the type's spelling, however long */
  CXCursor init = cursor_last_expr_child(d);
  if (clang_getCursorKind(init) != CXCursor_InitListExpr) return;
  CXCursor *el;
  int n = cursor_children_all(init, &el);
  int64_t *v = n > 0 ? malloc((size_t)n * sizeof *v) : NULL;
  int ok = v != NULL;
  for (int i = 0; ok && i < n; i++) ok = cursor_eval_int(el[i], &v[i]);
  if (ok) {
    char *name = string_and_dispose(clang_getCursorSpelling(d));
    bind_set_table(&b->g->binds, name, v, n);
    free(name);
  }
  free(v);
  free(el);
}

/* GNU `x ?: y`: libclang shows it as an UnexposedExpr of four children,
 * x three times (as written, as the condition, as the value) and then y. */
static GB_NOINLINE int is_binary_conditional(CXCursor e, CXCursor *x, CXCursor *y) {
  CXCursor ch[4];
  if (clang_getCursorKind(e) != CXCursor_UnexposedExpr || cursor_children(e, ch, 4) != 4) return 0;
  for (int i = 0; i < 4; i++)
    if (!clang_isExpression(clang_getCursorKind(ch[i]))) return 0;
  CXSourceRange r = clang_getCursorExtent(ch[0]);
  if (!clang_equalRanges(r, clang_getCursorExtent(ch[1])) ||
      !clang_equalRanges(r, clang_getCursorExtent(ch[2])))
    return 0;
  *x = ch[0];
  *y = ch[3];
  return 1;
}

/* `x ?: y`: x's value when x is a nonzero constant, y's when x is zero,
 * unknown otherwise (both evaluated for their calls). */
static GB_NOINLINE gval eval_binary_conditional(gb *b, gb_frame *f, CXCursor xc, CXCursor yc) {
  gval x = gb_eval(b, f, xc);
  int64_t xv;
  if (gb_int_value_const(b, &x, &xv) && xv) return x;
  gval y = gb_eval(b, f, yc);
  return gb_int_value_const(b, &x, &xv) ? y : gb_none_val();
}

/* Evaluates every expression child of e, for the side effects of the
 * calls in them (however many: an initialiser list of 17 calls runs 17). */
static void eval_children(gb *b, gb_frame *f, CXCursor e) {
  CXCursor *ch;
  int n = cursor_children_all(e, &ch);
  for (int i = 0; i < n; i++)
    if (clang_isExpression(clang_getCursorKind(ch[i]))) gb_eval(b, f, ch[i]);
  free(ch);
}

gval gb_eval(gb *b, gb_frame *f, CXCursor e) {
  b->steps++; /* bounds setup-loop unrolling, see gb_walk_for */
  if (stack_too_deep(e, "expression")) return gb_none_val();
  enum CXCursorKind k = clang_getCursorKind(e);
  if (k == CXCursor_ParenExpr || k == CXCursor_BinaryOperator || k == CXCursor_UnaryOperator ||
      k == CXCursor_CStyleCastExpr) {
    gval m;
    if (macro_constant(b, e, &m)) return m;
  }
  switch (k) {
  case CXCursor_IntegerLiteral:
  case CXCursor_CharacterLiteral:
    return eval_literal(b, e);
  case CXCursor_CXXBoolLiteralExpr: { /* `true` is a value, not a size to bind */
    int64_t c = 0;
    cursor_eval_int(e, &c);
    return gb_int(b, sym_const(b->a, c), gb_text(b, e), 1);
  }
  case CXCursor_GNUNullExpr:
  case CXCursor_CXXNullPtrLiteralExpr:
    return gb_int(b, sym_const(b->a, 0), gb_text(b, e), 1);
  case CXCursor_UnaryExpr: { /* sizeof, alignof */
    int64_t c;
    if (cursor_eval_int(e, &c)) return gb_int(b, sym_const(b->a, c), gb_text(b, e), 0 == 0);
    return gb_int(b, sym_unknown(b->a), gb_text(b, e), 0);
  }
  case CXCursor_DeclRefExpr: {
    CXCursor d = clang_getCursorReferenced(e);
    enum CXCursorKind dk = clang_getCursorKind(d);
    if (dk == CXCursor_EnumConstantDecl) {
      char *name = string_and_dispose(clang_getCursorSpelling(d));
      gval v = gb_int(b, sym_const(b->a, clang_getEnumConstantDeclValue(d)), gb_str(b, name), 1);
      free(name);
      return v;
    }
    if (dk == CXCursor_FunctionDecl || dk == CXCursor_FunctionTemplate ||
        (dk == CXCursor_CXXMethod && clang_CXXMethod_isStatic(d)))
      return gb_func_val(b, d, gb_text(b, e)); /* a function pointer's value */
    if (dk != CXCursor_VarDecl && dk != CXCursor_ParmDecl) {
      gval v = gb_none_val();
      v.text = gb_text(b, e);
      v.text_ok = 1;
      return v;
    }
    CXType ty = clang_getCursorType(d);
    if (gb_is_global_var(d) && !cursor_is_pointer_type(ty) && !gb_is_record_type(ty) &&
        !gb_is_array_type(ty)) {
      /* file-scope constants: the name, bound to the value */
      char *name = string_and_dispose(clang_getCursorSpelling(d));
      int64_t c;
      gval v;
      if (clang_isConstQualifiedType(ty) && cursor_eval_int(d, &c)) {
        bind_set(&b->g->binds, name, c, BIND_CONST);
        v = gb_int(b, sym_var(b->a, name), gb_str(b, name), 1);
      } else {
        gval *st = gb_lookup(b, gb_fmt(b, "g:%s", name));
        /* Note [mutable globals] (written.c): never read at its
         * initialiser, unless no code of the program writes it */
        if (!st && !b->written) b->written = written_build(b->t);
        if (!st && (ty.kind >= CXType_Bool && ty.kind <= CXType_Int128) &&
            !written_may_write(b->written, d) && cursor_eval_int(d, &c)) {
          bind_set(&b->g->binds, name, c, BIND_CONST);
          v = gb_int(b, sym_var(b->a, name), gb_str(b, name), 1);
        } else {
          v = gb_named_int(b, name, st, 0);
        }
      }
      free(name);
      return v;
    }
    if (!gb_is_global_var(d) && clang_isConstQualifiedType(ty) && !cursor_is_pointer_type(ty)) {
      /* const locals with constant initialisers bind like globals */
      int64_t c;
      char *name = string_and_dispose(clang_getCursorSpelling(d));
      if (f && f->keep_names && cursor_eval_int(d, &c)) {
        bind_set(&b->g->binds, name, c, BIND_CONST);
        gval v = gb_int(b, sym_var(b->a, name), gb_str(b, name), 1);
        free(name);
        return v;
      }
      free(name);
    }
    const char *text;
    int ok;
    const char *key = gb_lvalue(b, f, e, &text, &ok);
    if (dk == CXCursor_ParmDecl && gb_is_array_type(ty)) /* Note [array parameters] */
      return gb_read_array_param(b, f, key, ty, text, ok);
    return gb_read_lvalue(b, f, key, ty, text, ok);
  }
  case CXCursor_MemberRefExpr:
  case CXCursor_ArraySubscriptExpr: {
    if (k == CXCursor_ArraySubscriptExpr) const_table(b, e);
    const char *text;
    int ok;
    const char *key = gb_lvalue(b, f, e, &text, &ok);
    return gb_read_lvalue(b, f, key, clang_getCursorType(e), text, ok);
  }
  case CXCursor_BinaryOperator:
  case CXCursor_CompoundAssignOperator:
    return eval_binary(b, f, e);
  case CXCursor_UnaryOperator:
    return eval_unary(b, f, e);
  case CXCursor_CallExpr:
    return gb_eval_call(b, f, e);
  case CXCursor_CXXNewExpr:
    return gb_eval_new(b, f, e);
  case CXCursor_CXXDeleteExpr:
    gb_eval_delete(b, f, e);
    return gb_none_val();
  case CXCursor_CXXThisExpr: {
    const char *obj = gb_this_of(b, f);
    if (!obj) return gb_none_val();
    gval v = gb_none_val();
    v.k = GV_ADDR;
    v.path = obj;
    v.text = gb_str(b, "this");
    return v;
  }
  case CXCursor_ParenExpr: {
    CXCursor ch[1];
    if (cursor_children(e, ch, 1) != 1) return gb_none_val();
    gval v = gb_eval(b, f, ch[0]);
    return v;
  }
  case CXCursor_ConditionalOperator: {
    CXCursor ch[3];
    if (cursor_children(e, ch, 3) != 3) return gb_none_val();
    gval c = gb_eval(b, f, ch[0]);
    int64_t cv;
    if (gb_int_value_const(b, &c, &cv)) return gb_eval(b, f, ch[cv ? 1 : 2]);
    gval x = gb_eval(b, f, ch[1]);
    gval y = gb_eval(b, f, ch[2]);
    if (gb_is_record_type(clang_getCursorType(e)) && x.k == GV_ADDR && y.k == GV_ADDR)
      return gb_select_struct(b, f, e, ch[0], &c, &x, &y);
    return gb_select_value(b, f, e, ch[0], &c, &x, &y);
  }
  default:
    break;
  }
  CXCursor bx, by;
  if (is_binary_conditional(e, &bx, &by)) return eval_binary_conditional(b, f, bx, by);
  if (is_cast_like(k)) {
    CXCursor in = cursor_strip_casts(e);
    if (clang_equalCursors(in, e)) {
      /* a leaf such as an implicit default argument: fold if constant;
       * an expression libclang does not expose (GNU `a ?: b`, a designated
       * initialiser, va_arg) is no wrapper: its value is not one of its
       * children's, but the calls in them still run */
      int64_t c;
      if (cursor_eval_int(e, &c)) return gb_int(b, sym_const(b->a, c), NULL, 0);
      eval_children(b, f, e);
      return gb_none_val();
    }
    gval v = gb_eval(b, f, in);
    /* integral casts keep the value; (float)x is no longer an integer */
    CXType t = clang_getCanonicalType(clang_getCursorType(e));
    if (v.k == GV_INT && (t.kind == CXType_Float || t.kind == CXType_Double)) v.k = GV_NONE;
    if (k == CXCursor_CStyleCastExpr && v.text && v.k == GV_INT) {
      /* keep (size_t) widening casts in the text: they matter for overflow */
      v.text = gb_text(b, e);
      v.prec = 0;
    }
    return v;
  }
  /* Anything else (lambdas, new, init lists used as values): walk children
   * for side effects such as nested calls. */
  eval_children(b, f, e);
  return gb_none_val();
}

sym *gb_eval_local(gb *b, CXCursor e) {
  e = cursor_strip_casts(e);
  enum CXCursorKind k = clang_getCursorKind(e);
  int64_t c;
  switch (k) {
  case CXCursor_IntegerLiteral:
  case CXCursor_CharacterLiteral: {
    if (!cursor_eval_int(e, &c)) return sym_unknown(b->a);
    char *text = gb_text(b, e);
    if (is_identifier_text(text)) return sym_var(b->a, text);
    return sym_const(b->a, c);
  }
  case CXCursor_UnaryExpr:
    return cursor_eval_int(e, &c) ? sym_const(b->a, c) : sym_unknown(b->a);
  case CXCursor_DeclRefExpr: {
    CXCursor d = clang_getCursorReferenced(e);
    if (clang_getCursorKind(d) == CXCursor_EnumConstantDecl)
      return sym_const(b->a, clang_getEnumConstantDeclValue(d));
    return sym_var(b->a, gb_text(b, e));
  }
  case CXCursor_MemberRefExpr:
  case CXCursor_ArraySubscriptExpr:
    return sym_var(b->a, gb_text(b, e));
  case CXCursor_BinaryOperator: {
    CXCursor ch[2];
    if (cursor_children(e, ch, 2) != 2) return sym_unknown(b->a);
    sym *l = gb_eval_local(b, ch[0]), *r = gb_eval_local(b, ch[1]);
    switch (clang_getCursorBinaryOperatorKind(e)) {
    case CXBinaryOperator_Add: return sym_add(b->a, l, r);
    case CXBinaryOperator_Sub: return sym_sub(b->a, l, r);
    case CXBinaryOperator_Mul: return sym_mul(b->a, l, r);
    case CXBinaryOperator_Div: return sym_div(b->a, l, r);
    default: return cursor_eval_int(e, &c) ? sym_const(b->a, c) : sym_unknown(b->a);
    }
  }
  default:
    return cursor_eval_int(e, &c) ? sym_const(b->a, c) : sym_unknown(b->a);
  }
}
