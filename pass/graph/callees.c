/* callees.c - what an indirect call may run, from the program's syntax.
 *
 * Note [indirect calls]
 * Trainers call layers indirectly: C frameworks store each layer's entry
 * points in its struct (`l.forward_gpu = forward_conv_gpu;` in the layer's
 * constructor, `l.forward_gpu(l, net)` in the network's loop), C++ ones
 * call virtual methods of base pointers held in containers.  The
 * interpreter follows the value when it has one (a function stored in the
 * field, the object's dynamic class: interp_indirect.c); this index gives
 * the candidates when it has not, and lets the loop choice (loop.c) count
 * the op sites behind such a call before anything runs:
 *  - a call through a function-pointer field, variable or parameter may run
 *    every function the program assigns to that declaration: an
 *    assignment (`x.f = g`, `p->f = &g`, `f = g`), a variable's
 *    initialiser, a struct initialiser's element (positional or
 *    designated), a function passed as an argument for that parameter;
 *  - a virtual method may run its own definition and every override of it
 *    in the program (clang_getOverriddenCursors, followed down).
 * Keys are USRs, so a field declared in a header shared by C and C++
 * units is one key.  Only project files are read (not system headers, the
 * toolkit or tidal's compat folder).  What is not found (a function
 * pointer from a library, dlsym) has no candidates: the call stays
 * unfollowed and is reported where it is met. */
#include <stdlib.h>
#include <string.h>

#include "base/cursor.h"
#include "base/cxstring.h"
#include "graph/callees.h"

typedef struct callee_edge {
  char *key;    /* USR of the field, variable, parameter or overridden method */
  char *fn_usr; /* USR of the function assigned, or of the override */
  CXCursor fn;
} callee_edge;

struct callee_index {
  callee_edge *e;
  int n, cap;
  pass_tu *t;
};

static void add_edge(callee_index *ix, CXCursor target, CXCursor fn) {
  char *key = string_and_dispose(clang_getCursorUSR(target));
  char *fu = string_and_dispose(clang_getCursorUSR(fn));
  if (!key || !*key || !fu || !*fu) goto drop;
  for (int i = 0; i < ix->n; i++)
    if (!strcmp(ix->e[i].key, key) && !strcmp(ix->e[i].fn_usr, fu)) goto drop;
  if (ix->n == ix->cap) {
    int nc = ix->cap ? ix->cap * 2 : 32;
    callee_edge *ne = realloc(ix->e, (size_t)nc * sizeof *ne);
    if (!ne) goto drop;
    ix->e = ne;
    ix->cap = nc;
  }
  ix->e[ix->n++] = (callee_edge){key, fu, fn};
  return;
drop:
  free(key);
  free(fu);
}

static int is_function_decl(CXCursor d) {
  enum CXCursorKind k = clang_getCursorKind(d);
  return k == CXCursor_FunctionDecl || k == CXCursor_FunctionTemplate ||
         (k == CXCursor_CXXMethod && clang_CXXMethod_isStatic(d));
}

CXCursor callees_function_ref(CXCursor e) {
  for (int guard = 0; guard < 8; guard++) {
    e = cursor_strip_casts(e);
    enum CXCursorKind k = clang_getCursorKind(e);
    if (k == CXCursor_UnaryOperator && clang_getCursorUnaryOperatorKind(e) == CXUnaryOperator_AddrOf) {
      CXCursor ch[1];
      if (cursor_children(e, ch, 1) != 1) break;
      e = ch[0];
      continue;
    }
    if (k == CXCursor_DeclRefExpr) {
      CXCursor d = clang_getCursorReferenced(e);
      if (is_function_decl(d)) return d;
    }
    break;
  }
  return clang_getNullCursor();
}

/* The field or variable an lvalue names (`x.f`, `p->f`, `f`), or null. */
static CXCursor target_decl(CXCursor lhs) {
  lhs = cursor_strip_casts(lhs);
  enum CXCursorKind k = clang_getCursorKind(lhs);
  if (k != CXCursor_MemberRefExpr && k != CXCursor_DeclRefExpr) return clang_getNullCursor();
  CXCursor d = clang_getCursorReferenced(lhs);
  enum CXCursorKind dk = clang_getCursorKind(d);
  if (dk == CXCursor_FieldDecl || dk == CXCursor_VarDecl || dk == CXCursor_ParmDecl) return d;
  return clang_getNullCursor();
}

