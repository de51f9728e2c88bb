/* branches.c - recognises, from the syntax alone, the `if` statements of
 * the training iteration that do not run every iteration: lazy one-time
 * initialisation and periodic work.  interp_branch.c (Note [once and periodic])
 * combines the shape with the values it knows: a shape is only a
 * candidate, the interpreter confirms it.
 *
 * Decisions:
 *  - Once: the condition tests a pointer for NULL (`!p`, `p == NULL`,
 *    `p == nullptr`, `NULL == p`) or a flag (`first`, `!done`, `f == 1`),
 *    and the branch itself makes the test fail next time: it assigns the
 *    pointer (`p = ...`, or passes `&p`, as cudaMalloc(&p, n) does), or
 *    assigns the flag the constant that falsifies the test.  A branch
 *    that does not reset its own test may run again: not once.
 *  - A flag may be cleared by a function the branch calls (`if (first)
 *    init();` with `first = false;` inside init, or `init(&first)` with
 *    `*done = 1;`, or `init(&st)` / `init(o)` with `s->ready = 1;`):
 *    the scan follows calls to defined functions, a few levels deep, for
 *    a global flag by its declaration and for one passed by address
 *    through the parameter it is passed as.
 *  - The lvalue is compared by its spelling without blanks (`o->m`,
 *    `model.acts_memory`), which is what a person reads as "the same
 *    variable" and is stable through the macro-free code this applies to.
 *  - Periodic: any `%` in the condition; the interpreter rejects it when
 *    its left side does not change from one iteration to the next.
 *  - Operands are read through parentheses, implicit conversions and
 *    explicit casts alike (cursor_strip_casts): `(int)flag == 1` tests
 *    flag, `p == (float *)0` tests p. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "graph/branches.h"
#include "base/cursor.h"
#include "base/cxstring.h"

static int const_value(CXCursor e, int64_t *out) {
  e = cursor_strip_casts(e);
  enum CXCursorKind k = clang_getCursorKind(e);
  if (k == CXCursor_GNUNullExpr || k == CXCursor_CXXNullPtrLiteralExpr) {
    *out = 0;
    return 1;
  }
  return cursor_eval_int(e, out);
}

static int is_lvalue_shape(CXCursor e) {
  enum CXCursorKind k = clang_getCursorKind(cursor_strip_casts(e));
  return k == CXCursor_DeclRefExpr || k == CXCursor_MemberRefExpr ||
         k == CXCursor_ArraySubscriptExpr;
}

/* Note [lvalues in macro arguments]: `CK(cudaMalloc(&st->m, n))`, the
 * error-check wrapper nearly every trainer puts around its calls.  The
 * text of a cursor inside a macro argument, taken at expansion locations,
 * is the macro invocation's (empty here), so the reset `&st->m` never
 * matched the test `!st->m` and a lazy initialisation counted as running
 * every iteration: its cudaMemset an overwrite before each update, and the
 * plan dropped the optimizer moments.  Where the written text lies in the
 * main file (a macro argument), it is taken at spelling locations. */
static char *spelled_in_main(const pass_tu *t, CXCursor e) {
  CXSourceRange ext = clang_getCursorExtent(e);
  CXFile f1, f2;
  unsigned b, en;
  clang_getSpellingLocation(clang_getRangeStart(ext), &f1, NULL, NULL, &b);
  clang_getSpellingLocation(clang_getRangeEnd(ext), &f2, NULL, NULL, &en);
  if (!f1 || !f2 || !t->main_file || !clang_File_isEqual(f1, f2) ||
      !clang_File_isEqual(f1, t->main_file) || b >= en || en > t->main_size)
    return NULL;
  char *r = malloc(en - b + 1);
  if (!r) return NULL;
  memcpy(r, t->main_source + b, en - b);
  r[en - b] = '\0';
  return r;
}

/* The expression's spelling without blanks (malloc'd), NULL if none. */
static char *squeeze(const pass_tu *t, CXCursor e) {
  char *s = frontend_cursor_text(t, cursor_strip_casts(e));
  if (s && !s[strspn(s, " \t\r\n")]) {
    free(s);
    s = NULL;
  }
  if (!s) s = spelled_in_main(t, cursor_strip_casts(e));
  if (!s) return NULL;
  size_t j = 0;
  for (size_t i = 0; s[i]; i++)
    if (!isspace((unsigned char)s[i])) s[j++] = s[i];
  s[j] = '\0';
  if (!j) {
    free(s);
    return NULL;
  }
  return s;
}

