/* cursor.c - small libclang cursor questions every stage that reads syntax
 * shares (cursor.h says what each answers).  Nothing is cached: every call
 * walks the cursor's children afresh.  The arrays of cursor_children_all
 * and cursor_fn_params are the caller's to free; nothing else allocates
 * but cursor_member_name. */
#include "base/cursor.h"

#include <stdlib.h>

#include "base/cxstring.h"

typedef struct child_array {
  CXCursor *out; /* the caller's array */
  int max;       /* its size */
  int n;         /* children seen so far (may pass max) */
} child_array;

static enum CXChildVisitResult child_array_visitor(CXCursor c, CXCursor parent, CXClientData d) {
  (void)parent;
  child_array *a = d;
  if (a->n < a->max) a->out[a->n] = c;
  a->n++;
  return CXChildVisit_Continue;
}

int cursor_children(CXCursor c, CXCursor *out, int max) {
  child_array a = {out, max, 0};
  clang_visitChildren(c, child_array_visitor, &a);
  return a.n;
}

typedef struct child_list {
  CXCursor *v;
  int n, cap;
  int oom; /* a realloc failed: the walk stopped */
} child_list;

static enum CXChildVisitResult child_list_visitor(CXCursor c, CXCursor parent, CXClientData d) {
  (void)parent;
  child_list *l = d;
  if (l->n == l->cap) {
    int cap = l->cap ? l->cap * 2 : 8;
    CXCursor *nv = realloc(l->v, sizeof *nv * (size_t)cap);
    if (!nv) {
      l->oom = 1;
      return CXChildVisit_Break;
    }
    l->v = nv;
    l->cap = cap;
  }
  l->v[l->n++] = c;
  return CXChildVisit_Continue;
}

int cursor_children_all(CXCursor c, CXCursor **out) {
  child_list l = {NULL, 0, 0, 0};
  clang_visitChildren(c, child_list_visitor, &l);
  if (l.oom) {
    free(l.v);
    l.v = NULL;
    l.n = -1;
  }
  *out = l.v;
  return l.n;
}

static enum CXChildVisitResult first_child_visitor(CXCursor c, CXCursor parent, CXClientData d) {
  (void)parent;
  *(CXCursor *)d = c;
  return CXChildVisit_Break;
}

CXCursor cursor_first_child(CXCursor c) {
  CXCursor r = clang_getNullCursor();
  clang_visitChildren(c, first_child_visitor, &r);
  return r;
}

/* The last child `keep` accepts (any, when keep is NULL). */
typedef struct last_match {
  int (*keep)(CXCursor);
  CXCursor r;
} last_match;

static enum CXChildVisitResult last_match_visitor(CXCursor c, CXCursor parent, CXClientData d) {
  (void)parent;
  last_match *m = d;
  if (!m->keep || m->keep(c)) m->r = c;
  return CXChildVisit_Continue;
}

static CXCursor last_child_where(CXCursor c, int (*keep)(CXCursor)) {
  last_match m = {keep, clang_getNullCursor()};
  clang_visitChildren(c, last_match_visitor, &m);
  return m.r;
}

static int is_expr(CXCursor c) { return clang_isExpression(clang_getCursorKind(c)); }
static int is_compound(CXCursor c) { return clang_getCursorKind(c) == CXCursor_CompoundStmt; }

CXCursor cursor_last_child(CXCursor c) { return last_child_where(c, NULL); }
CXCursor cursor_last_expr_child(CXCursor c) { return last_child_where(c, is_expr); }
CXCursor cursor_fn_body(CXCursor f) { return last_child_where(f, is_compound); }

/* Each step goes to a child, so the walk ends at the tree's depth. */
CXCursor cursor_strip(CXCursor e) {
  for (;;) {
    enum CXCursorKind k = clang_getCursorKind(e);
    if (k != CXCursor_UnexposedExpr && k != CXCursor_ParenExpr) return e;
    CXCursor ch[2];
    if (cursor_children(e, ch, 2) != 1 || !clang_isExpression(clang_getCursorKind(ch[0]))) return e;
    e = ch[0];
  }
}

static int is_explicit_cast(enum CXCursorKind k) {
  return k == CXCursor_CStyleCastExpr || k == CXCursor_CXXStaticCastExpr ||
         k == CXCursor_CXXReinterpretCastExpr || k == CXCursor_CXXConstCastExpr ||
         k == CXCursor_CXXFunctionalCastExpr;
}

CXCursor cursor_strip_casts(CXCursor e) {
  for (;;) {
    e = cursor_strip(e);
    if (!is_explicit_cast(clang_getCursorKind(e))) return e;
    /* the operand follows the TypeRefs that spell the target type */
    CXCursor in = cursor_last_expr_child(e);
    if (clang_Cursor_isNull(in)) return e;
    e = in;
  }
}

int cursor_eval_int(CXCursor e, int64_t *out) {
  CXEvalResult r = clang_Cursor_Evaluate(e);
  if (!r) return 0;
  int ok = clang_EvalResult_getKind(r) == CXEval_Int;
  if (ok)
    *out = clang_EvalResult_isUnsignedInt(r) ? (int64_t)clang_EvalResult_getAsUnsigned(r)
                                             : (int64_t)clang_EvalResult_getAsLongLong(r);
  clang_EvalResult_dispose(r);
  return ok;
}

static enum CXChildVisitResult parm_visitor(CXCursor c, CXCursor parent, CXClientData d) {
  if (clang_getCursorKind(c) != CXCursor_ParmDecl) return CXChildVisit_Continue;
  return child_list_visitor(c, parent, d);
}

int cursor_fn_params(CXCursor f, CXCursor **out) {
  child_list l = {NULL, 0, 0, 0};
  int n = clang_Cursor_getNumArguments(f);
  if (n >= 0) {
    for (int i = 0; i < n && !l.oom; i++)
      child_list_visitor(clang_Cursor_getArgument(f, (unsigned)i), f, &l);
  } else {
    clang_visitChildren(f, parm_visitor, &l);
  }
  if (l.oom) {
    free(l.v);
    l.v = NULL;
    l.n = -1;
  }
  *out = l.v;
  return l.n;
}

int cursor_is_integer_type(CXType t) {
  t = clang_getCanonicalType(t);
  return (t.kind >= CXType_Bool && t.kind <= CXType_Int128) || t.kind == CXType_Enum;
}

int cursor_is_unsigned_type(CXType t) {
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

int cursor_is_pointer_type(CXType t) { return clang_getCanonicalType(t).kind == CXType_Pointer; }

int cursor_type_bytes(CXType t) {
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

int cursor_pointee_bytes(CXType t) {
  CXType ct = clang_getCanonicalType(t);
  if (ct.kind != CXType_Pointer && ct.kind != CXType_LValueReference &&
      ct.kind != CXType_RValueReference)
    return 0;
  return cursor_type_bytes(clang_getPointeeType(ct));
}

char *cursor_member_name(CXCursor e) {
  char *s = string_and_dispose(clang_getCursorSpelling(e));
  if (s && *s) return s;
  free(s);
  s = NULL;
  CXTranslationUnit tu = clang_Cursor_getTranslationUnit(e);
  CXToken *toks = NULL;
  unsigned n = 0;
  clang_tokenize(tu, clang_getCursorExtent(e), &toks, &n);
  if (n > 0) s = string_and_dispose(clang_getTokenSpelling(tu, toks[n - 1]));
  if (toks) clang_disposeTokens(tu, toks, n);
  return s;
}