/* The fields of a record type, in declaration order. */
static int record_fields(CXType t, CXCursor **out) {
  CXCursor decl = clang_getTypeDeclaration(clang_getCanonicalType(t));
  CXCursor *ch;
  int n = cursor_children_all(decl, &ch), m = 0;
  for (int i = 0; i < n; i++)
    if (clang_getCursorKind(ch[i]) == CXCursor_FieldDecl) ch[m++] = ch[i];
  *out = ch;
  return m;
}

/* `{fwd, bwd}` and `{.forward = fwd}` initialising a struct. */
static void init_list(callee_index *ix, CXCursor list) {
  CXType t = clang_getCanonicalType(clang_getCursorType(list));
  if (t.kind != CXType_Record) return;
  CXCursor *fl, *el;
  int nf = record_fields(t, &fl);
  int ne = cursor_children_all(list, &el);
  for (int i = 0, at = 0; i < ne; i++, at++) {
    CXCursor v = el[i];
    CXCursor *ds;
    int nd = clang_getCursorKind(v) == CXCursor_UnexposedExpr ? cursor_children_all(v, &ds) : 0;
    if (nd >= 2 && clang_getCursorKind(ds[0]) == CXCursor_MemberRef) {
      /* designated: `.f = fn` (the last designator names the field) */
      CXCursor fld = clang_getCursorReferenced(ds[nd - 2]);
      CXCursor fn = callees_function_ref(ds[nd - 1]);
      if (clang_getCursorKind(ds[nd - 2]) == CXCursor_MemberRef && !clang_Cursor_isNull(fn))
        add_edge(ix, fld, fn);
      for (int k = 0; k < nf; k++)
        if (clang_equalCursors(fl[k], clang_getCursorReferenced(ds[0]))) at = k;
      free(ds);
      continue;
    }
    if (nd) free(ds);
    CXCursor fn = callees_function_ref(v);
    if (!clang_Cursor_isNull(fn) && at < nf) add_edge(ix, fl[at], fn);
  }
  free(fl);
  free(el);
}

static enum CXChildVisitResult index_visitor(CXCursor c, CXCursor parent, CXClientData d);

static enum CXChildVisitResult top_visitor(CXCursor c, CXCursor parent, CXClientData d) {
  callee_index *ix = d;
  enum CXCursorKind k = clang_getCursorKind(c);
  if (k == CXCursor_Namespace || k == CXCursor_LinkageSpec) return CXChildVisit_Recurse;
  if (!program_view_of(ix->t, c)) return CXChildVisit_Continue; /* not the project's */
  index_visitor(c, parent, d);
  clang_visitChildren(c, index_visitor, d);
  return CXChildVisit_Continue;
}

static enum CXChildVisitResult index_visitor(CXCursor c, CXCursor parent, CXClientData d) {
  (void)parent;
  callee_index *ix = d;
  enum CXCursorKind k = clang_getCursorKind(c);
  if (k == CXCursor_BinaryOperator && clang_getCursorBinaryOperatorKind(c) == CXBinaryOperator_Assign) {
    CXCursor ch[2];
    if (cursor_children(c, ch, 2) == 2) {
      CXCursor tgt = target_decl(ch[0]), fn = callees_function_ref(ch[1]);
      if (!clang_Cursor_isNull(tgt) && !clang_Cursor_isNull(fn)) add_edge(ix, tgt, fn);
    }
  } else if (k == CXCursor_VarDecl || k == CXCursor_FieldDecl) {
    /* `fn_t f = relu;`, a default member initialiser `fn_t f = relu;` */
    CXCursor init = cursor_last_expr_child(c);
    CXCursor fn = clang_Cursor_isNull(init) ? init : callees_function_ref(init);
    if (!clang_Cursor_isNull(fn)) add_edge(ix, c, fn);
  } else if (k == CXCursor_InitListExpr) {
    init_list(ix, c);
  } else if (k == CXCursor_CallExpr) {
    /* a function passed for a function-pointer parameter */
    CXCursor callee = clang_getCursorReferenced(c);
    int n = clang_Cursor_getNumArguments(c);
    int np = clang_Cursor_isNull(callee) ? 0 : clang_Cursor_getNumArguments(callee);
    for (int i = 0; i < n && i < np; i++) {
      CXCursor fn = callees_function_ref(clang_Cursor_getArgument(c, (unsigned)i));
      if (!clang_Cursor_isNull(fn)) add_edge(ix, clang_Cursor_getArgument(callee, (unsigned)i), fn);
    }
  } else if (k == CXCursor_CXXMethod) {
    CXCursor *ov = NULL;
    unsigned nov = 0;
    clang_getOverriddenCursors(c, &ov, &nov);
    for (unsigned i = 0; i < nov; i++) add_edge(ix, ov[i], c);
    if (ov) clang_disposeOverriddenCursors(ov);
  }
  return CXChildVisit_Recurse;
}

