/* loop.c - which loop is the training loop, and the graph's record of the
 * loops inside it.
 *
 * Choice, in order:
 *  1. --loop FILE:LINE: the loop statement starting on that line.
 *  2. `#pragma tidal train`: libclang has no cursor for unknown pragmas, so
 *     the main file's text is scanned for the pragma line and it is bound
 *     to the first for/while/do statement starting after it.
 *  3. Heuristic: the loop whose body reaches the most op sites (kernel
 *     launches and modelled library calls, counted through user functions,
 *     each function's count memoised, recursion counted once).  Ties: see
 *     tie_better (an epoch loop around the step loop reaches the same ops,
 *     but one iteration is one step; a layer loop called from the step loop
 *     is inside one iteration).  Whether the
 *     chosen loop shows a forward-then-backward pattern is added to the
 *     reason once the graph is built (graph.c).
 * Loops considered are those written in any project file of the program
 * (every input and the project headers they include), each function once. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/loop.h"
#include "graph/opsites.h"

typedef struct fn_count {
  char *usr;
  int count;
  int busy; /* being counted: recursion */
} fn_count;

typedef struct loop_cand {
  CXCursor c;
  unsigned offset, end;
  int in_main;      /* written in main() */
  int layer_like;   /* its induction variable offsets device pointers (`base + l*S`) */
  unsigned line;
  int file;         /* program file (pass_tu.file_index); offsets compare within one */
  int depth;
  int ops;
} loop_cand;

typedef struct scan {
  gb *b;
  fn_count *fns;
  int n_fns, cap_fns;
  loop_cand *loops;
  int n_loops, cap_loops;
  int depth;
  int count; /* ops counted in the current subtree */
  int in_main; /* scanning main() */
  char **seen; /* USRs of the functions scanned at top level (headers recur per unit) */
  int n_seen, cap_seen;
} scan;

static int count_function(scan *s, CXCursor def);

/* Does the body use the loop's induction variable to offset a pointer?
 * That is a loop over layers (or heads), not over training steps. */
typedef struct layer_scan {
  CXCursor var;
  int found;
  int in_ptr_arith;
} layer_scan;

static enum CXChildVisitResult layer_visitor(CXCursor c, CXCursor parent, CXClientData d) {
  layer_scan *ls = d;
  enum CXCursorKind k = clang_getCursorKind(c);
  if (ls->in_ptr_arith && k == CXCursor_DeclRefExpr &&
      clang_equalCursors(clang_getCursorReferenced(c), ls->var)) {
    ls->found = 1;
    return CXChildVisit_Break;
  }
  if (k == CXCursor_BinaryOperator && !ls->in_ptr_arith) {
    enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(c);
    CXType t = clang_getCanonicalType(clang_getCursorType(c));
    if ((op == CXBinaryOperator_Add || op == CXBinaryOperator_Sub) && t.kind == CXType_Pointer) {
      ls->in_ptr_arith = 1;
      clang_visitChildren(c, layer_visitor, ls);
      ls->in_ptr_arith = 0;
      return ls->found ? CXChildVisit_Break : CXChildVisit_Continue;
    }
  }
  return CXChildVisit_Recurse;
}

static int loop_is_layer_like(CXCursor loop) {
  if (clang_getCursorKind(loop) != CXCursor_ForStmt) return 0;
  CXCursor ch[4];
  int n = gb_children(loop, ch, 4);
  if (n < 2 || clang_getCursorKind(ch[0]) != CXCursor_DeclStmt) return 0;
  CXCursor vd[1];
  if (gb_children(ch[0], vd, 1) != 1) return 0;
  layer_scan ls = {vd[0], 0, 0};
  clang_visitChildren(ch[n - 1], layer_visitor, &ls);
  return ls.found;
}

