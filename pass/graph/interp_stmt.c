/* interp_stmt.c - statements: gb_walk_stmt dispatches each statement
 * kind, declarations with their initialisers (designated initialisers,
 * Note [designated initialisers]; constructors), blocks in order.  Loops
 * are interp_loop.c's, if statements interp_branch.c's. */
#include <stdlib.h>
#include <string.h>

#include "graph/interp_impl.h"
#include "base/stack.h"

/* Note [designated initialisers]: libclang shows `.f = v`, `.f.g = v` and
 * `[k] = v` in an initialiser list as an UnexposedExpr whose children are
 * the designators (MemberRefs, or the index expression) and then the
 * value.  Such an element names where it goes; the elements after it
 * continue from there (C11 6.7.9), so a list written out of declaration
 * order (`{.n_layer = 12, .vocab = 50257}`) lands field by field. */

/* The leading MemberRefs of a designated struct element (0 for a plain
 * element); *value: the element's value. */
static int field_designators(CXCursor el, CXCursor *value, CXCursor **kids) {
  *value = el;
  *kids = NULL;
  if (clang_getCursorKind(el) != CXCursor_UnexposedExpr) return 0;
  int n = cursor_children_all(el, kids);
  int m = 0;
  while (m < n && clang_getCursorKind((*kids)[m]) == CXCursor_MemberRef) m++;
  if (m == 0 || m + 1 != n || !clang_isExpression(clang_getCursorKind((*kids)[m]))) {
    free(*kids);
    *kids = NULL;
    return 0;
  }
  *value = (*kids)[m];
  return m;
}

/* The index of a designated array element `[k] = v` (-1 for a plain
 * element); *value: the element's value. */
static int64_t index_designator(CXCursor el, CXCursor *value) {
  *value = el;
  CXCursor ch[2];
  int64_t k;
  if (clang_getCursorKind(el) != CXCursor_UnexposedExpr || cursor_children(el, ch, 2) != 2 ||
      !clang_isExpression(clang_getCursorKind(ch[1])) || !cursor_eval_int(ch[0], &k) || k < 0)
    return -1;
  *value = ch[1];
  return k;
}

/* Note [zero-filled members]: an aggregate initialiser that leaves
 * members out (`layer l = {0};`, `Config c = {.n = 4};`, `T t = {};`)
 * zero-initialises them (C11 6.7.9p21, C++ aggregate initialisation).
 * C frameworks rely on it: a layer without parameters keeps its update
 * entry point NULL, tested before the call (`if (l.update) l.update(l)`),
 * and a NULL pointer read as unknown would run some other layer's update.
 * So integer and pointer members left out are stored as 0, nested
 * structs member by member; arrays are left alone.  A C++ member with a
 * default member initialiser (`int n = 1024;`) gets that value, not 0:
 * `Cfg c = {};` leaves it as the class says. */
static void zero_fill(gb *b, gb_frame *f, const char *key, CXType ty, int depth);

static void fill_member(gb *b, gb_frame *f, const char *key, CXCursor field, int depth) {
  CXType ft = clang_getCursorType(field);
  CXCursor init = clang_Cursor_isBitField(field) ? clang_getNullCursor() : cursor_last_expr_child(field);
  if (clang_Cursor_isNull(init)) {
    zero_fill(b, f, key, ft, depth);
    return;
  }
  if (gb_is_record_type(ft) && !gb_is_smart_ptr(ft)) return; /* a member object: not followed */
  gval v = gb_is_smart_ptr(ft) ? gb_smart_held(b, f, init, NULL) : gb_eval(b, f, init);
  gb_write_lvalue(b, key, NULL, v);
}