static int is_pointer(CXCursor e) {
  return clang_getCanonicalType(clang_getCursorType(cursor_strip_casts(e))).kind == CXType_Pointer;
}

/* Calls followed when a flag is cleared by a called function. */
#define RESET_CALL_DEPTH 3

/* What the then-branch must do to its tested lvalue. */
typedef struct reset_scan {
  const pass_tu *t;
  const char *lv;     /* squeezed spelling of the tested lvalue */
  int any;            /* any assignment (or &lv escaping) resets it: a pointer */
  int64_t falsify;    /* else: the value assigned must be this ... */
  int not_equal;      /* ... or, if set, anything but this */
  int found;
  /* Inside a called function (depth > 0), the flag is reached either as
   * the same global (decl: the declaration its spelling's base names) or
   * through a parameter: `*param` (field NULL) or `param->field`. */
  int depth;
  CXCursor decl;      /* the flag's base variable when global, else null */
  CXCursor param;     /* the parameter the flag (or its struct) was passed as, or null */
  const char *field;  /* with param: the flag's field name, NULL for `*param` */
} reset_scan;

/* The variable a DeclRefExpr names (through casts), or a null cursor. */
static CXCursor named_decl(CXCursor e) {
  e = cursor_strip_casts(e);
  if (clang_getCursorKind(e) != CXCursor_DeclRefExpr) return clang_getNullCursor();
  return clang_getCursorReferenced(e);
}

/* The base variable of an lvalue `v`, `v.f`, `v.f.g` (not through `->`). */
static CXCursor base_decl(CXCursor e) {
  for (int guard = 0; guard < 16; guard++) {
    e = cursor_strip_casts(e);
    if (clang_getCursorKind(e) == CXCursor_DeclRefExpr) return clang_getCursorReferenced(e);
    if (clang_getCursorKind(e) != CXCursor_MemberRefExpr) break;
    CXCursor ch[4];
    if (cursor_children(e, ch, 4) != 1) break;
    e = ch[0];
  }
  return clang_getNullCursor();
}

static int is_global(CXCursor d) {
  if (clang_getCursorKind(d) != CXCursor_VarDecl) return 0;
  enum CXCursorKind pk = clang_getCursorKind(clang_getCursorSemanticParent(d));
  return pk == CXCursor_TranslationUnit || pk == CXCursor_Namespace;
}

static int same_lvalue(reset_scan *r, CXCursor e) {
  if (r->depth > 0 && !clang_Cursor_isNull(r->param)) {
    /* `*param` or `param->field` */
    e = cursor_strip_casts(e);
    CXCursor ch[4];
    enum CXCursorKind k = clang_getCursorKind(e);
    if (!r->field && k == CXCursor_UnaryOperator &&
        clang_getCursorUnaryOperatorKind(e) == CXUnaryOperator_Deref && cursor_children(e, ch, 4) == 1)
      return clang_equalCursors(named_decl(ch[0]), r->param);
    if (r->field && k == CXCursor_MemberRefExpr && cursor_children(e, ch, 4) == 1) {
      char *m = string_and_dispose(clang_getCursorSpelling(e));
      int eq = m && strcmp(m, r->field) == 0 && clang_equalCursors(named_decl(ch[0]), r->param);
      free(m);
      return eq;
    }
    return 0;
  }
  if (!is_lvalue_shape(e)) return 0;
  char *s = squeeze(r->t, e);
  int eq = s && strcmp(s, r->lv) == 0;
  free(s);
  /* in a called function, the same spelling must name the same global */
  if (eq && r->depth > 0) eq = clang_equalCursors(base_decl(e), r->decl);
  return eq;
}

static enum CXChildVisitResult reset_visit(CXCursor c, CXCursor parent, CXClientData d);

/* The flag cleared by the function call c calls (depth-limited): as the
 * same global, or through the parameter it is passed to by address. */