static enum CXChildVisitResult count_visitor(CXCursor c, CXCursor parent, CXClientData d) {
  scan *s = d;
  enum CXCursorKind k = clang_getCursorKind(c);
  if (k == CXCursor_LambdaExpr) return CXChildVisit_Continue;
  if (k == CXCursor_CallExpr) {
    if (opsite_is_op(&s->b->g->kernels, c)) {
      s->count++;
    } else {
      CXCursor decl = gb_callee_decl(c);
      if (!clang_Cursor_isNull(decl)) {
        CXCursor def = program_definition(s->b->t, decl); /* in any input */
        if (!clang_Cursor_isNull(def) &&
            !clang_Location_isInSystemHeader(clang_getCursorLocation(def)))
          s->count += count_function(s, def);
      }
    }
    return CXChildVisit_Recurse;
  }
  if (k == CXCursor_ForStmt || k == CXCursor_WhileStmt || k == CXCursor_DoStmt) {
    int saved = s->count;
    s->count = 0;
    s->depth++;
    clang_visitChildren(c, count_visitor, s);
    s->depth--;
    int inner = s->count;
    s->count = saved + inner;
    const pass_tu *v = program_view_of(s->b->t, c);
    if (v) {
      if (s->n_loops == s->cap_loops) {
        int nc = s->cap_loops ? s->cap_loops * 2 : 32;
        loop_cand *n = realloc(s->loops, (size_t)nc * sizeof *n);
        if (!n) return CXChildVisit_Continue;
        s->loops = n;
        s->cap_loops = nc;
      }
      loop_cand *lc = &s->loops[s->n_loops++];
      lc->c = c;
      lc->file = v->file_index;
      clang_getExpansionLocation(clang_getCursorLocation(c), NULL, &lc->line, NULL, &lc->offset);
      lc->depth = s->depth;
      lc->ops = inner;
      clang_getExpansionLocation(clang_getRangeEnd(clang_getCursorExtent(c)), NULL, NULL, NULL,
                                 &lc->end);
      lc->in_main = s->in_main;
      lc->layer_like = loop_is_layer_like(c);
    }
    return CXChildVisit_Continue;
  }
  return CXChildVisit_Recurse;
}

/* Op sites reachable from a function body (memoised by USR). */
static int count_function(scan *s, CXCursor def) {
  char *usr = string_and_dispose(clang_getCursorUSR(def));
  for (int i = 0; i < s->n_fns; i++)
    if (strcmp(s->fns[i].usr, usr) == 0) {
      free(usr);
      return s->fns[i].busy ? 0 : s->fns[i].count;
    }
  if (s->n_fns == s->cap_fns) {
    int nc = s->cap_fns ? s->cap_fns * 2 : 64;
    fn_count *n = realloc(s->fns, (size_t)nc * sizeof *n);
    if (!n) {
      free(usr);
      return 0;
    }
    s->fns = n;
    s->cap_fns = nc;
  }
  int idx = s->n_fns++;
  s->fns[idx].usr = usr;
  s->fns[idx].busy = 1;
  s->fns[idx].count = 0;
  int saved = s->count, saved_depth = s->depth;
  s->count = 0;
  s->depth = 0;
  /* Loops inside a function are recorded when the function is scanned at
   * top level (below); here only the count matters, so a nested scan must
   * not record them twice. */
  int saved_n = s->n_loops;
  clang_visitChildren(def, count_visitor, s);
  s->n_loops = saved_n;
  int c = s->count;
  s->count = saved;
  s->depth = saved_depth;
  s->fns[idx].count = c;
  s->fns[idx].busy = 0;
  return c;
}

static enum CXChildVisitResult tu_visitor(CXCursor c, CXCursor parent, CXClientData d) {
  scan *s = d;
  enum CXCursorKind k = clang_getCursorKind(c);
  if (k == CXCursor_Namespace || k == CXCursor_LinkageSpec) return CXChildVisit_Recurse;
  if ((k == CXCursor_FunctionDecl || k == CXCursor_CXXMethod) && clang_isCursorDefinition(c) &&
      program_view_of(s->b->t, c)) {
    char *usr = string_and_dispose(clang_getCursorUSR(c));
    for (int i = 0; i < s->n_seen; i++)
      if (!strcmp(s->seen[i], usr)) {
        free(usr);
        return CXChildVisit_Continue;
      }
    if (s->n_seen == s->cap_seen) {
      int nc = s->cap_seen ? s->cap_seen * 2 : 64;
      char **ns = realloc(s->seen, (size_t)nc * sizeof *ns);
      if (!ns) {
        free(usr);
        return CXChildVisit_Continue;
      }
      s->seen = ns;
      s->cap_seen = nc;
    }
    s->seen[s->n_seen++] = usr;
    s->count = 0;
    s->depth = 0;
    char *nm = string_and_dispose(clang_getCursorSpelling(c));
    s->in_main = strcmp(nm, "main") == 0;
    free(nm);
    clang_visitChildren(c, count_visitor, s);
    s->in_main = 0;
  }
  return CXChildVisit_Continue;
}