callee_index *callees_build(pass_tu *t) {
  callee_index *ix = calloc(1, sizeof *ix);
  if (!ix) return NULL;
  ix->t = t;
  pass_tu *const *units;
  int n = program_units(t, &units);
  for (int u = 0; u < n; u++)
    clang_visitChildren(clang_getTranslationUnitCursor(units[u]->tu), top_visitor, ix);
  return ix;
}

void callees_free(callee_index *ix) {
  if (!ix) return;
  for (int i = 0; i < ix->n; i++) {
    free(ix->e[i].key);
    free(ix->e[i].fn_usr);
  }
  free(ix->e);
  free(ix);
}

static int is_pointer_to_function(CXType t) {
  t = clang_getCanonicalType(t);
  if (t.kind == CXType_Pointer) t = clang_getCanonicalType(clang_getPointeeType(t));
  return t.kind == CXType_FunctionProto || t.kind == CXType_FunctionNoProto;
}

/* A member call's object is a declared object of class type (not a
 * reference, not through a pointer): its static class is its class. */
static int object_is_exact(CXCursor callee) {
  CXCursor ob[1];
  if (clang_getCursorKind(callee) != CXCursor_MemberRefExpr || cursor_children(callee, ob, 1) != 1)
    return 0; /* implicit this: virtual */
  CXCursor o = cursor_strip_casts(ob[0]);
  if (cursor_is_pointer_type(clang_getCursorType(ob[0]))) return 0;
  enum CXCursorKind k = clang_getCursorKind(o);
  if (k != CXCursor_DeclRefExpr && k != CXCursor_MemberRefExpr) return 0;
  CXCursor d = clang_getCursorReferenced(o);
  enum CXTypeKind tk = clang_getCursorType(d).kind;
  return tk != CXType_LValueReference && tk != CXType_RValueReference;
}

callee_kind callees_kind(CXCursor call, CXCursor *key) {
  *key = clang_getNullCursor();
  CXCursor ref = clang_getCursorReferenced(call);
  enum CXCursorKind rk = clang_getCursorKind(ref);
  CXCursor ch[1];
  CXCursor callee = cursor_children(call, ch, 1) >= 1 ? cursor_strip_casts(ch[0]) : clang_getNullCursor();
  if (rk == CXCursor_CXXMethod) {
    *key = ref;
    if (clang_CXXMethod_isVirtual(ref) && !object_is_exact(callee)) return CALLEE_VIRTUAL;
    return CALLEE_DIRECT;
  }
  if (rk == CXCursor_FunctionDecl || rk == CXCursor_FunctionTemplate || rk == CXCursor_Constructor ||
      rk == CXCursor_Destructor) {
    *key = ref;
    return CALLEE_DIRECT;
  }
  /* `l.forward(l, net)`, `(*fp)(x)`, `fp(x)`: the pointer's declaration */
  for (int guard = 0; guard < 4 && !clang_Cursor_isNull(callee); guard++) {
    enum CXCursorKind k = clang_getCursorKind(callee);
    if (k == CXCursor_UnaryOperator && clang_getCursorUnaryOperatorKind(callee) == CXUnaryOperator_Deref) {
      CXCursor in[1];
      if (cursor_children(callee, in, 1) != 1) break;
      callee = cursor_strip_casts(in[0]);
      continue;
    }
    CXCursor d = target_decl(callee);
    if (!clang_Cursor_isNull(d) && is_pointer_to_function(clang_getCursorType(d))) {
      *key = d;
      return CALLEE_POINTER;
    }
    break;
  }
  return CALLEE_DIRECT;
}

typedef struct fn_list {
  CXCursor *v;
  char **usr;
  int n, cap;
} fn_list;

