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
 * units is one key (a parameter's is its function's and its position).
 * Only project files are read (not system headers, the toolkit or tidal's
 * compat folder).  What is not found (a function pointer from a library,
 * dlsym) has no candidates: the call stays unfollowed and is reported
 * where it is met, and it is an escape (Note [library functions through
 * pointers], below, which also says when the target is a library op). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cursor.h"
#include "base/cxstring.h"
#include "graph/callees.h"

typedef struct callee_edge {
  char *key;    /* the pointer's key (key_of), or the overridden method's USR */
  char *fn_usr; /* USR of the function stored, or of the override; NULL for the others */
  CXCursor fn;  /* that function; for an alias the pointer whose value is stored */
  char *from;   /* an alias (`f = l.forward`): the key of the pointer read; NULL otherwise.
                   Neither fn_usr nor from: a null pointer stored (`= NULL`, `{0}`) */
} callee_edge;

struct callee_index {
  callee_edge *e;
  int n, cap;
  char **opaque;       /* keys that may hold a value the syntax does not name (Note [library
                          functions through pointers]) */
  int n_opaque, cap_opaque;
  char **taken;        /* USRs of functions used as values: who calls them is not all seen */
  int n_taken, cap_taken;
  CXCursor callee_ref; /* the callee expression of the call visited last: a direct callee's
                          name, not a function taken as a value (compared by location:
                          libclang's cursors of one expression met by two walks differ) */
  pass_tu *t;
};

/* 1 for a pointer to a function, a reference to one, or an array of them
 * (`fn_t ops[4]`): the declarations whose values an indirect call reads. */
static int fnptr_type(CXType t) {
  t = clang_getCanonicalType(t);
  if (t.kind == CXType_LValueReference || t.kind == CXType_RValueReference)
    t = clang_getCanonicalType(clang_getPointeeType(t));
  for (int d = 0; d < 8 && (t.kind == CXType_ConstantArray || t.kind == CXType_IncompleteArray ||
                            t.kind == CXType_VariableArray);
       d++)
    t = clang_getCanonicalType(clang_getArrayElementType(t));
  if (t.kind != CXType_Pointer) return 0;
  t = clang_getCanonicalType(clang_getPointeeType(t));
  return t.kind == CXType_FunctionProto || t.kind == CXType_FunctionNoProto;
}

static int is_reference(CXType t) {
  t = clang_getCanonicalType(t);
  return t.kind == CXType_LValueReference || t.kind == CXType_RValueReference;
}

/* The key of a pointer's declaration: its USR, but a parameter's is its
 * function's USR and position (a parameter's USR holds its file offset, so
 * a prototype's and the definition's differ).  malloc'd; NULL if none. */
static char *key_of(CXCursor d) {
  if (clang_getCursorKind(d) == CXCursor_ParmDecl) {
    CXCursor fn = clang_getCursorSemanticParent(d);
    CXCursor *ps = NULL;
    int np = cursor_fn_params(fn, &ps), at = -1;
    for (int i = 0; i < np && at < 0; i++)
      if (clang_equalCursors(ps[i], d)) at = i;
    free(ps);
    char *fu = at >= 0 ? string_and_dispose(clang_getCursorUSR(fn)) : NULL;
    if (fu && *fu) {
      size_t n = strlen(fu) + 24;
      char *k = malloc(n);
      if (k) snprintf(k, n, "%s#param%d", fu, at);
      free(fu);
      return k;
    }
    free(fu);
  }
  char *u = string_and_dispose(clang_getCursorUSR(d));
  if (u && !*u) {
    free(u);
    u = NULL;
  }
  return u;
}

static int push_str(char ***v, int *n, int *cap, char *s) {
  for (int i = 0; i < *n; i++)
    if (!strcmp((*v)[i], s)) {
      free(s);
      return 0;
    }
  if (*n == *cap) {
    int nc = *cap ? *cap * 2 : 16;
    char **nv = realloc(*v, (size_t)nc * sizeof *nv);
    if (!nv) {
      free(s);
      return -1;
    }
    *v = nv;
    *cap = nc;
  }
  (*v)[(*n)++] = s;
  return 0;
}

