/* interp_container.c - the elements of std::vector (Note [container
 * elements]): push_back/emplace_back store them, `v[i]`/`v.at(i)`/
 * front()/back() name them, size() counts them, and a range-for over a
 * vector of known size visits each (interp_loop.c).
 *
 * Note [container elements]
 * C++ trainers keep their layers in `std::vector<std::unique_ptr<Layer>>`
 * (or `vector<Layer *>`, `vector<shared_ptr<Layer>>`), filled by
 * push_back in a constructor, and carve parameter arenas through tables
 * (`std::vector<Slot>` of {float **slot, size_t n}) summed and walked by
 * range-fors.  The interpreter keeps a vector as an array in the store:
 * element k at "V[k]" (V the vector's own path), its count at "V.@size".
 *  - A vector constructed empty (declared, a member without initialiser)
 *    has size 0; `v(n)` has size n (elements unknown); clear() 0,
 *    resize(n) n, pop_back() one less; reserve(), capacity() and the
 *    other queries change nothing.  Any other mutator (insert, erase,
 *    assign, a copy) makes the size unknown.
 *  - push_back(x)/emplace_back(x) with the size a known constant k store
 *    x at "V[k]" as the element's type is stored (a braced `{&w[l], n}`
 *    field by field, a struct copied, a smart pointer the pointer it
 *    holds, a `new T` named after the element) and make the size k + 1.
 *    emplace_back of several arguments runs the element's constructor on
 *    "V[k]".  With the size unknown, in a setup loop walked once for all
 *    its iterations (b->once_depth), or inside the training loop, the
 *    element is not stored and the size becomes unknown.
 *  - `v[i]`, `v.at(i)` are lvalues "V[i]" (a symbolic i as an array's
 *    "V[?]", elements.c), written `v[i]`; front() is "V[0]", back()
 *    "V[size-1]" when the size is known.
 *  - A range-for over a vector whose size is a known constant walks its
 *    body once per element with the loop variable bound to it (a
 *    reference: the element itself; a copy: its value), before the
 *    training loop as a setup loop (bounded by GB_MAX_SETUP_UNROLL) and
 *    inside it as a dispatch loop (interp_indirect.c, Note [dispatch
 *    loops]; at most GB_MAX_DISPATCH_UNROLL elements).
 * Other containers (std::array, std::deque, std::list, maps) are not
 * followed: their elements read as unknown, as before. */
#include <stdlib.h>
#include <string.h>

#include "graph/interp_impl.h"

/* std::vector<...> (libstdc++ or libc++), const or a reference to one. */
int gb_is_vector_type(CXType t) {
  t = clang_getCanonicalType(t);
  if (t.kind == CXType_LValueReference || t.kind == CXType_RValueReference)
    t = clang_getCanonicalType(clang_getPointeeType(t));
  char *sp = string_and_dispose(clang_getTypeSpelling(t));
  const char *s = sp ? sp : "";
  if (strncmp(s, "const ", 6) == 0) s += 6;
  int r = 0;
  if (strncmp(s, "std::", 5) == 0) {
    s += 5;
    if (strncmp(s, "__1::", 5) == 0) s += 5;
    r = strncmp(s, "vector<", 7) == 0;
  }
  free(sp);
  return r;
}

/* The element type of vector type t. */
static CXType element_type(CXType t) {
  t = clang_getCanonicalType(t);
  if (t.kind == CXType_LValueReference || t.kind == CXType_RValueReference)
    t = clang_getCanonicalType(clang_getPointeeType(t));
  return clang_Type_getTemplateArgumentAsType(t, 0);
}

static char *method_name(CXCursor ref) {
  return string_and_dispose(clang_getCursorSpelling(ref));
}

/* The object a vector method call e is made on, or a null cursor: an
 * operator call lists it as its first argument, a member call under its
 * MemberRefExpr (none: the method's own object, implicit this). */