static void list_add(fn_list *l, pass_tu *t, CXCursor fn) {
  CXCursor def = program_definition(t, fn);
  if (clang_Cursor_isNull(def)) return;
  char *u = string_and_dispose(clang_getCursorUSR(def));
  if (!u) return;
  for (int i = 0; i < l->n; i++)
    if (!strcmp(l->usr[i], u)) {
      free(u);
      return;
    }
  if (l->n == l->cap) {
    int nc = l->cap ? l->cap * 2 : 8;
    CXCursor *nv = realloc(l->v, (size_t)nc * sizeof *nv);
    char **nu = nv ? realloc(l->usr, (size_t)nc * sizeof *nu) : NULL;
    if (nv) l->v = nv;
    if (!nv || !nu) {
      free(u);
      return;
    }
    l->usr = nu;
    l->cap = nc;
  }
  l->v[l->n] = def;
  l->usr[l->n++] = u;
}

/* Every override below method usr (depth-first), bounded. */
static void overrides_of(callee_index *ix, pass_tu *t, const char *usr, fn_list *l, int depth) {
  if (depth > 16) return;
  for (int i = 0; i < ix->n; i++) {
    if (strcmp(ix->e[i].key, usr) != 0) continue;
    list_add(l, t, ix->e[i].fn);
    overrides_of(ix, t, ix->e[i].fn_usr, l, depth + 1);
  }
}

int callees_candidates(callee_index *ix, pass_tu *t, CXCursor call, CXCursor **out) {
  *out = NULL;
  CXCursor key;
  callee_kind kind = callees_kind(call, &key);
  if (!ix || kind == CALLEE_DIRECT || clang_Cursor_isNull(key)) return 0;
  char *usr = string_and_dispose(clang_getCursorUSR(key));
  if (!usr || !*usr) {
    free(usr);
    return 0;
  }
  fn_list l = {0};
  if (kind == CALLEE_VIRTUAL) {
    list_add(&l, t, key);
    overrides_of(ix, t, usr, &l, 0);
  } else {
    for (int i = 0; i < ix->n; i++)
      if (!strcmp(ix->e[i].key, usr)) list_add(&l, t, ix->e[i].fn);
  }
  free(usr);
  for (int i = 0; i < l.n; i++) free(l.usr[i]);
  free(l.usr);
  *out = l.v;
  return l.n;
}

/* 1 if method c is m or overrides it (at any depth). */
static int overrides(CXCursor c, const char *m_usr, int depth) {
  if (depth > 16) return 0;
  char *u = string_and_dispose(clang_getCursorUSR(c));
  int same = u && !strcmp(u, m_usr);
  free(u);
  if (same) return 1;
  CXCursor *ov = NULL;
  unsigned n = 0;
  clang_getOverriddenCursors(c, &ov, &n);
  int r = 0;
  for (unsigned i = 0; i < n && !r; i++) r = overrides(ov[i], m_usr, depth + 1);
  if (ov) clang_disposeOverriddenCursors(ov);
  return r;
}

static CXCursor find_override(pass_tu *t, CXCursor cls, CXCursor m, const char *m_usr,
                              const char *name, int depth) {
  CXCursor none = clang_getNullCursor();
  if (depth > 16 || clang_Cursor_isNull(cls)) return none;
  CXCursor def = clang_getCursorDefinition(cls);
  if (!clang_Cursor_isNull(def)) cls = def;
  CXCursor *ch;
  int n = cursor_children_all(cls, &ch);
  CXCursor found = none;
  int have = 0;
  for (int i = 0; i < n && !have; i++) {
    if (clang_getCursorKind(ch[i]) != CXCursor_CXXMethod) continue;
    char *nm = string_and_dispose(clang_getCursorSpelling(ch[i]));
    int same = nm && !strcmp(nm, name);
    free(nm);
    if (same && overrides(ch[i], m_usr, 0)) {
      have = 1;
      found = program_definition(t, ch[i]); /* null for a pure virtual one */
    }
  }
  for (int i = 0; i < n && !have; i++) {
    if (clang_getCursorKind(ch[i]) != CXCursor_CXXBaseSpecifier) continue;
    CXCursor base = clang_getTypeDeclaration(clang_getCanonicalType(clang_getCursorType(ch[i])));
    found = find_override(t, base, m, m_usr, name, depth + 1);
    have = !clang_Cursor_isNull(found);
  }
  free(ch);
  return found;
}

CXCursor callees_override(pass_tu *t, CXCursor cls, CXCursor m) {
  char *usr = string_and_dispose(clang_getCursorUSR(m));
  char *name = string_and_dispose(clang_getCursorSpelling(m));
  CXCursor r = usr && name ? find_override(t, cls, m, usr, name, 0) : clang_getNullCursor();
  free(usr);
  free(name);
  return r;
}