static int has_str(char *const *v, int n, const char *s) {
  for (int i = 0; s && i < n; i++)
    if (!strcmp(v[i], s)) return 1;
  return 0;
}

/* key <- fn (a function), an alias (from: the pointer read), or a null
 * pointer (both null). */
static void add_store(callee_index *ix, CXCursor target, CXCursor fn, CXCursor from) {
  char *key = key_of(target);
  char *fu = clang_Cursor_isNull(fn) ? NULL : string_and_dispose(clang_getCursorUSR(fn));
  char *fr = clang_Cursor_isNull(from) ? NULL : key_of(from);
  if (!key || (fu && !*fu) || (!clang_Cursor_isNull(fn) && !fu) ||
      (!clang_Cursor_isNull(from) && !fr))
    goto drop;
  for (int i = 0; i < ix->n; i++) {
    const callee_edge *e = &ix->e[i];
    if (strcmp(e->key, key)) continue;
    if ((fu && e->fn_usr && !strcmp(e->fn_usr, fu)) || (fr && e->from && !strcmp(e->from, fr)) ||
        (!fu && !fr && !e->fn_usr && !e->from))
      goto drop;
  }
  if (ix->n == ix->cap) {
    int nc = ix->cap ? ix->cap * 2 : 32;
    callee_edge *ne = realloc(ix->e, (size_t)nc * sizeof *ne);
    if (!ne) goto drop;
    ix->e = ne;
    ix->cap = nc;
  }
  ix->e[ix->n++] = (callee_edge){key, fu, fu ? fn : from, fr};
  return;
drop:
  free(key);
  free(fu);
  free(fr);
}

static void add_edge(callee_index *ix, CXCursor target, CXCursor fn) {
  add_store(ix, target, fn, clang_getNullCursor());
}