static void zero_fill(gb *b, gb_frame *f, const char *key, CXType ty, int depth) {
  CXType t = clang_getCanonicalType(ty);
  if (t.kind == CXType_Pointer || t.kind == CXType_Enum ||
      (t.kind >= CXType_Bool && t.kind <= CXType_Int128)) {
    gb_store(b, key, gb_int(b, sym_const(b->a, 0), NULL, 0));
    return;
  }
  if (t.kind != CXType_Record || depth > 4 || gb_is_smart_ptr(t)) return;
  CXCursor decl = clang_getTypeDeclaration(t);
  if (clang_Location_isInSystemHeader(clang_getCursorLocation(decl))) return;
  CXCursor *fl;
  int nf = cursor_children_all(decl, &fl);
  for (int i = 0; i < nf; i++) {
    if (clang_getCursorKind(fl[i]) != CXCursor_FieldDecl) continue;
    char *fname = string_and_dispose(clang_getCursorSpelling(fl[i]));
    fill_member(b, f, gb_fmt(b, "%s.%s", key, fname), fl[i], depth + 1);
    free(fname);
  }
  free(fl);
}

/* Stores an initialiser into key (written `name` in the source):
 * aggregate initialisers element by element and field by field, nested
 * (`Spec t[] = {{(void **)&a->x, n}, ...}`: a table of addresses a carving
 * loop stores through), designators followed (Note [designated
 * initialisers]), other values as evaluated (a struct copy aliases, Note
 * [struct copies]).  Every element is read, however many. */
void gb_init_store(gb *b, gb_frame *f, const char *key, const char *name, CXType ty, CXCursor init,
                   int depth) {
  CXCursor si = cursor_strip_casts(init);
  int list = depth < 8 && clang_getCursorKind(si) == CXCursor_InitListExpr;
  CXCursor *el = NULL, *fl = NULL;
  int m = list ? cursor_children_all(si, &el) : 0;
  if (list && gb_is_array_type(ty)) {
    CXType et = clang_getArrayElementType(clang_getCanonicalType(ty));
    int64_t at = 0;
    for (int i = 0; i < m; i++, at++) {
      CXCursor v;
      int64_t k = index_designator(el[i], &v);
      if (k >= 0) at = k;
      gb_init_store(b, f, gb_fmt(b, "%s[%lld]", key, (long long)at),
                    gb_fmt(b, "%s[%lld]", name, (long long)at), et, v, depth + 1);
    }
  } else if (list && gb_is_record_type(ty)) {
    /* aggregate init of a struct: fields in declaration order */
    CXCursor decl = clang_getTypeDeclaration(clang_getCanonicalType(ty));
    int nf = cursor_children_all(decl, &fl), fi = 0;
    /* members the list leaves out are zero (Note [zero-filled members]):
     * first all, then the list's elements over them */
    if (!clang_Location_isInSystemHeader(clang_getCursorLocation(decl)))
      for (int i = 0; i < nf; i++) {
        if (clang_getCursorKind(fl[i]) != CXCursor_FieldDecl) continue;
        char *fname = string_and_dispose(clang_getCursorSpelling(fl[i]));
        fill_member(b, f, gb_fmt(b, "%s.%s", key, fname), fl[i], depth + 1);
        free(fname);
      }
    for (int i = 0; i < m; i++) {
      CXCursor v, *ds;
      int nd = field_designators(el[i], &v, &ds);
      if (nd > 0) {
        /* `.f.g = v`: the path the designators spell; positions go on after f */
        char *top = string_and_dispose(clang_getCursorSpelling(ds[0]));
        for (fi = 0; fi < nf; fi++) {
          if (clang_getCursorKind(fl[fi]) != CXCursor_FieldDecl) continue;
          char *fname = string_and_dispose(clang_getCursorSpelling(fl[fi]));
          int same = fname && top && strcmp(fname, top) == 0;
          free(fname);
          if (same) break;
        }
        free(top);
        const char *k = key, *t = name;
        for (int d = 0; d < nd; d++) {
          char *fname = string_and_dispose(clang_getCursorSpelling(ds[d]));
          k = gb_fmt(b, "%s.%s", k, fname);
          t = gb_fmt(b, "%s.%s", t, fname);
          free(fname);
        }
        CXType ft = clang_getCursorType(clang_getCursorReferenced(ds[nd - 1]));
        free(ds);
        if (fi < nf) fi++;
        gb_init_store(b, f, k, t, ft, v, depth + 1);
        continue;
      }
      while (fi < nf && clang_getCursorKind(fl[fi]) != CXCursor_FieldDecl) fi++;
      if (fi >= nf) break;
      CXType ft = clang_getCursorType(fl[fi]);
      char *fname = string_and_dispose(clang_getCursorSpelling(fl[fi++]));
      gb_init_store(b, f, gb_fmt(b, "%s.%s", key, fname), gb_fmt(b, "%s.%s", name, fname), ft,
                    el[i], depth + 1);
      free(fname);
    }
  } else {
    /* `Relu relu(4096);`: a user constructor runs on the object (Note [C++ objects]) */
    if (gb_is_record_type(ty)) b->this_path = key;
    if (gb_makes_heap_object(init)) b->new_name = name; /* Note [heap objects] */
    int smart = gb_is_smart_ptr(ty);
    gval v = smart ? gb_smart_held(b, f, init, NULL) : gb_eval(b, f, init);
    b->this_path = NULL;
    b->new_name = NULL;
    if (gb_is_record_type(ty) && !smart && v.k == GV_ADDR &&
        gb_returned_struct(b, f, gb_canon(b, v.path))) {
      gb_copy_struct(b, key, v.path); /* Note [struct copies]: a returned struct */
    } else {
      if (gb_is_record_type(ty) && !smart && v.k == GV_ADDR) v.k = GV_ALIAS;
      gb_write_lvalue(b, key, name, v);
    }
  }
  free(el);
  free(fl);
}