/* Offset of the first `#pragma tidal train` line in the main file, or -1. */
static long find_pragma(const pass_tu *t, unsigned *line) {
  const char *s = t->main_source;
  size_t n = t->main_size, i = 0;
  unsigned ln = 1;
  while (i < n) {
    size_t j = i;
    while (j < n && (s[j] == ' ' || s[j] == '\t')) j++;
    if (j < n && s[j] == '#') {
      j++;
      while (j < n && (s[j] == ' ' || s[j] == '\t')) j++;
      if (n - j > 6 && strncmp(s + j, "pragma", 6) == 0) {
        j += 6;
        while (j < n && (s[j] == ' ' || s[j] == '\t')) j++;
        if (n - j > 5 && strncmp(s + j, "tidal", 5) == 0) {
          j += 5;
          while (j < n && (s[j] == ' ' || s[j] == '\t')) j++;
          if (n - j >= 5 && strncmp(s + j, "train", 5) == 0 &&
              (n - j == 5 || !isalnum((unsigned char)s[j + 5]))) {
            *line = ln;
            return (long)i;
          }
        }
      }
    }
    while (i < n && s[i] != '\n') i++;
    i++;
    ln++;
  }
  return -1;
}

static const char *base_name(const char *p) {
  const char *s = strrchr(p, '/');
  return s ? s + 1 : p;
}

/* given is the FILE part of --loop (options.h keeps "FILE:LINE" whole). */
static int same_file(const char *given, const char *main_path) {
  if (strcmp(given, main_path) == 0) return 1;
  return strcmp(base_name(given), base_name(main_path)) == 0;
}

/* main()'s location, for a diagnostic that has nowhere better to point. */
static void main_location(gb *b, unsigned *line, unsigned *col) {
  *line = 1;
  *col = 1;
  CXCursor m = graph_find_main(b->t);
  if (!clang_Cursor_isNull(m))
    clang_getExpansionLocation(clang_getCursorLocation(m), NULL, line, col, NULL);
}

/* Between two loops reaching as many op sites: the inner of two nested
 * loops (an epoch loop around the step loop) unless the inner one offsets
 * pointers by its induction variable (a layer loop), else the one in main() (it
 * calls the function holding the other: a layer loop), else the later one
 * (C defines callees before their callers). */
static int tie_better(const loop_cand *x, const loop_cand *y) {
  /* nested: the inner one, unless it indexes pointers by its variable */
  if (x->file == y->file && x->offset >= y->offset && x->end <= y->end) return !x->layer_like;
  if (x->file == y->file && y->offset >= x->offset && y->end <= x->end) return y->layer_like;
  if (x->in_main != y->in_main) return x->in_main;
  if (x->file != y->file) return x->file < y->file;
  return x->offset > y->offset;
}

