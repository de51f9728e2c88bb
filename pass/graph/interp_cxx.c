/* interp_cxx.c - C++ objects on the heap and the smart pointers that own
 * them: `new T(args)`, `new T[n]`, `delete p` (Note [heap objects]);
 * std::unique_ptr/std::shared_ptr construction, make_unique/make_shared,
 * get/reset/release/swap, operator-> and operator* (Note [smart pointers]);
 * default member initialisers and destructors.  Constructors and methods
 * run through gb_run_function (interp_call.c). */
#include <stdlib.h>
#include <string.h>

#include "graph/interp_impl.h"

/* Note [heap objects]: `new T(args)` is a fresh host object whose store
 * path is "hN:(*m)", named after the variable the result is stored to
 * (b->new_name; "hN[0]" when there is none), and T's user constructor runs
 * with that path as `this`, so `m->forward(x)` finds the members it set.
 * `new T[n]` is "hN:acts[0]", indexed like a malloc'd array: `new float *[L]`
 * filled by one cudaMalloc per element is a pointer array (Note [pointer
 * arrays]).  `delete p` runs T's user destructor on the object (its
 * cudaFree calls are recorded frees).  Not followed: the constructors and
 * destructors of the elements of `new T[n]` beyond the first, placement
 * new, and destructors run at the end of a scope.
 *
 * Note [smart pointers]: std::unique_ptr<T> and std::shared_ptr<T> are
 * modelled as the raw pointer they hold: a smart pointer's store entry
 * holds the held value itself (the heap object's address, or the device
 * pointer of a shared_ptr<float> owning a cudaMalloc'd buffer), and get(),
 * operator-> and operator* read it.  Construction from a raw pointer or
 * another smart pointer (copy, std::move), make_unique/make_shared (a heap
 * object, its constructor chosen by the number of arguments), assignment,
 * reset, release and swap are followed.  Ownership is not: a custom
 * deleter (`[](float *q) { cudaFree(q); }`) runs when the last owner goes,
 * which the interpreter does not follow (the rewriter still replaces its
 * cudaFree: it edits every call).  What cannot be followed holds a pointer
 * of unknown origin, reported where an op uses it. */

/* std::unique_ptr<...> or std::shared_ptr<...> (libstdc++ or libc++). */
int gb_is_smart_ptr(CXType t) {
  char *sp = string_and_dispose(clang_getTypeSpelling(clang_getCanonicalType(t)));
  const char *s = sp ? sp : "";
  if (strncmp(s, "const ", 6) == 0) s += 6;
  int r = 0;
  if (strncmp(s, "std::", 5) == 0) {
    s += 5;
    if (strncmp(s, "__1::", 5) == 0) s += 5;
    r = strncmp(s, "unique_ptr<", 11) == 0 || strncmp(s, "shared_ptr<", 11) == 0;
  }
  free(sp);
  return r;
}

/* A smart pointer of type t whose held value is not known. */
static gval smart_unknown(gb *b, CXType t) {
  gval v = gb_none_val();
  CXType pt = clang_Type_getTemplateArgumentAsType(clang_getCanonicalType(t), 0);
  if (!gb_is_record_type(pt)) { /* a buffer: unresolved where an op uses it */
    v.k = GV_DEVPTR;
    v.base = sym_const(b->a, 0);
    v.delta = sym_unknown(b->a);
  }
  return v;
}

/* std::move(x) / std::forward<T>(x): x. */
static CXCursor strip_move(CXCursor e) {
  CXCursor s = cursor_strip_casts(e);
  if (clang_getCursorKind(s) != CXCursor_CallExpr || clang_Cursor_getNumArguments(s) != 1) return s;
  char *n = gb_callee_name(s);
  int mv = n && (strcmp(n, "move") == 0 || strcmp(n, "forward") == 0) &&
           clang_Location_isInSystemHeader(clang_getCursorLocation(gb_callee_decl(s)));
  free(n);
  return mv ? cursor_strip_casts(clang_Cursor_getArgument(s, 0)) : s;
}

/* The pointer a smart-pointer expression holds: its store entry when it is
 * an lvalue (key set to it), else (a temporary: make_unique, a constructor,
 * a function returning one) its value. */
