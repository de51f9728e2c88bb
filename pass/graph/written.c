/* written.c - the file-scope variables some code of the program may write.
 *
 * Note [mutable globals]
 * C trainers keep sizes in mutable globals: `long long vocab_size = 0,
 * layer1_size = 100;`, the first counted while the vocabulary is read
 * (`vocab_size++` in a helper, in a loop over a file), the second a
 * default that a command-line option may replace.  The interpreter reads
 * a non-const global it has not seen written as its name, so a size in
 * it is a run-time size: unbound for graph and replay (`--bind`), written
 * as the expression in the rewritten program (the runtime sees the value
 * the program computed).  It must never read such a global at its
 * initialiser: 0 for vocab_size would give zero-byte allocations.  But a
 * global that no code writes is a constant in all but name, and binding
 * it to its initialiser (as a `const` one) spares the user a --bind.
 * "No code writes it" is decided from the syntax of every input and
 * project header: a use that is anything but a plain read - the operand
 * of an assignment, ++/--, or `&`, a reference bound to it, a method
 * called on it - may write it.  A plain read is a reference under an
 * lvalue-to-rvalue conversion (libclang shows the implicit cast as an
 * unexposed expression), or the operand of sizeof.  Pointers, arrays and
 * structs are not considered (the interpreter follows those otherwise). */
#include <stdlib.h>
#include <string.h>

#include "base/cursor.h"
#include "base/cxstring.h"
#include "graph/written.h"

struct written_set {
  char **usr;
  int n, cap;
  pass_tu *t;
};

static void add_usr(written_set *w, CXCursor var) {
  char *u = string_and_dispose(clang_getCursorUSR(var));
  if (!u || !*u) {
    free(u);
    return;
  }
  for (int i = 0; i < w->n; i++)
    if (!strcmp(w->usr[i], u)) {
      free(u);
      return;
    }
  if (w->n == w->cap) {
    int nc = w->cap ? w->cap * 2 : 32;
    char **nu = realloc(w->usr, (size_t)nc * sizeof *nu);
    if (!nu) {
      free(u);
      return;
    }
    w->usr = nu;
    w->cap = nc;
  }
  w->usr[w->n++] = u;
}

static int is_file_scope_var(CXCursor d) {
  if (clang_getCursorKind(d) != CXCursor_VarDecl) return 0;
  enum CXCursorKind k = clang_getCursorKind(clang_getCursorSemanticParent(d));
  return k == CXCursor_TranslationUnit || k == CXCursor_Namespace || k == CXCursor_LinkageSpec;
}

static enum CXChildVisitResult use_visitor(CXCursor c, CXCursor parent, CXClientData d) {
  written_set *w = d;
  if (clang_getCursorKind(c) != CXCursor_DeclRefExpr) return CXChildVisit_Recurse;
  CXCursor v = clang_getCursorReferenced(c);
  if (!is_file_scope_var(v)) return CXChildVisit_Continue;
  enum CXCursorKind pk = clang_getCursorKind(parent);
  /* a plain read: under the implicit lvalue-to-rvalue cast, or sizeof */
  if (pk == CXCursor_UnexposedExpr || pk == CXCursor_UnaryExpr) return CXChildVisit_Continue;
  /* `(x)` in a read: the parenthesis' own parent decides; rare, so taken
   * as a write (conservative) */
  add_usr(w, v);
  return CXChildVisit_Continue;
}

static enum CXChildVisitResult top_visitor(CXCursor c, CXCursor parent, CXClientData d) {
  (void)parent;
  written_set *w = d;
  enum CXCursorKind k = clang_getCursorKind(c);
  if (k == CXCursor_Namespace || k == CXCursor_LinkageSpec) return CXChildVisit_Recurse;
  if (!program_view_of(w->t, c)) return CXChildVisit_Continue; /* not the project's */
  clang_visitChildren(c, use_visitor, d);
  return CXChildVisit_Continue;
}

written_set *written_build(pass_tu *t) {
  written_set *w = calloc(1, sizeof *w);
  if (!w) return NULL;
  w->t = t;
  pass_tu *const *units;
  int n = program_units(t, &units);
  for (int u = 0; u < n; u++)
    clang_visitChildren(clang_getTranslationUnitCursor(units[u]->tu), top_visitor, w);
  return w;
}

void written_free(written_set *w) {
  if (!w) return;
  for (int i = 0; i < w->n; i++) free(w->usr[i]);
  free(w->usr);
  free(w);
}

int written_may_write(const written_set *w, CXCursor var) {
  if (!w) return 1;
  char *u = string_and_dispose(clang_getCursorUSR(var));
  int r = !u || !*u;
  for (int i = 0; !r && i < w->n; i++) r = !strcmp(w->usr[i], u);
  free(u);
  return r;
}
