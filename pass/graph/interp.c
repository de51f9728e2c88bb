/* interp.c - the host-code interpreter behind `tidal graph`: walks main()
 * in program order and every user function it calls, binding each callee's
 * parameters to the caller's argument values, so an op deep inside
 * wrappers is attributed at the training loop with the caller's
 * expressions substituted ("acts.fch + l*B*T*4*C").
 *
 * Design decisions:
 *  - Values (gval, interp.h) are integers (syms), device pointers
 *    (allocation + region + byte offset), addresses of host lvalues (paths
 *    into the store) and descriptors.  Every value carries its C text in
 *    the training loop's scope (loop context) so the rewriter can use it.
 *  - The store maps lvalue paths to values: "f3:acts.ln1" is field ln1 of
 *    local `acts` in frame 3, "g:B" a global.  A struct copied from another
 *    (`ActivationTensors acts = model->acts;`) becomes an alias of the
 *    original path rather than a copy: see Note [struct copies].
 *  - Variables of main() and of the training loop's function keep their
 *    names in syms (sym_var("B"), bound to 4 when the stored value is a
 *    constant), so sizes read "B*T*C*4"; variables of other functions are
 *    replaced by their values (substitution through the call chain).
 *  - Control flow is approximated: both branches of an if are walked
 *    (unless the condition is a known constant), loops before the training
 *    loop run when their trip count is a small constant and are walked once
 *    otherwise; inside the training loop, loops stay structural (one walk,
 *    the induction variable symbolic).  Recursion is walked once.
 *
 * The interpreter is split by topic (as clang's Sema is), the pieces
 * sharing interp_impl.h:
 *   interp.c         this overview; source text, ranges, locations, notes;
 *                    values and the type questions every piece asks
 *   interp_lvalue.c  lvalues: store keys, reading and writing them
 *   interp_expr.c    expressions (gb_eval, gb_eval_local), assignment
 *   interp_select.c  the conditional operator on an unknown condition
 *   interp_call.c    calls, user functions entered (gb_run_function)
 *   interp_cxx.c     C++ heap objects and smart pointers
 *   interp_container.c  std::vector sizes and elements
 *   interp_indirect.c   calls through function pointers and virtual methods;
 *                    loops dispatching a different function per iteration
 *   interp_device.c  the card a program asks about (device properties)
 *   interp_stmt.c    statements (gb_walk_stmt), declarations, initialisers
 *   interp_loop.c    loops: setup loops, graph loops, the training loop
 *   interp_branch.c  if statements: once, periodic and clamp branches
 * Notes live beside the code they explain: Note [struct copies] in
 * interp_expr.c, Note [loop-carried values] in interp_loop.c. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/interp_impl.h"

char *gb_text(gb *b, CXCursor c) {
  char *s = frontend_cursor_text(b->t, c);
  if (s && !*s) {
    /* An argument of a macro (cublasCheck(cublasSgemm(..., p, ...))): its
     * expansion range collapses to the macro's name, but it is spelled,
     * contiguous, in a project file. */
    CXSourceRange ext = clang_getCursorExtent(c);
    CXFile f1 = NULL, f2 = NULL;
    unsigned o1 = 0, o2 = 0;
    clang_getFileLocation(clang_getRangeStart(ext), &f1, NULL, NULL, &o1);
    clang_getFileLocation(clang_getRangeEnd(ext), &f2, NULL, NULL, &o2);
    const pass_tu *v = f1 && f2 && clang_File_isEqual(f1, f2) ? program_view_of_file(b->t, c, f1) : NULL;
    if (v && o1 < o2 && o2 <= v->main_size) {
      char *sp = malloc(o2 - o1 + 1);
      if (sp) {
        memcpy(sp, v->main_source + o1, o2 - o1);
        sp[o2 - o1] = '\0';
        free(s);
        s = sp;
      }
    }
  }
  char *r = gb_str(b, s ? s : "");
  free(s);
  return r;
}

/* Whole-program input: a range is editable in the file it is written in
 * (an input or a project header; r.file names it), never across files. */