gval gb_smart_held(gb *b, gb_frame *f, CXCursor e, const char **key_out) {
  CXCursor s = strip_move(e);
  enum CXCursorKind k = clang_getCursorKind(s);
  if (key_out) *key_out = NULL;
  if (k == CXCursor_DeclRefExpr || k == CXCursor_MemberRefExpr || k == CXCursor_ArraySubscriptExpr ||
      k == CXCursor_UnaryOperator ||
      (k == CXCursor_CallExpr && gb_vector_element_call(s, NULL))) { /* `layers_[i]` */
    const char *text;
    int ok;
    const char *key = gb_lvalue(b, f, s, &text, &ok);
    gval *st = key ? gb_lookup(b, key) : NULL;
    gval v = st && st->k != GV_ALIAS ? *st : smart_unknown(b, clang_getCursorType(s));
    if (key_out) *key_out = key;
    v.text = text ? gb_fmt(b, "%s.get()", text) : NULL;
    v.text_ok = ok;
    v.prec = 0;
    return v;
  }
  return gb_eval(b, f, e);
}

/* Does e make a heap object to be stored (`new T`, make_unique,
 * `unique_ptr<T>(new T)`)?  Its target then names it (b->new_name). */
int gb_makes_heap_object(CXCursor e) {
  CXCursor s = cursor_strip_casts(e);
  enum CXCursorKind k = clang_getCursorKind(s);
  if (k == CXCursor_CXXNewExpr) return 1;
  if (k != CXCursor_CallExpr) return 0;
  CXCursor ref = clang_getCursorReferenced(s);
  if (clang_getCursorKind(ref) == CXCursor_Constructor)
    /* `unique_ptr<T>(new T)`, `unique_ptr<Base>(make_unique<T>())` */
    return gb_is_smart_ptr(clang_getCursorType(s)) && clang_Cursor_getNumArguments(s) >= 1 &&
           gb_makes_heap_object(clang_Cursor_getArgument(s, 0));
  char *n = gb_callee_name(s);
  int r = n && (strcmp(n, "make_unique") == 0 || strcmp(n, "make_shared") == 0 ||
                strcmp(n, "malloc") == 0 || strcmp(n, "calloc") == 0 || strcmp(n, "realloc") == 0);
  free(n);
  return r;
}

/* A fresh heap object (Note [heap objects]); array: `new T[n]`. */
static gval heap_object(gb *b, int array) {
  const char *nm = b->new_name;
  b->new_name = NULL;
  gval v = gb_none_val();
  v.k = GV_ADDR;
  int id = b->next_frame++;
  if (nm && *nm) /* named: its tensors read `(*m).w_`, `acts[2]` */
    v.path = array ? gb_fmt(b, "h%d:%s[0]", id, nm) : gb_fmt(b, "h%d:(*%s)", id, nm);
  else
    v.path = gb_fmt(b, "h%d[0]", id);
  return v;
}

/* The user constructor of record type t taking nargs arguments (make_unique
 * forwards its arguments to one; the first of that arity), or a null cursor. */
static CXCursor constructor_for(CXType t, int nargs) {
  CXCursor decl = clang_getTypeDeclaration(clang_getCanonicalType(t));
  CXCursor *ch, r = clang_getNullCursor();
  int n = cursor_children_all(decl, &ch);
  for (int i = 0; i < n; i++)
    if (clang_getCursorKind(ch[i]) == CXCursor_Constructor &&
        !clang_CXXConstructor_isCopyConstructor(ch[i]) &&
        !clang_CXXConstructor_isMoveConstructor(ch[i]) &&
        clang_Cursor_getNumArguments(ch[i]) == nargs) {
      r = ch[i];
      break;
    }
  free(ch);
  return r;
}

/* Constructs an object of class t at obj from the arguments of call e
 * from argument `first` on (`v.emplace_back(args...)`, Note [container
 * elements]): its user constructor taking that many arguments runs with
 * `this` obj, after the default member initialisers.  0 if there is none. */
int gb_construct_at(gb *b, gb_frame *f, CXCursor e, int first, CXType t, const char *obj) {
  int n = clang_Cursor_getNumArguments(e) - first;
  if (!gb_is_record_type(t) || n < 0) return 0;
  CXCursor ctor = constructor_for(t, n);
  CXCursor def = clang_Cursor_isNull(ctor) ? ctor : program_definition(b->t, ctor);
  if (!gb_is_user_function(b, def)) return 0;
  gb_default_members(b, f, obj, t);
  gb_set_dynamic_class(b, obj, clang_getTypeDeclaration(clang_getCanonicalType(t)));
  gval args[64];
  int na = gb_bind_call_args(b, f, e, def, first, args, 64);
  b->this_path = obj;
  gb_run_function(b, def, f, e, args, na, NULL);
  b->this_path = NULL;
  return 1;
}

