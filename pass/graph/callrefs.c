/* callrefs.c - how often each function on an op's call path is referenced
 * in the program (graph_call.refs).  A plan call placed inside a function
 * runs on every call of it: rewrite_place.c places one there only when the
 * function is referenced once (Note [placement levels]), and replay runs
 * the plan the rewriter places, so both read the count from here.
 *
 * A reference is a DeclRefExpr, OverloadedDeclRef or MemberRefExpr naming
 * a function, function template or method by that name (a method call
 * `obj.m()` is a MemberRefExpr: without it every method would look never
 * called), outside system headers, in every input's translation unit: a
 * project header's are counted once per unit that includes it - more
 * references, so only ever fewer placements.  By name, not declaration:
 * two functions of one name count for each other, which is conservative
 * the same way. */
#include <stdlib.h>
#include <string.h>

#include "graph/sites.h"

typedef struct refs_ud {
  char **names;
  int *counts;
  int n;
} refs_ud;

static enum CXChildVisitResult refs_visitor(CXCursor c, CXCursor parent, CXClientData d) {
  (void)parent;
  refs_ud *u = d;
  if (clang_Location_isInSystemHeader(clang_getCursorLocation(c))) return CXChildVisit_Continue;
  enum CXCursorKind k = clang_getCursorKind(c);
  if (k == CXCursor_DeclRefExpr || k == CXCursor_OverloadedDeclRef ||
      k == CXCursor_MemberRefExpr) {
    CXCursor r = clang_getCursorReferenced(c);
    enum CXCursorKind rk = clang_getCursorKind(r);
    if (k == CXCursor_OverloadedDeclRef || rk == CXCursor_FunctionDecl ||
        rk == CXCursor_FunctionTemplate || rk == CXCursor_CXXMethod) {
      char *name = string_and_dispose(clang_getCursorSpelling(c));
      for (int i = 0; name && i < u->n; i++)
        if (!strcmp(u->names[i], name)) u->counts[i]++;
      free(name);
    }
  }
  return CXChildVisit_Recurse;
}

int callrefs_count(graph *g) {
  refs_ud u = {NULL, NULL, 0};
  int rc = -1;
  for (int i = 0; i < g->n_ops; i++)
    for (int k = 0; k < g->ops[i].n_calls; k++) {
      const char *f = g->ops[i].calls[k].function;
      int seen = 0;
      for (int j = 0; j < u.n && !seen; j++) seen = !strcmp(u.names[j], f);
      if (seen) continue;
      char **nn = realloc(u.names, (size_t)(u.n + 1) * sizeof *nn);
      if (!nn) goto out;
      u.names = nn;
      if (!(u.names[u.n] = strdup(f))) goto out;
      u.n++;
    }
  u.counts = calloc((size_t)(u.n ? u.n : 1), sizeof *u.counts);
  if (!u.counts) goto out;
  pass_tu *const *units;
  int n_units = program_units(g->tu, &units);
  for (int i = 0; i < n_units && u.n; i++)
    clang_visitChildren(clang_getTranslationUnitCursor(units[i]->tu), refs_visitor, &u);
  for (int i = 0; i < g->n_ops; i++)
    for (int k = 0; k < g->ops[i].n_calls; k++)
      for (int j = 0; j < u.n; j++)
        if (!strcmp(u.names[j], g->ops[i].calls[k].function)) g->ops[i].calls[k].refs = u.counts[j];
  rc = 0;
out:
  for (int i = 0; i < u.n; i++) free(u.names[i]);
  free(u.names);
  free(u.counts);
  return rc;
}