graph_range gb_range(gb *b, CXCursor c, int stmt) {
  graph_range r = {0, 0, 0, -1};
  CXSourceRange ext = clang_getCursorExtent(c);
  CXFile f1, f2;
  unsigned o1, o2;
  clang_getExpansionLocation(clang_getRangeStart(ext), &f1, NULL, NULL, &o1);
  clang_getExpansionLocation(clang_getRangeEnd(ext), &f2, NULL, NULL, &o2);
  r.begin = o1;
  r.end = o2;
  const pass_tu *v = f1 ? program_view_of_file(b->t, c, f1) : NULL;
  if (v) r.file = v->file_index;
  /* Both ends written in one project file (a statement that merely starts
   * with a macro invocation such as CHECK(...) still is), and a range that
   * is not empty: a whole statement produced by one macro token collapses. */
  r.editable = v && f2 && clang_File_isEqual(f1, f2) && o1 < o2 && o2 <= v->main_size;
  if (r.editable && stmt) {
    size_t i = o2;
    const char *src = v->main_source;
    while (i < v->main_size && (src[i] == ' ' || src[i] == '\t')) i++;
    if (i < v->main_size && src[i] == ';' && (o2 == 0 || src[o2 - 1] != ';' ))
      r.end = (unsigned)i + 1;
  }
  return r;
}

void gb_location(gb *b, CXCursor c, char **file, unsigned *line, unsigned *col) {
  CXFile f;
  unsigned l, co;
  clang_getExpansionLocation(clang_getCursorLocation(c), &f, &l, &co, NULL);
  if (file) {
    char *name = f ? string_and_dispose(clang_getFileName(f)) : NULL;
    const pass_tu *v = f ? program_view_of_file(b->t, c, f) : NULL;
    if (v && v->is_unit) {
      free(name);
      name = strdup(v->main_path); /* an input: as given on the command line */
    }
    *file = name ? name : strdup("<unknown>");
  }
  if (line) *line = l;
  if (col) *col = co;
}

CXCursor gb_callee_decl(CXCursor call) {
  CXCursor r = clang_getCursorReferenced(call);
  if (clang_Cursor_isNull(r)) return r;
  enum CXCursorKind k = clang_getCursorKind(r);
  if (k != CXCursor_FunctionDecl && k != CXCursor_FunctionTemplate && k != CXCursor_CXXMethod)
    return clang_getNullCursor();
  return r;
}

char *gb_callee_name(CXCursor call) {
  CXCursor d = gb_callee_decl(call);
  if (clang_Cursor_isNull(d)) {
    /* Calls through function pointers and unresolved names. */
    CXString s = clang_getCursorSpelling(call);
    char *r = string_and_dispose(s);
    if (r && !*r) {
      free(r);
      return NULL;
    }
    return r;
  }
  return string_and_dispose(clang_getCursorSpelling(d));
}

void gb_note(gb *b, CXCursor at, const char *fmt, ...) {
  graph *g = b->g;
  graph_note *n = realloc(g->notes, (size_t)(g->n_notes + 1) * sizeof *n);
  if (!n) return;
  g->notes = n;
  graph_note *x = &g->notes[g->n_notes];
  memset(x, 0, sizeof *x);
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  /* The same note from a statement walked twice is reported once. */
  gb_location(b, at, &x->file, &x->line, &x->col);
  for (int i = 0; i < g->n_notes; i++)
    if (g->notes[i].line == x->line && g->notes[i].col == x->col &&
        strcmp(g->notes[i].message, buf) == 0) {
      free(x->file);
      return;
    }
  x->message = strdup(buf);
  g->n_notes++;
}

gval gb_int(gb *b, sym *s, const char *text, int ok) {
  gval v;
  memset(&v, 0, sizeof v);
  v.k = GV_INT;
  v.s = s ? s : sym_unknown(b->a);
  v.text = text;
  v.text_ok = ok;
  v.alloc = -1;
  v.region = -1;
  return v;
}

gval gb_none_val(void) {
  gval v;
  memset(&v, 0, sizeof v);
  v.k = GV_NONE;
  v.alloc = -1;
  v.region = -1;
  return v;
}

/* Wraps text in parentheses unless its precedence already binds tighter
 * than `need` (0 atom .. 3 other). */