static CXCursor call_object(CXCursor e, CXCursor ref, int *first_arg, int *implicit) {
  int n = clang_Cursor_getNumArguments(e), np = clang_Cursor_getNumArguments(ref);
  *first_arg = 0;
  *implicit = 0;
  char *m = method_name(ref);
  int op = m && strncmp(m, "operator", 8) == 0 && n == np + 1;
  free(m);
  if (op) {
    *first_arg = 1;
    return clang_Cursor_getArgument(e, 0);
  }
  CXCursor ch[1], ob[1];
  if (cursor_children(e, ch, 1) < 1) return clang_getNullCursor();
  CXCursor callee = cursor_strip_casts(ch[0]);
  if (clang_getCursorKind(callee) != CXCursor_MemberRefExpr) return clang_getNullCursor();
  if (cursor_children(callee, ob, 1) < 1) {
    *implicit = 1;
    return clang_getNullCursor();
  }
  return ob[0];
}

/* The path and text of the vector a method call is made on. */
static const char *vector_of_call(gb *b, gb_frame *f, CXCursor e, CXCursor ref, const char **text,
                                  int *ok, int *first_arg) {
  int implicit;
  *text = NULL;
  *ok = 0;
  CXCursor obj = call_object(e, ref, first_arg, &implicit);
  if (implicit) return NULL; /* a method of the vector itself: not the program's */
  if (clang_Cursor_isNull(obj)) return NULL;
  if (cursor_is_pointer_type(clang_getCursorType(obj))) { /* `p->push_back(x)` */
    gval v = gb_eval(b, f, obj);
    if (v.text) *text = gb_fmt(b, "(*%s)", v.text);
    *ok = v.text_ok;
    return v.k == GV_ADDR ? gb_resolve_alias(b, v.path) : NULL;
  }
  const char *key = gb_lvalue(b, f, obj, text, ok);
  return key ? gb_resolve_alias(b, key) : NULL;
}

int gb_vector_element_call(CXCursor e, CXCursor *ref_out) {
  if (clang_getCursorKind(e) != CXCursor_CallExpr) return 0;
  CXCursor ref = clang_getCursorReferenced(e);
  if (clang_getCursorKind(ref) != CXCursor_CXXMethod) return 0;
  if (!gb_is_vector_type(clang_getCursorType(clang_getCursorSemanticParent(ref)))) return 0;
  char *m = method_name(ref);
  int r = m && (!strcmp(m, "operator[]") || !strcmp(m, "at") || !strcmp(m, "front") ||
                !strcmp(m, "back"));
  free(m);
  if (r && ref_out) *ref_out = ref;
  return r;
}

const char *gb_vector_element_lvalue(gb *b, gb_frame *f, CXCursor e, const char **text, int *ok,
                                     sym **idx_out) {
  CXCursor ref;
  *text = NULL;
  *ok = 0;
  *idx_out = NULL;
  if (!gb_vector_element_call(e, &ref)) return NULL;
  const char *vt;
  int vok, first;
  const char *vk = vector_of_call(b, f, e, ref, &vt, &vok, &first);
  char *m = method_name(ref);
  gval idx = gb_none_val();
  if (m && (!strcmp(m, "operator[]") || !strcmp(m, "at"))) {
    if (clang_Cursor_getNumArguments(e) > first)
      idx = gb_eval(b, f, clang_Cursor_getArgument(e, (unsigned)first));
  } else if (m && !strcmp(m, "front")) {
    idx = gb_int(b, sym_const(b->a, 0), "0", 1);
  } else if (vk) { /* back() */
    gval *sz = gb_lookup(b, gb_fmt(b, "%s.@size", vk));
    int64_t n;
    if (sz && gb_int_value_const(b, sz, &n) && n > 0)
      idx = gb_int(b, sym_const(b->a, n - 1), gb_fmt(b, "%lld", (long long)(n - 1)), 1);
  }
  free(m);
  if (!vk || idx.k != GV_INT || !idx.s || sym_is_unknown(idx.s)) return NULL;
  int64_t c;
  const char *res;
  if (gb_int_value_const(b, &idx, &c) && !idx.carried) {
    res = gb_fmt(b, "%s[%lld]", vk, (long long)c);
    if (vt && (b->mode == GB_SETUP || idx.ind)) *text = gb_fmt(b, "%s[%lld]", vt, (long long)c);
    else if (vt && idx.text) *text = gb_fmt(b, "%s[%s]", vt, idx.text);
  } else {
    res = gb_fmt(b, "%s[?]", vk);
    *idx_out = idx.carried ? NULL : idx.s; /* elements.c reads it */
    if (vt && idx.text) *text = gb_fmt(b, "%s[%s]", vt, idx.text);
  }
  *ok = vok && idx.text_ok;
  return gb_resolve_alias(b, res);
}