/* Runs T's user destructor on the object at path (`delete p`). */
static void run_destructor(gb *b, gb_frame *f, CXCursor at, CXType t, const char *path) {
  CXCursor decl = clang_getTypeDeclaration(clang_getCanonicalType(t));
  CXCursor *ch;
  int n = cursor_children_all(decl, &ch);
  for (int i = 0; i < n; i++) {
    if (clang_getCursorKind(ch[i]) != CXCursor_Destructor) continue;
    CXCursor def = program_definition(b->t, ch[i]);
    if (gb_is_user_function(b, def)) {
      b->this_path = path;
      gb_run_function(b, def, f, at, NULL, 0, NULL);
      b->this_path = NULL;
    }
    break;
  }
  free(ch);
}

/* `new T(args)`, `new T[n]` (Note [heap objects]). */
GB_NOINLINE gval gb_eval_new(gb *b, gb_frame *f, CXCursor e) {
  /* an array new has its '[' before any '(' or '{' (`new float *[L]`) */
  const char *text = gb_text(b, e);
  const char *br = text ? strpbrk(text, "[({") : NULL;
  gval v = heap_object(b, br && *br == '[');
  CXType pt = clang_getPointeeType(clang_getCanonicalType(clang_getCursorType(e)));
  if (gb_is_record_type(pt)) gb_set_dynamic_class(b, v.path, clang_getTypeDeclaration(pt));
  CXCursor *ch;
  int n = cursor_children_all(e, &ch);
  for (int i = 0; i < n; i++) {
    if (!clang_isExpression(clang_getCursorKind(ch[i]))) continue;
    CXCursor s = cursor_strip_casts(ch[i]);
    int ctor = clang_getCursorKind(s) == CXCursor_CallExpr &&
               clang_getCursorKind(clang_getCursorReferenced(s)) == CXCursor_Constructor;
    b->this_path = ctor ? v.path : NULL;
    gb_eval(b, f, ch[i]);
    b->this_path = NULL;
  }
  free(ch);
  return v;
}

/* `delete p`, `delete[] p`. */
GB_NOINLINE void gb_eval_delete(gb *b, gb_frame *f, CXCursor e) {
  CXCursor p = cursor_last_expr_child(e); /* the operand: its only child */
  if (clang_Cursor_isNull(p)) return;
  gval v = gb_eval(b, f, p);
  CXType pt = clang_getPointeeType(clang_getCanonicalType(clang_getCursorType(p)));
  if (v.k == GV_ADDR && gb_is_record_type(pt)) run_destructor(b, f, e, pt, v.path);
}

/* make_unique<T>(args) / make_shared<T>(args): a heap object, T's
 * constructor run on it; the value is the pointer the result holds. */
gval gb_make_smart(gb *b, gb_frame *f, CXCursor e) {
  CXType t = clang_Type_getTemplateArgumentAsType(clang_getCanonicalType(clang_getCursorType(e)), 0);
  int n = clang_Cursor_getNumArguments(e);
  gval v = heap_object(b, !gb_is_record_type(t));
  if (!gb_is_record_type(t)) {
    for (int i = 0; i < n; i++) gb_eval(b, f, clang_Cursor_getArgument(e, (unsigned)i));
    return v; /* a host scalar or array */
  }
  gb_set_dynamic_class(b, v.path, clang_getTypeDeclaration(clang_getCanonicalType(t)));
  CXCursor ctor = constructor_for(t, n);
  CXCursor def = clang_Cursor_isNull(ctor) ? ctor : program_definition(b->t, ctor);
  if (!gb_is_user_function(b, def)) {
    for (int i = 0; i < n; i++) gb_eval(b, f, clang_Cursor_getArgument(e, (unsigned)i));
    if (n > 0 || !clang_Cursor_isNull(ctor)) {
      char *ts = string_and_dispose(clang_getTypeSpelling(t));
      gb_note(b, e, "no user constructor of '%s' taking %d argument%s was found for this call: "
              "the members it sets are not followed", ts, n, n == 1 ? "" : "s");
      free(ts);
    }
    return v;
  }
  gval args[64];
  int na = gb_bind_call_args(b, f, e, def, 0, args, 64);
  b->this_path = v.path;
  gb_run_function(b, def, f, e, args, na, NULL);
  b->this_path = NULL;
  return v;
}