const char *gb_paren(gb *b, const char *text, int prec, int need) {
  if (!text) return NULL;
  if (prec <= need) return text;
  return gb_fmt(b, "(%s)", text);
}

/* `x`, `x.y`, `p->y`, `a[3].b`: a variable reached through fields and
 * constant indices, the only names worth binding (and bindable with
 * --bind): not source text such as `*&x`, `dims[l + 1]` or a call. */
int gb_is_plain_lvalue_text(const char *s) {
  if (!s || !(isalpha((unsigned char)*s) || *s == '_')) return 0;
  while (*s) {
    if (isalnum((unsigned char)*s) || *s == '_' || *s == '.') {
      s++;
    } else if (s[0] == '-' && s[1] == '>') {
      s += 2;
    } else if (*s == '[') {
      s++;
      if (!isdigit((unsigned char)*s)) return 0;
      while (isdigit((unsigned char)*s)) s++;
      if (*s++ != ']') return 0;
    } else {
      return 0;
    }
  }
  return 1;
}

int gb_is_record_type(CXType t) {
  t = clang_getCanonicalType(t);
  return t.kind == CXType_Record;
}

int gb_is_array_type(CXType t) {
  t = clang_getCanonicalType(t);
  return t.kind == CXType_ConstantArray || t.kind == CXType_IncompleteArray ||
         t.kind == CXType_VariableArray;
}

/* A compile-time integer value of an expression cursor, if clang can fold it. */
int gb_is_global_var(CXCursor decl) {
  CXCursor p = clang_getCursorSemanticParent(decl);
  enum CXCursorKind k = clang_getCursorKind(p);
  return k == CXCursor_TranslationUnit || k == CXCursor_Namespace ||
         k == CXCursor_LinkageSpec;
}

int gb_int_value_const(gb *b, const gval *v, int64_t *out) {
  if (!v || v->k != GV_INT) return 0;
  return sym_eval(v->s, bind_value_fn, &b->g->binds, out) == 0;
}

/* 1 if name was bound, when read earlier, to a constant other than c: the
 * variable was written since (`top += bytes` in a setup call).  Rebinding
 * it would move every earlier read (the first block's offset) to the new
 * value, so this read is the constant itself. */
static int const_rebound(gb *b, const char *name, int64_t c) {
  const graph_bindings *bs = &b->g->binds;
  for (int i = 0; i < bs->n; i++)
    if (strcmp(bs->items[i].name, name) == 0)
      return bs->items[i].source == BIND_CONST && bs->items[i].value != c;
  return 0;
}

/* An integer read from a name-keeping place (main's or the loop function's
 * variables, globals): the name, bound when its value is constant. */
gval gb_named_int(gb *b, const char *name, const gval *stored, int is_const_decl) {
  int64_t c;
  /* an unknown the loop carries stays that (not the symbol `name`, which
   * reads as one loop-invariant value) */
  if (stored && (stored->ind || stored->carried)) {
    gval v = *stored;
    v.text = gb_str(b, name);
    v.text_ok = 1;
    v.prec = 0;
    return v;
  }
  if (stored && stored->k == GV_INT && gb_int_value_const(b, stored, &c)) {
    if (gb_is_plain_lvalue_text(name) && !const_rebound(b, name, c)) {
      bind_set(&b->g->binds, name, c, BIND_CONST);
      return gb_int(b, sym_var(b->a, name), gb_str(b, name), 1);
    }
    return gb_int(b, sym_const(b->a, c), gb_str(b, name), 1);
  }
  if (stored && stored->k == GV_INT && !sym_is_unknown(stored->s) && !is_const_decl) {
    gval v = *stored;
    v.text = gb_str(b, name);
    v.text_ok = 1;
    v.prec = 0;
    return v;
  }
  return gb_int(b, sym_var(b->a, name), gb_str(b, name), 1);
}

/* 1 if name occurs in s. */
int gb_sym_mentions(const sym *s, const char *name) {
  if (!s) return 0;
  if (sym_get_kind(s) == SYM_VAR) return strcmp(sym_var_name(s), name) == 0;
  return gb_sym_mentions(sym_lhs(s), name) || gb_sym_mentions(sym_rhs(s), name);
}