void gb_walk_decl(gb *b, gb_frame *f, CXCursor vd) {
  char *name = string_and_dispose(clang_getCursorSpelling(vd));
  const char *key = gb_var_key(b, f, vd, name);
  CXType ty = clang_getCursorType(vd);
  /* the initialiser follows the type's spelling, however long */
  CXCursor init = cursor_last_expr_child(vd);
  const char *text = gb_str(b, name);
  int keep = f && f->keep_names;
  (void)keep;
  const char *ref = NULL, *rtext = NULL;
  int rok = 0;
  if (!clang_Cursor_isNull(init) &&
      (ty.kind == CXType_LValueReference || ty.kind == CXType_RValueReference))
    ref = gb_lvalue(b, f, init, &rtext, &rok);
  if (ref) {
    /* `Block &blk = model.h[l];`: the name is the element itself, so writes
     * through it land there and reads see what setup stored (not a copy) */
    gval a = gb_none_val();
    a.k = GV_ALIAS;
    a.path = ref;
    a.index = b->lv_index;
    a.text = rtext;
    a.text_ok = rok;
    gb_store(b, key, a);
  } else if (!clang_Cursor_isNull(init)) {
    gb_init_store(b, f, key, text, ty, init, 0);
  } else if (gb_lookup(b, key)) {
    /* a declaration without initialiser re-entered (loop body): forget */
    gb_store(b, key, gb_none_val());
  }
  free(name);
}

/* A block's statements in order.  Its own function so that the cursor
 * array stays out of gb_walk_stmt's frame, which every nesting level of
 * an unbraced if/for/while pays (base/stack.h). */
static void walk_compound(gb *b, gb_frame *f, CXCursor s) {
  CXCursor ch[64];
  int n = cursor_children(s, ch, 64);
  CXCursor *all = ch;
  CXCursor *heap = NULL;
  if (n > 64) {
    heap = malloc((size_t)n * sizeof *heap);
    if (!heap) return;
    cursor_children(s, heap, n);
    all = heap;
  }
  for (int i = 0; i < n; i++) {
    b->cur_stmt = all[i];
    b->have_stmt = 1;
    gb_walk_stmt(b, f, all[i]);
    b->cur_stmt = all[i];
    b->have_stmt = 1;
  }
  free(heap);
}