/* Default member initialisers (`size_t top = 0;` in the class): every
 * constructor applies them to the members its initialiser list leaves
 * out; applied first here, the list and the body then override them.
 * Member objects and bit-field widths are not initialisers to apply. */
void gb_default_members(gb *b, gb_frame *f, const char *obj, CXType t) {
  CXCursor decl = clang_getTypeDeclaration(clang_getCanonicalType(t));
  if (clang_Cursor_isNull(decl) || clang_Location_isInSystemHeader(clang_getCursorLocation(decl)))
    return;
  CXCursor *fl;
  int n = cursor_children_all(decl, &fl);
  for (int i = 0; i < n; i++) {
    if (clang_getCursorKind(fl[i]) != CXCursor_FieldDecl || clang_Cursor_isBitField(fl[i])) continue;
    CXType ft = clang_getCursorType(fl[i]);
    /* the initialiser follows the type's spelling, however long */
    CXCursor init = cursor_last_expr_child(fl[i]);
    char *field = string_and_dispose(clang_getCursorSpelling(fl[i]));
    if (gb_is_vector_type(ft) && clang_Cursor_isNull(init)) /* empty (Note [container elements]) */
      gb_store(b, gb_fmt(b, "%s.%s.@size", obj, field), gb_int(b, sym_const(b->a, 0), NULL, 0));
    if ((gb_is_record_type(ft) && !gb_is_smart_ptr(ft)) || clang_Cursor_isNull(init)) {
      free(field);
      continue;
    }
    gval v = gb_is_smart_ptr(ft) ? gb_smart_held(b, f, init, NULL) : gb_eval(b, f, init);
    gb_write_lvalue(b, gb_fmt(b, "%s.%s", obj, field), NULL, v);
    free(field);
  }
  free(fl);
}

/* A smart pointer's constructor (the object, when declared, is obj). */
gval gb_smart_construct(gb *b, gb_frame *f, CXCursor e, const char *obj) {
  int n = clang_Cursor_getNumArguments(e);
  gval held = gb_int(b, sym_const(b->a, 0), NULL, 0); /* empty: nullptr */
  if (n >= 1) {
    CXCursor a0 = clang_Cursor_getArgument(e, 0);
    CXType at = clang_getCursorType(a0);
    if (gb_is_smart_ptr(at)) {
      const char *src = NULL;
      held = gb_smart_held(b, f, a0, &src);
      /* a move leaves the source empty */
      CXCursor s = cursor_strip_casts(a0);
      if (src && !clang_equalCursors(s, strip_move(a0)))
        gb_store(b, src, gb_int(b, sym_const(b->a, 0), NULL, 0));
    } else if (cursor_is_pointer_type(at) || clang_getCanonicalType(at).kind == CXType_NullPtr) {
      held = gb_eval(b, f, a0);
    } else {
      gb_eval(b, f, a0);
      held = smart_unknown(b, clang_getCursorType(e));
      gb_note(b, e, "smart pointer constructed from a value tidal does not follow: the pointer "
              "it holds is unknown");
    }
    for (int i = 1; i < n; i++) { /* the deleter */
      CXCursor d = cursor_strip_casts(clang_Cursor_getArgument(e, (unsigned)i));
      if (clang_getCursorKind(d) == CXCursor_UnaryOperator &&
          clang_getCursorUnaryOperatorKind(d) == CXUnaryOperator_AddrOf) {
        CXCursor ch[1];
        if (cursor_children(d, ch, 1) == 1) d = cursor_strip_casts(ch[0]);
      }
      char *dn = clang_getCursorKind(d) == CXCursor_DeclRefExpr
                     ? string_and_dispose(clang_getCursorSpelling(clang_getCursorReferenced(d)))
                     : NULL;
      /* the rewriter replaces calls of cudaFree, not the function passed
       * as a value: the deleter would hand tidal's memory to cudaFree */
      if (dn && strncmp(dn, "cudaFree", 8) == 0)
        gb_note(b, d, "%s passed as a deleter is not replaced by tidal_free: the memory it "
                "frees is tidal's (use a lambda calling %s, which is rewritten)", dn, dn);
      free(dn);
      gb_eval(b, f, clang_Cursor_getArgument(e, (unsigned)i));
    }
  }
  if (obj) gb_write_lvalue(b, obj, NULL, held);
  return held;
}

/* A method of std::unique_ptr/std::shared_ptr (Note [smart pointers]): 1
 * and *out when e calls one. */