static int reset_in_callee(reset_scan *r, CXCursor c) {
  if (r->depth >= RESET_CALL_DEPTH || r->any) return 0;
  CXCursor fn = clang_getCursorDefinition(clang_getCursorReferenced(c));
  if (clang_Cursor_isNull(fn) || clang_getCursorKind(fn) != CXCursor_FunctionDecl) return 0;
  reset_scan in = *r;
  in.depth = r->depth + 1;
  in.found = 0;
  if (r->depth == 0 || clang_Cursor_isNull(r->param)) {
    if (!clang_Cursor_isNull(r->decl)) { /* a global flag: the callee names it too */
      in.param = clang_getNullCursor();
      clang_visitChildren(fn, reset_visit, &in);
      if (in.found) return 1;
    }
  }
  if (r->depth > 0) return 0; /* parameters are followed one call deep */
  /* `init(&flag)` -> `*p = 0`; `init(&s)` for s.f and `init(o)` for o->f -> `p->f = 0` */
  const char *dot = strrchr(r->lv, '.'), *arrow = strstr(r->lv, "->");
  int na = clang_Cursor_getNumArguments(c);
  for (int i = 0; i < na && i < clang_Cursor_getNumArguments(fn); i++) {
    CXCursor a = cursor_strip_casts(clang_Cursor_getArgument(c, (unsigned)i)), ch[4];
    char *as = squeeze(r->t, a);
    if (!as) continue;
    const char *field = NULL;
    int match = 0;
    if (clang_getCursorKind(a) == CXCursor_UnaryOperator &&
        clang_getCursorUnaryOperatorKind(a) == CXUnaryOperator_AddrOf && cursor_children(a, ch, 4) == 1) {
      if (strcmp(as + 1, r->lv) == 0) {
        match = 1; /* &flag */
      } else if (dot && !arrow && strlen(as + 1) == (size_t)(dot - r->lv) &&
                 strncmp(as + 1, r->lv, (size_t)(dot - r->lv)) == 0) {
        match = 1; /* &s for s.f */
        field = dot + 1;
      }
    } else if (arrow && strlen(as) == (size_t)(arrow - r->lv) &&
               strncmp(as, r->lv, (size_t)(arrow - r->lv)) == 0 && !strchr(arrow + 2, '.') &&
               !strstr(arrow + 2, "->")) {
      match = 1; /* o for o->f */
      field = arrow + 2;
    }
    free(as);
    if (!match) continue;
    in.param = clang_Cursor_getArgument(fn, (unsigned)i);
    in.field = field;
    in.found = 0;
    clang_visitChildren(fn, reset_visit, &in);
    if (in.found) return 1;
  }
  return 0;
}

/* Is the tested lvalue a field of e (`e.f` or `e->f`, sep says which)? */
static int encloses(reset_scan *r, CXCursor e, const char *sep) {
  if (!is_lvalue_shape(e)) return 0;
  char *s = squeeze(r->t, e);
  size_t n = s ? strlen(s) : 0;
  int yes = s && strncmp(r->lv, s, n) == 0 && strncmp(r->lv + n, sep, strlen(sep)) == 0;
  free(s);
  return yes;
}

static enum CXChildVisitResult reset_visit(CXCursor c, CXCursor parent, CXClientData d) {
  (void)parent;
  reset_scan *r = d;
  enum CXCursorKind k = clang_getCursorKind(c);
  if (k == CXCursor_LambdaExpr) return CXChildVisit_Continue;
  CXCursor ch[4];
  if (k == CXCursor_BinaryOperator && clang_getCursorBinaryOperatorKind(c) == CXBinaryOperator_Assign &&
      cursor_children(c, ch, 4) == 2 && same_lvalue(r, ch[0])) {
    int64_t v;
    if (r->any || (const_value(ch[1], &v) && (r->not_equal ? v != r->falsify : v == r->falsify))) {
      r->found = 1;
      return CXChildVisit_Break;
    }
  }
  if (r->any && k == CXCursor_UnaryOperator &&
      clang_getCursorUnaryOperatorKind(c) == CXUnaryOperator_AddrOf && cursor_children(c, ch, 4) == 1 &&
      (same_lvalue(r, ch[0]) || encloses(r, ch[0], "."))) {
    r->found = 1; /* cudaMalloc(&p, n): the callee stores the pointer; init(&s) for s.p */
    return CXChildVisit_Break;
  }
  if (!r->any && k == CXCursor_CallExpr && reset_in_callee(r, c)) {
    r->found = 1;
    return CXChildVisit_Break;
  }
  if (r->any && k == CXCursor_CallExpr) {
    /* init(o) for o->p: the callee may set the field through the pointer */
    int na = clang_Cursor_getNumArguments(c);
    for (int i = 0; i < na; i++)
      if (encloses(r, clang_Cursor_getArgument(c, (unsigned)i), "->")) {
        r->found = 1;
        return CXChildVisit_Break;
      }
  }
  return CXChildVisit_Recurse;
}