void gb_walk_stmt(gb *b, gb_frame *f, CXCursor s) {
  b->steps++;
  if (stack_too_deep(s, "statement")) return;
  /* Statement cursors reached along different paths differ in their
   * parent data: compare kind and extent instead of clang_equalCursors. */
  if (!clang_Cursor_isNull(b->train_loop) && b->mode == GB_SETUP &&
      clang_getCursorKind(s) == clang_getCursorKind(b->train_loop) &&
      clang_equalRanges(clang_getCursorExtent(s), clang_getCursorExtent(b->train_loop))) {
    gb_walk_train_loop(b, f, s);
    return;
  }
  enum CXCursorKind k = clang_getCursorKind(s);
  if (clang_isExpression(k)) {
    gb_eval(b, f, s);
    return;
  }
  switch (k) {
  case CXCursor_CompoundStmt:
    walk_compound(b, f, s);
    return;
  case CXCursor_VarDecl: /* a condition variable (Note [condition variables]) */
    gb_walk_decl(b, f, s);
    return;
  case CXCursor_DeclStmt: { /* `size_t a = .., b = .., ...`: every declarator */
    CXCursor *ch;
    int n = cursor_children_all(s, &ch);
    for (int i = 0; i < n; i++)
      if (clang_getCursorKind(ch[i]) == CXCursor_VarDecl) gb_walk_decl(b, f, ch[i]);
    free(ch);
    return;
  }
  case CXCursor_ForStmt:
    gb_walk_for(b, f, s);
    return;
  case CXCursor_WhileStmt:
  case CXCursor_DoStmt: {
    /* do: body, condition; while: [condition variable] condition, body */
    CXCursor first = cursor_first_child(s), last = cursor_last_child(s);
    if (clang_Cursor_isNull(first)) return;
    CXCursor body = k == CXCursor_DoStmt ? first : last;
    /* `do { ... } while (0)` (check macros) runs once: not a loop */
    int64_t cv = 1;
    CXCursor cond = k == CXCursor_DoStmt ? last : first;
    if (!clang_equalCursors(first, last) && clang_isExpression(clang_getCursorKind(cond)) &&
        cursor_eval_int(cond, &cv) && cv == 0) {
      if (k == CXCursor_DoStmt) gb_walk_stmt(b, f, body);
      return;
    }
    /* `while (T *p = next())`: declared anew each iteration, before the body */
    CXCursor cv_decl = k == CXCursor_WhileStmt && clang_getCursorKind(first) == CXCursor_VarDecl
                           ? first : clang_getNullCursor();
    if (b->mode == GB_GRAPH) {
      int id = b->h->graph_loop(b, f, s, body, NULL, NULL, NULL, 0, NULL);
      gb_forget_carried(b, f, s, NULL, clang_getNullCursor());
      gb_walk_graph_loop_body(b, f, id, cv_decl, body);
    } else {
      b->once_depth++;
      if (!clang_Cursor_isNull(cv_decl)) gb_walk_decl(b, f, cv_decl);
      gb_walk_stmt(b, f, body);
      b->once_depth--;
    }
    return;
  }
  case CXCursor_CXXForRangeStmt:
    gb_walk_range_for(b, f, s);
    return;
  case CXCursor_IfStmt:
    gb_walk_if(b, f, s);
    return;
  case CXCursor_ReturnStmt: {
    CXCursor ch[1];
    if (cursor_children(s, ch, 1) == 1) f->ret = gb_eval(b, f, ch[0]);
    return;
  }
  case CXCursor_BreakStmt:
  case CXCursor_ContinueStmt:
  case CXCursor_NullStmt:
  case CXCursor_GotoStmt:
    return;
  default: { /* every child, however many (a try with its handlers, a switch's cases) */
    CXCursor *ch;
    int n = cursor_children_all(s, &ch);
    for (int i = 0; i < n; i++) gb_walk_stmt(b, f, ch[i]);
    free(ch);
    return;
  }
  }
}