int loop_choose(gb *b, const graph_options *opt, CXCursor *loop) {
  graph *g = b->g;
  scan s;
  memset(&s, 0, sizeof s);
  s.b = b;
  pass_tu *const *units;
  int n_units = program_units(b->t, &units);
  for (int u = 0; u < n_units; u++)
    clang_visitChildren(clang_getTranslationUnitCursor(units[u]->tu), tu_visitor, &s);
  int chosen = -1, rc = TIDAL_EXIT_OK;
  char reason[256] = "";
  unsigned pline = 0;
  long poff;
  if (opt && opt->loop_file) {
    char lf[4096];
    const char *colon = strrchr(opt->loop_file, ':');
    size_t lfn = colon && strtoul(colon + 1, NULL, 10) == opt->loop_line
                     ? (size_t)(colon - opt->loop_file)
                     : strlen(opt->loop_file);
    snprintf(lf, sizeof lf, "%.*s", (int)lfn, opt->loop_file);
    int known = 0;
    for (int i = 0; i < b->t->prog->n_files && !known; i++)
      known = same_file(lf, b->t->prog->files[i]->main_path);
    if (!known) {
      diag_error(NULL, 0, 0, "--loop %s:%u: not an input file ('%s')", lf, opt->loop_line,
                 b->t->main_path);
      rc = TIDAL_EXIT_BAD_INPUT;
      goto out;
    }
    for (int i = 0; i < s.n_loops; i++)
      if (s.loops[i].line == opt->loop_line &&
          same_file(lf, b->t->prog->files[s.loops[i].file]->main_path) &&
          (chosen < 0 || s.loops[i].offset < s.loops[chosen].offset))
        chosen = i;
    if (chosen < 0) {
      diag_error(b->t->main_path, opt->loop_line, 1,
                 "no for, while or do loop starts on this line (--loop %s:%u)", lf,
                 opt->loop_line);
      rc = TIDAL_EXIT_BAD_INPUT;
      goto out;
    }
    snprintf(reason, sizeof reason, "--loop %.200s:%u", base_name(lf), opt->loop_line);
  } else if ((poff = find_pragma(b->t, &pline)) >= 0) {
    for (int i = 0; i < s.n_loops; i++)
      if (s.loops[i].file == b->t->file_index && s.loops[i].offset > (unsigned)poff &&
          (chosen < 0 || s.loops[i].offset < s.loops[chosen].offset))
        chosen = i;
    if (chosen < 0) {
      diag_error(b->t->main_path, pline, 1, "'#pragma tidal train' is not followed by a loop");
      rc = TIDAL_EXIT_BAD_INPUT;
      goto out;
    }
    snprintf(reason, sizeof reason, "pragma at %s:%u", base_name(b->t->main_path), pline);
  } else {
    for (int i = 0; i < s.n_loops; i++) {
      if (s.loops[i].ops <= 0) continue;
      if (chosen < 0 || s.loops[i].ops > s.loops[chosen].ops ||
          (s.loops[i].ops == s.loops[chosen].ops && tie_better(&s.loops[i], &s.loops[chosen])))
        chosen = i;
    }
    if (chosen < 0) {
      unsigned line, col;
      main_location(b, &line, &col);
      diag_error(b->t->main_path, line, col,
                 "no training loop found: no loop reaches a kernel launch or library call");
      diag_note(b->t->main_path, line, col,
                "mark the training loop with '#pragma tidal train' or pass --loop FILE:LINE");
      rc = TIDAL_EXIT_BAD_INPUT;
      goto out;
    }
    snprintf(reason, sizeof reason, "heuristic: %d op sites", s.loops[chosen].ops);
  }
  *loop = s.loops[chosen].c;
  g->loop_reason = strdup(reason);
  gb_location(b, *loop, &g->loop_file, &g->loop_line, &g->loop_col);
  g->loop_stmt = gb_range(b, *loop, 0);
out:
  for (int i = 0; i < s.n_fns; i++) free(s.fns[i].usr);
  free(s.fns);
  for (int i = 0; i < s.n_seen; i++) free(s.seen[i]);
  free(s.seen);
  free(s.loops);
  return rc;
}

int loop_record(gb *b, gb_frame *f, CXCursor stmt, CXCursor body, const char *var, sym *lo,
                sym *hi, int step) {
  graph *g = b->g;
  int id = graph_add_loop(g);
  if (id < 0) return -1;
  graph_loop *l = &g->loops[id];
  l->id = id;
  l->parent = b->n_loops ? b->loops[b->n_loops - 1].id : -1;
  l->call_depth = b->n_path;
  l->var = var ? strdup(var) : NULL;
  l->step = var ? step : 0;
  l->lo = lo && var ? lo : sym_unknown(b->a);
  l->hi = hi && var ? hi : sym_unknown(b->a);
  if (var && lo && hi && step) {
    sym *span = step > 0 ? sym_sub(b->a, hi, lo) : sym_sub(b->a, lo, hi);
    int as = step > 0 ? step : -step;
    l->trip = as == 1 ? span
                      : sym_div(b->a, sym_add(b->a, span, sym_const(b->a, as - 1)), sym_const(b->a, as));
  } else {
    l->trip = sym_unknown(b->a);
  }
  gb_location(b, stmt, &l->file, &l->line, &l->col);
  l->stmt = gb_range(b, stmt, 0);
  l->body = gb_range(b, body, 1);
  (void)f;
  return id;
}