/* Stores an element built from argument a (of a push_back/emplace_back)
 * at key, written text, of element type t. */
static void store_element(gb *b, gb_frame *f, const char *key, const char *text, CXType t,
                          CXCursor a) {
  CXCursor s = cursor_strip_casts(a);
  if (gb_makes_heap_object(a)) b->new_name = text; /* `new Linear(...)` named `layers_[0]` */
  if (gb_is_smart_ptr(t)) {
    const char *src = NULL;
    gval held = gb_smart_held(b, f, a, &src);
    b->new_name = NULL;
    gb_write_lvalue(b, key, text, held);
    return;
  }
  if (gb_is_record_type(t) && clang_getCursorKind(s) == CXCursor_InitListExpr) {
    gb_init_store(b, f, key, text, t, s, 0); /* `table.push_back({&w[l], nw})` */
    return;
  }
  gval v = gb_eval(b, f, a);
  b->new_name = NULL;
  if (gb_is_record_type(t)) {
    if (v.k == GV_ADDR && v.path) gb_copy_struct(b, key, v.path); /* the container's own copy */
    else gb_store(b, key, gb_none_val());
    return;
  }
  gb_write_lvalue(b, key, text, v);
}

/* A method of a std::vector the program calls on one of its vectors: 1
 * and *out if handled here (the size and elements, Note [container
 * elements]); 0 to evaluate it as any other call. */
int gb_vector_method(gb *b, gb_frame *f, CXCursor e, CXCursor ref, gval *out) {
  if (!gb_is_vector_type(clang_getCursorType(clang_getCursorSemanticParent(ref)))) return 0;
  *out = gb_none_val();
  if (gb_vector_element_call(e, NULL)) {
    const char *text;
    int ok;
    const char *key = gb_lvalue(b, f, e, &text, &ok);
    CXType t = clang_getCursorType(e);
    if (t.kind == CXType_LValueReference || t.kind == CXType_RValueReference)
      t = clang_getPointeeType(t);
    *out = gb_read_lvalue(b, f, key, t, text, ok);
    return 1;
  }
  char *m = method_name(ref);
  if (!m) return 0;
  const char *vt;
  int vok, first;
  const char *vk = vector_of_call(b, f, e, ref, &vt, &vok, &first);
  int n = clang_Cursor_getNumArguments(e);
  const char *size_key = vk ? gb_fmt(b, "%s.@size", vk) : NULL;
  gval *sz = size_key ? gb_lookup(b, size_key) : NULL;
  int64_t k = -1;
  int known = sz && gb_int_value_const(b, sz, &k) && k >= 0;
  int handled = 1;
  if (!strcmp(m, "size")) {
    *out = sz ? *sz : gb_none_val();
  } else if (!strcmp(m, "push_back") || !strcmp(m, "emplace_back")) {
    CXType et = element_type(clang_getCursorType(clang_getCursorSemanticParent(ref)));
    int nargs = n - first;
    /* a loop walked once for all its iterations, or the training loop's
     * body (every step), runs it an unknown number of times */
    if (known && k < GB_MAX_SETUP_UNROLL && nargs >= 1 && b->once_depth == 0 &&
        b->mode == GB_SETUP) {
      const char *key = gb_fmt(b, "%s[%lld]", vk, (long long)k);
      const char *text = vt ? gb_fmt(b, "%s[%lld]", vt, (long long)k) : key;
      if (nargs == 1 && (!gb_is_record_type(et) || gb_is_smart_ptr(et) ||
                         gb_is_record_type(clang_getCursorType(clang_Cursor_getArgument(e, (unsigned)first))) ||
                         clang_getCursorKind(cursor_strip_casts(clang_Cursor_getArgument(e, (unsigned)first))) ==
                             CXCursor_InitListExpr))
        store_element(b, f, key, text, et, clang_Cursor_getArgument(e, (unsigned)first));
      else if (!gb_construct_at(b, f, e, first, et, key)) /* emplace_back(args...) */
        gb_store(b, key, gb_none_val());
      gb_store(b, size_key, gb_int(b, sym_const(b->a, k + 1), NULL, 0));
    } else {
      for (int i = first; i < n; i++) gb_eval(b, f, clang_Cursor_getArgument(e, (unsigned)i));
      if (size_key) gb_store(b, size_key, gb_none_val());
    }
  } else if (!strcmp(m, "clear")) {
    if (size_key) gb_store(b, size_key, gb_int(b, sym_const(b->a, 0), NULL, 0));
  } else if (!strcmp(m, "pop_back")) {
    if (size_key)
      gb_store(b, size_key, known && k > 0 ? gb_int(b, sym_const(b->a, k - 1), NULL, 0)
                                           : gb_none_val());
  } else if (!strcmp(m, "resize")) {
    gval c = n > first ? gb_eval(b, f, clang_Cursor_getArgument(e, (unsigned)first)) : gb_none_val();
    for (int i = first + 1; i < n; i++) gb_eval(b, f, clang_Cursor_getArgument(e, (unsigned)i));
    if (size_key) gb_store(b, size_key, c.k == GV_INT ? c : gb_none_val());
  } else if (!strcmp(m, "reserve") || !strcmp(m, "capacity") || !strcmp(m, "empty") ||
             !strcmp(m, "data") || !strcmp(m, "begin") || !strcmp(m, "end") ||
             !strcmp(m, "cbegin") || !strcmp(m, "cend") || !strcmp(m, "rbegin") ||
             !strcmp(m, "rend") || !strcmp(m, "shrink_to_fit") || !strcmp(m, "max_size")) {
    for (int i = first; i < n; i++) gb_eval(b, f, clang_Cursor_getArgument(e, (unsigned)i));
    if (!strcmp(m, "empty") && known) *out = gb_int(b, sym_const(b->a, k == 0), NULL, 0);
  } else {
    handled = 0; /* insert, erase, assign, operator=: the size is not followed */
    if (size_key) gb_store(b, size_key, gb_none_val());
  }
  free(m);
  return handled;
}