static int resets(const pass_tu *t, CXCursor then_s, CXCursor lv, int any, int64_t falsify,
                  int not_equal) {
  char *s = squeeze(t, lv);
  if (!s) return 0;
  reset_scan r = {t, s, any, falsify, not_equal, 0, 0, clang_getNullCursor(),
                  clang_getNullCursor(), NULL};
  CXCursor base = base_decl(lv);
  if (!clang_Cursor_isNull(base) && is_global(base)) r.decl = base;
  /* the arm itself may be the statement (`if (first) init();`) */
  if (reset_visit(then_s, clang_getNullCursor(), &r) != CXChildVisit_Break)
    clang_visitChildren(then_s, reset_visit, &r);
  free(s);
  return r.found;
}

typedef struct rem_scan {
  int found;
  CXCursor lhs;
} rem_scan;

static enum CXChildVisitResult rem_visit(CXCursor c, CXCursor parent, CXClientData d) {
  (void)parent;
  rem_scan *r = d;
  CXCursor ch[4];
  if (clang_getCursorKind(c) == CXCursor_BinaryOperator &&
      clang_getCursorBinaryOperatorKind(c) == CXBinaryOperator_Rem && cursor_children(c, ch, 4) == 2) {
    r->found = 1;
    r->lhs = ch[0];
    return CXChildVisit_Break;
  }
  return CXChildVisit_Recurse;
}

branch_shape branch_classify(const pass_tu *t, CXCursor cond, CXCursor then_s, CXCursor *var,
                             int64_t *k) {
  CXCursor c = cursor_strip_casts(cond);
  enum CXCursorKind ck = clang_getCursorKind(c);
  CXCursor ch[4];
  if (is_lvalue_shape(c)) {
    /* `if (p)` never resets by allocating; `if (flag)` resets with flag = 0 */
    if (!is_pointer(c) && resets(t, then_s, c, 0, 0, 0)) return BRANCH_ONCE;
  } else if (ck == CXCursor_UnaryOperator &&
             clang_getCursorUnaryOperatorKind(c) == CXUnaryOperator_LNot && cursor_children(c, ch, 4) == 1 &&
             is_lvalue_shape(ch[0])) {
    if (resets(t, then_s, ch[0], is_pointer(ch[0]), 0, 1)) return BRANCH_ONCE;
  } else if (ck == CXCursor_BinaryOperator && cursor_children(c, ch, 4) == 2) {
    enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(c);
    int64_t v;
    int li = is_lvalue_shape(ch[0]) && const_value(ch[1], &v);
    int ri = !li && is_lvalue_shape(ch[1]) && const_value(ch[0], &v);
    CXCursor lv = li ? ch[0] : ch[1];
    if ((li || ri) && (op == CXBinaryOperator_EQ || op == CXBinaryOperator_NE)) {
      int ptr = is_pointer(lv);
      if (op == CXBinaryOperator_EQ && resets(t, then_s, lv, ptr && v == 0, v, 1)) return BRANCH_ONCE;
      if (op == CXBinaryOperator_NE && !ptr && resets(t, then_s, lv, 0, v, 0)) return BRANCH_ONCE;
      if (op == CXBinaryOperator_EQ && !ptr) {
        *var = lv;
        *k = v;
        return BRANCH_EQ_CONST;
      }
    }
  }
  rem_scan r = {0, clang_getNullCursor()};
  if (clang_getCursorKind(c) == CXCursor_BinaryOperator &&
      clang_getCursorBinaryOperatorKind(c) == CXBinaryOperator_Rem && cursor_children(c, ch, 4) == 2) {
    r.found = 1;
    r.lhs = ch[0];
  } else {
    clang_visitChildren(c, rem_visit, &r);
  }
  if (r.found) {
    *var = r.lhs;
    return BRANCH_PERIODIC;
  }
  return BRANCH_EVERY;
}