static void add_opaque(callee_index *ix, CXCursor target) {
  char *k = key_of(target);
  if (k) push_str(&ix->opaque, &ix->n_opaque, &ix->cap_opaque, k);
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

/* The function-pointer field, variable or parameter (or array of them)
 * whose value or element expression e reads: `fp`, `*fp`, `l.f`, `p->f`,
 * `table[i]`, `s.ops[k]`; a null cursor for any other expression (a call's
 * result, `get_ops()[i]`, an element of a `fn_t *`). */
static CXCursor pointer_key(CXCursor e) {
  for (int guard = 0; guard < 8; guard++) {
    e = cursor_strip_casts(e);
    enum CXCursorKind k = clang_getCursorKind(e);
    CXCursor in[1];
    if ((k == CXCursor_UnaryOperator &&
         clang_getCursorUnaryOperatorKind(e) == CXUnaryOperator_Deref) ||
        k == CXCursor_ArraySubscriptExpr) {
      if (cursor_children(e, in, 1) < 1) break;
      e = in[0];
      continue;
    }
    if (k == CXCursor_MemberRefExpr || k == CXCursor_DeclRefExpr) {
      CXCursor d = clang_getCursorReferenced(e);
      enum CXCursorKind dk = clang_getCursorKind(d);
      if ((dk == CXCursor_FieldDecl || dk == CXCursor_VarDecl || dk == CXCursor_ParmDecl) &&
          fnptr_type(clang_getCursorType(d)))
        return d;
    }
    break;
  }
  return clang_getNullCursor();
}

static int null_constant(CXCursor e) {
  enum CXCursorKind k = clang_getCursorKind(e);
  if (k == CXCursor_GNUNullExpr || k == CXCursor_CXXNullPtrLiteralExpr) return 1;
  int64_t v;
  return k == CXCursor_IntegerLiteral && cursor_eval_int(e, &v) && v == 0;
}

/* Note [library functions through pointers]
 * A call through a function pointer whose target is a CUDA library op
 * (`add_fn add = cudnnAddTensor; add(h, ...)`, a layer's `forward` field
 * holding cublasSgemm) is that op, and one whose target the pass cannot
 * tell may be any library routine: either way it receives device
 * addresses, so it must be an instrumented op (its arguments through
 * TIDAL_AT) or an escape (tidal_home before it), never a plain call
 * (a relocatable allocation would reach the library as its unmapped
 * stable address).  What the pointer may hold is read from the program's
 * syntax, as for user functions (Note [indirect calls]), with what stays
 * unseen made explicit: every store to the pointer's declaration is
 * recorded - a function (`= cudnnAddTensor`, `&f`, either arm of `c ? f
 * : g`), a null pointer, or the value of another pointer (`fp =
 * l.forward`, followed) - and the declaration is opaque (may hold
 * anything) when some store is none of those (`dlsym`, a call's result),
 * when its address is taken (`&fp`: whoever has it may store), when it
 * is a parameter of a function used as a value (its calls are not all
 * seen), when it is declared in a system header (a library fills it), or
 * when the program stores nothing to it at all (it is set where the pass
 * cannot see).  callees_reach sums it up for the call: only functions of
 * the program (the interpreter walks them, their op sites are
 * instrumented where they are written), exactly one library function
 * (the call is that function's: an op site when the library model marks
 * it an op, sites.c; the interpreter records it by that name), or
 * anything else - unknown, several library functions, or a library
 * function beside user ones - which sites.c makes an escape
 * (escapes.c): every device pointer argument is sent home before the
 * call, and the header says why. */
static void note_store(callee_index *ix, CXCursor key, CXCursor v, int depth) {
  v = cursor_strip_casts(v);
  enum CXCursorKind k = clang_getCursorKind(v);
  if (depth > 8) {
    add_opaque(ix, key);
    return;
  }
  if (null_constant(v)) {
    add_store(ix, key, clang_getNullCursor(), clang_getNullCursor());
    return;
  }
  CXCursor fn = callees_function_ref(v);
  if (!clang_Cursor_isNull(fn)) {
    add_edge(ix, key, fn);
    return;
  }
  CXCursor ch[3];
  if (k == CXCursor_ConditionalOperator && cursor_children(v, ch, 3) == 3) {
    note_store(ix, key, ch[1], depth + 1);
    note_store(ix, key, ch[2], depth + 1);
    return;
  }
  if (k == CXCursor_InitListExpr) { /* an array's elements, or `fn_t f = {g};` */
    CXCursor *el;
    int n = cursor_children_all(v, &el);
    for (int i = 0; i < n; i++) note_store(ix, key, el[i], depth + 1);
    free(el);
    return;
  }
  CXCursor from = pointer_key(v);
  if (!clang_Cursor_isNull(from)) {
    add_store(ix, key, clang_getNullCursor(), from);
    /* a reference bound to it (`fn_t &r = l.f`): stores through r land there */
    if (is_reference(clang_getCursorType(key))) add_opaque(ix, from);
    return;
  }
  /* a default argument or implicit zero: an expression with nothing under it */
  if (k == CXCursor_UnexposedExpr && cursor_children(v, NULL, 0) == 0) return;
  add_opaque(ix, key);
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

static void field_store(callee_index *ix, CXCursor fld, CXCursor v) {
  if (clang_getCursorKind(fld) == CXCursor_FieldDecl && fnptr_type(clang_getCursorType(fld)))
    note_store(ix, fld, v, 0);
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
      if (clang_getCursorKind(ds[nd - 2]) == CXCursor_MemberRef)
        field_store(ix, clang_getCursorReferenced(ds[nd - 2]), ds[nd - 1]);
      for (int k = 0; k < nf; k++)
        if (clang_equalCursors(fl[k], clang_getCursorReferenced(ds[0]))) at = k;
      free(ds);
      continue;
    }
    if (nd) free(ds);
    if (at < nf) field_store(ix, fl[at], v);
  }
  free(fl);
  free(el);
}

/* A constructor's member initialisers (`L(fn_t g) : fwd(g) {}`): a
 * MemberRef, then the expression it is initialised with. */
static void ctor_inits(callee_index *ix, CXCursor ctor) {
  CXCursor *ch;
  int n = cursor_children_all(ctor, &ch);
  for (int i = 0; i + 1 < n; i++)
    if (clang_getCursorKind(ch[i]) == CXCursor_MemberRef &&
        clang_isExpression(clang_getCursorKind(ch[i + 1])))
      field_store(ix, clang_getCursorReferenced(ch[i]), ch[i + 1]);
  free(ch);
}