/* The count of the vector range-for s iterates, when it is a known
 * constant: its path and text in *vk and *vt. */
int gb_range_for_vector(gb *b, gb_frame *f, CXCursor range, const char **vk, const char **vt,
                        int *vok, int64_t *count) {
  *vk = *vt = NULL;
  *vok = 0;
  if (!gb_is_vector_type(clang_getCursorType(range))) return 0;
  CXCursor r = cursor_strip_casts(range);
  const char *key;
  if (cursor_is_pointer_type(clang_getCursorType(r))) return 0;
  key = gb_lvalue(b, f, r, vt, vok);
  if (!key) return 0;
  key = gb_resolve_alias(b, key);
  gval *sz = gb_lookup(b, gb_fmt(b, "%s.@size", key));
  if (!sz || !gb_int_value_const(b, sz, count) || *count < 0) return 0;
  *vk = key;
  return 1;
}

/* Binds range-for variable vd to element k of the vector at vk. */
void gb_bind_range_element(gb *b, gb_frame *f, CXCursor vd, const char *vk, const char *vt,
                           int vok, int64_t k) {
  char *name = string_and_dispose(clang_getCursorSpelling(vd));
  const char *key = gb_var_key(b, f, vd, name);
  CXType ty = clang_getCursorType(vd);
  const char *ek = gb_resolve_alias(b, gb_fmt(b, "%s[%lld]", vk, (long long)k));
  const char *et = vt ? gb_fmt(b, "%s[%lld]", vt, (long long)k) : NULL;
  if (ty.kind == CXType_LValueReference || ty.kind == CXType_RValueReference ||
      (gb_is_record_type(ty) && !gb_is_smart_ptr(ty))) {
    /* the element itself (a copy: Note [struct copies], an alias until written) */
    gval a = gb_none_val();
    a.k = GV_ALIAS;
    a.path = ek;
    a.text = et;
    a.text_ok = vok;
    gb_store(b, key, a);
  } else {
    gval *st = gb_lookup(b, ek);
    gval v = st ? *st : gb_none_val();
    v.text = et;
    v.text_ok = vok;
    gb_store(b, key, v);
  }
  free(name);
}