int gb_smart_method(gb *b, gb_frame *f, CXCursor e, CXCursor ref, gval *out) {
  int n = clang_Cursor_getNumArguments(e);
  int np = clang_Cursor_getNumArguments(ref);
  CXCursor obj;
  int first = 0;
  char *m = string_and_dispose(clang_getCursorSpelling(ref));
  if (strncmp(m, "operator", 8) == 0 && n == np + 1) {
    obj = clang_Cursor_getArgument(e, 0); /* operator calls list the object first */
    first = 1;
  } else {
    CXCursor ch[1], ob[1];
    if (cursor_children(e, ch, 1) < 1 || clang_getCursorKind(cursor_strip_casts(ch[0])) != CXCursor_MemberRefExpr ||
        cursor_children(cursor_strip_casts(ch[0]), ob, 1) < 1) {
      free(m);
      return 0;
    }
    obj = ob[0];
  }
  /* shared_ptr's get() is its base class's: the object is cast to it */
  if (!gb_is_smart_ptr(clang_getCursorType(obj)) &&
      !gb_is_smart_ptr(clang_getCursorType(cursor_strip_casts(obj)))) {
    free(m);
    return 0;
  }
  const char *key = NULL;
  gval held = gb_smart_held(b, f, obj, &key);
  *out = gb_none_val();
  if (strcmp(m, "get") == 0) {
    *out = held;
    out->text = gb_text(b, e);
  } else if (strcmp(m, "operator->") == 0) {
    *out = held;
    const char *t = NULL;
    int ok = 0;
    if (key) gb_lvalue(b, f, strip_move(obj), &t, &ok);
    out->text = t; /* `m->n_` as written */
    out->text_ok = ok;
  } else if (strcmp(m, "operator*") == 0) {
    if (held.k == GV_ADDR) *out = held; /* an object: read by address */
  } else if (strcmp(m, "release") == 0) {
    *out = held;
    if (key) gb_store(b, key, gb_int(b, sym_const(b->a, 0), NULL, 0));
  } else if (strcmp(m, "reset") == 0 || strcmp(m, "operator=") == 0) {
    gval nv = gb_int(b, sym_const(b->a, 0), NULL, 0);
    if (n > first) {
      CXCursor a = clang_Cursor_getArgument(e, (unsigned)first);
      if (gb_is_smart_ptr(clang_getCursorType(a))) {
        const char *src = NULL;
        nv = gb_smart_held(b, f, a, &src);
        if (src && !clang_equalCursors(cursor_strip_casts(a), strip_move(a)))
          gb_store(b, src, gb_int(b, sym_const(b->a, 0), NULL, 0));
      } else {
        nv = gb_eval(b, f, a);
      }
    }
    if (key) gb_write_lvalue(b, key, NULL, nv);
  } else if (strcmp(m, "swap") == 0 && n > first) {
    const char *k2 = NULL;
    gval other = gb_smart_held(b, f, clang_Cursor_getArgument(e, (unsigned)first), &k2);
    if (key && k2) {
      gb_store(b, key, other);
      gb_store(b, k2, held);
    } else {
      if (key) gb_store(b, key, smart_unknown(b, clang_getCursorType(obj)));
      if (k2) gb_store(b, k2, smart_unknown(b, clang_getCursorType(obj)));
    }
  } else {
    /* use_count, operator bool, ...: the held pointer is unchanged */
    for (int i = first; i < n; i++) gb_eval(b, f, clang_Cursor_getArgument(e, (unsigned)i));
    *out = gb_int(b, sym_unknown(b->a), NULL, 0);
  }
  free(m);
  return 1;
}

/* `*p` of a smart pointer to an object, as an lvalue: the object's path. */
const char *gb_smart_deref_path(gb *b, gb_frame *f, CXCursor e, const char **text, int *ok) {
  CXCursor ref = clang_getCursorReferenced(e);
  if (clang_getCursorKind(ref) != CXCursor_CXXMethod) return NULL;
  gval v;
  char *m = string_and_dispose(clang_getCursorSpelling(ref));
  int deref = strcmp(m, "operator*") == 0;
  free(m);
  if (!deref || !gb_smart_method(b, f, e, ref, &v) || v.k != GV_ADDR) return NULL;
  *text = v.text ? gb_fmt(b, "(*%s)", v.text) : NULL;
  *ok = v.text_ok;
  return gb_resolve_alias(b, v.path);
}