/* The arguments of a direct call, stored to the callee's function-pointer
 * parameters; the callee expression is remembered (callee_ref). */
static void call_args(callee_index *ix, CXCursor c) {
  CXCursor first[1];
  ix->callee_ref = cursor_children(c, first, 1) >= 1 ? cursor_strip_casts(first[0])
                                                     : clang_getNullCursor();
  CXCursor callee = clang_getCursorReferenced(c);
  enum CXCursorKind ck = clang_getCursorKind(callee);
  if (ck != CXCursor_FunctionDecl && ck != CXCursor_FunctionTemplate && ck != CXCursor_CXXMethod &&
      ck != CXCursor_Constructor)
    return; /* through a pointer: the targets' parameters are opaque (taken) */
  CXCursor *ps = NULL;
  int n = clang_Cursor_getNumArguments(c);
  int np = cursor_fn_params(callee, &ps);
  /* an operator call (a functor, a lambda) lists the object as argument 0 */
  int skip = ck == CXCursor_CXXMethod && !clang_CXXMethod_isStatic(callee) && n == np + 1;
  for (int i = 0; i < np && i + skip < n; i++)
    if (fnptr_type(clang_getCursorType(ps[i])))
      note_store(ix, ps[i], clang_Cursor_getArgument(c, (unsigned)(i + skip)), 0);
  free(ps);
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
      CXCursor tgt = pointer_key(ch[0]);
      if (!clang_Cursor_isNull(tgt)) note_store(ix, tgt, ch[1], 0);
    }
  } else if (k == CXCursor_VarDecl || k == CXCursor_FieldDecl || k == CXCursor_ParmDecl) {
    /* `fn_t f = relu;`, `fn_t ops[] = {a, b};`, a default member
     * initialiser, a default argument */
    if (fnptr_type(clang_getCursorType(c))) {
      CXCursor init = k == CXCursor_VarDecl ? clang_Cursor_getVarDeclInitializer(c)
                                            : cursor_last_expr_child(c);
      CXType t = clang_getCanonicalType(clang_getCursorType(c));
      /* a field's array bound is an expression child too */
      if (k != CXCursor_VarDecl && t.kind == CXType_ConstantArray && !clang_Cursor_isNull(init) &&
          clang_getCursorKind(init) != CXCursor_InitListExpr)
        init = clang_getNullCursor();
      if (!clang_Cursor_isNull(init)) note_store(ix, c, init, 0);
    }
  } else if (k == CXCursor_InitListExpr) {
    init_list(ix, c);
  } else if (k == CXCursor_CallExpr) {
    call_args(ix, c);
  } else if (k == CXCursor_Constructor) {
    ctor_inits(ix, c);
  } else if (k == CXCursor_UnaryOperator &&
             clang_getCursorUnaryOperatorKind(c) == CXUnaryOperator_AddrOf) {
    CXCursor in[1];
    CXCursor key = cursor_children(c, in, 1) == 1 ? pointer_key(in[0]) : clang_getNullCursor();
    if (!clang_Cursor_isNull(key)) add_opaque(ix, key); /* `&fp`: whoever has it may store */
  } else if (k == CXCursor_DeclRefExpr) {
    CXCursor fn = clang_getCursorReferenced(c);
    enum CXCursorKind fk = clang_getCursorKind(fn);
    if ((fk == CXCursor_FunctionDecl || fk == CXCursor_FunctionTemplate ||
         fk == CXCursor_CXXMethod) &&
        !(clang_getCursorKind(ix->callee_ref) == CXCursor_DeclRefExpr &&
          clang_equalLocations(clang_getCursorLocation(c),
                               clang_getCursorLocation(ix->callee_ref)))) {
      char *u = string_and_dispose(clang_getCursorUSR(fn));
      if (u && *u) push_str(&ix->taken, &ix->n_taken, &ix->cap_taken, u);
      else free(u);
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
    free(ix->e[i].from);
  }
  for (int i = 0; i < ix->n_opaque; i++) free(ix->opaque[i]);
  for (int i = 0; i < ix->n_taken; i++) free(ix->taken[i]);
  free(ix->e);
  free(ix->opaque);
  free(ix->taken);
  free(ix);
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

/* 1 when e's value is a function or a pointer to one (not dependent). */
static int function_valued(CXCursor e) {
  CXType t = clang_getCanonicalType(clang_getCursorType(e));
  if (t.kind == CXType_Pointer || t.kind == CXType_LValueReference ||
      t.kind == CXType_RValueReference)
    t = clang_getCanonicalType(clang_getPointeeType(t));
  return t.kind == CXType_FunctionProto || t.kind == CXType_FunctionNoProto;
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
  if (clang_Cursor_isNull(callee)) return CALLEE_DIRECT;
  /* `l.forward(l, net)`, `(*fp)(x)`, `fp(x)`, `table[i](x)`: the pointer's declaration */
  CXCursor d = pointer_key(callee);
  if (!clang_Cursor_isNull(d)) {
    *key = d;
    return CALLEE_POINTER;
  }
  /* `get_op(k)(x)`, `(c ? f : g)(x)`, `(obj.*pm)(x)`: a function value that
   * no declaration holds (Note [library functions through pointers]) */
  enum CXCursorKind ck = clang_getCursorKind(callee);
  if (ck == CXCursor_BinaryOperator) {
    enum CXBinaryOperatorKind bk = clang_getCursorBinaryOperatorKind(callee);
    if (bk == CXBinaryOperator_PtrMemD || bk == CXBinaryOperator_PtrMemI) return CALLEE_POINTER;
  }
  if (function_valued(callee)) return CALLEE_POINTER; /* a reference to a function too */
  return CALLEE_DIRECT;
}

typedef struct fn_list {
  CXCursor *v;
  char **usr;
  int n, cap;
} fn_list;

/* Adds fn (def: its definition in the program, for the interpreter's
 * candidates; else the declaration met) once. */
static void list_add_as(fn_list *l, pass_tu *t, CXCursor fn, int def) {
  if (def) fn = program_definition(t, fn);
  if (clang_Cursor_isNull(fn)) return;
  char *u = string_and_dispose(clang_getCursorUSR(fn));
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
  l->v[l->n] = fn;
  l->usr[l->n++] = u;
}

static void list_add(fn_list *l, pass_tu *t, CXCursor fn) { list_add_as(l, t, fn, 1); }

static void list_free_usrs(fn_list *l) {
  for (int i = 0; i < l->n; i++) free(l->usr[i]);
  free(l->usr);
  l->usr = NULL;
}

/* Every override below method usr (depth-first), bounded. */
static void overrides_of(callee_index *ix, pass_tu *t, const char *usr, fn_list *l, int depth) {
  if (depth > 16) return;
  for (int i = 0; i < ix->n; i++) {
    if (strcmp(ix->e[i].key, usr) != 0 || !ix->e[i].fn_usr) continue;
    list_add(l, t, ix->e[i].fn);
    overrides_of(ix, t, ix->e[i].fn_usr, l, depth + 1);
  }
}

/* What a function pointer may hold (Note [library functions through
 * pointers]): the functions stored to it and to the pointers it is copied
 * from, and whether anything else may be there. */
typedef struct pointer_walk {
  callee_index *ix;
  pass_tu *t;
  int defs;       /* list definitions (the interpreter's candidates) */
  fn_list fns;
  char **seen;    /* keys walked */
  int n_seen, cap_seen;
  int unknown;    /* 1: a value the syntax does not name may be there */
} pointer_walk;

static void walk_pointer(pointer_walk *w, CXCursor decl, int depth) {
  char *key = key_of(decl);
  if (!key) {
    w->unknown = 1;
    return;
  }
  if (depth > 16 || has_str(w->seen, w->n_seen, key)) {
    free(key);
    return;
  }
  if (push_str(&w->seen, &w->n_seen, &w->cap_seen, key) != 0) {
    w->unknown = 1;
    return;
  }
  if (clang_Location_isInSystemHeader(clang_getCursorLocation(decl)) ||
      has_str(w->ix->opaque, w->ix->n_opaque, key))
    w->unknown = 1;
  if (clang_getCursorKind(decl) == CXCursor_ParmDecl) {
    char *fu = string_and_dispose(clang_getCursorUSR(clang_getCursorSemanticParent(decl)));
    if (!fu || has_str(w->ix->taken, w->ix->n_taken, fu)) w->unknown = 1;
    free(fu);
  }
  int stores = 0;
  for (int i = 0; i < w->ix->n; i++) {
    const callee_edge *e = &w->ix->e[i];
    if (strcmp(e->key, key) != 0) continue;
    stores++;
    if (e->fn_usr)
      list_add_as(&w->fns, w->t, e->fn, w->defs);
    else if (e->from)
      walk_pointer(w, e->fn, depth + 1);
  }
  if (stores == 0) w->unknown = 1; /* set where the pass cannot see */
}

static void pointer_walk_run(pointer_walk *w, callee_index *ix, pass_tu *t, CXCursor key, int defs) {
  memset(w, 0, sizeof *w);
  w->ix = ix;
  w->t = t;
  w->defs = defs;
  walk_pointer(w, key, 0);
  for (int i = 0; i < w->n_seen; i++) free(w->seen[i]);
  free(w->seen);
  list_free_usrs(&w->fns);
}

int callees_candidates(callee_index *ix, pass_tu *t, CXCursor call, CXCursor **out) {
  *out = NULL;
  CXCursor key;
  callee_kind kind = callees_kind(call, &key);
  if (!ix || kind == CALLEE_DIRECT || clang_Cursor_isNull(key)) return 0;
  if (kind == CALLEE_POINTER) {
    pointer_walk w;
    pointer_walk_run(&w, ix, t, key, 1);
    *out = w.fns.v;
    return w.fns.n;
  }
  char *usr = string_and_dispose(clang_getCursorUSR(key));
  if (!usr || !*usr) {
    free(usr);
    return 0;
  }
  fn_list l = {0};
  list_add(&l, t, key);
  overrides_of(ix, t, usr, &l, 0);
  free(usr);
  list_free_usrs(&l);
  *out = l.v;
  return l.n;
}

/* 1: a host function of the program; 0: a function with no body in it (a
 * library routine); -1: device code. */
static int function_class(pass_tu *t, CXCursor fn) {
  CXCursor def = program_definition(t, fn);
  if (clang_Cursor_isNull(def) || clang_Location_isInSystemHeader(clang_getCursorLocation(def)))
    return 0;
  CXCursor *ch;
  int n = cursor_children_all(def, &ch), host = 1, device = 0;
  for (int i = 0; i < n; i++) {
    enum CXCursorKind k = clang_getCursorKind(ch[i]);
    if (k == CXCursor_CUDAGlobalAttr || k == CXCursor_CUDADeviceAttr) device = 1;
    if (k == CXCursor_CUDAHostAttr) host = 2;
  }
  free(ch);
  return device && host != 2 ? -1 : 1;
}

callee_reach callees_reach(callee_index *ix, pass_tu *t, CXCursor call, CXCursor *lib) {
  *lib = clang_getNullCursor();
  CXCursor key;
  if (callees_kind(call, &key) != CALLEE_POINTER) return CALLEE_REACH_USER;
  if (!ix || clang_Cursor_isNull(key)) return CALLEE_REACH_UNKNOWN;
  pointer_walk w;
  pointer_walk_run(&w, ix, t, key, 0);
  int users = 0, libs = 0, device = 0;
  CXCursor one = clang_getNullCursor();
  for (int i = 0; i < w.fns.n; i++) {
    int c = function_class(t, w.fns.v[i]);
    users += c == 1;
    device += c == -1;
    libs += c == 0;
    if (c != 1) one = w.fns.v[i];
  }
  free(w.fns.v);
  callee_reach r = CALLEE_REACH_USER;
  if (w.unknown || (users + libs + device > 1 && (libs || device))) r = CALLEE_REACH_UNKNOWN;
  else if (libs) r = CALLEE_REACH_LIBRARY;
  else if (device) r = CALLEE_REACH_DEVICE;
  if (r == CALLEE_REACH_LIBRARY || r == CALLEE_REACH_DEVICE) *lib = one;
  return r;
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
