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
#include <sys/stat.h>

#include "graph/callees.h"
#include "graph/liveness.h"
#include "graph/loop.h"
#include "graph/opsites.h"

/* Phase bits of the ops a function or loop reaches (Note [step loops]). */
enum { PB_FWD = 1, PB_BWD = 2, PB_UPD = 4 };

typedef struct fn_count {
  char *usr;
  int count;
  unsigned bits; /* PB_* of the ops it reaches */
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
  unsigned bits;    /* PB_* of the ops its body reaches */
  int fn;           /* index in scan.fns of the function it is written in */
  int calls_from, calls_to; /* its body's calls: scan.calls[from, to) */
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
  unsigned bits; /* PB_* of the ops counted in the current subtree */
  int cur_fn;    /* scan.fns index of the function being scanned */
  int *calls;    /* callee fns indexes, in scan order (loops keep a range) */
  int n_calls, cap_calls;
  int *edges;    /* caller, callee pairs */
  int n_edges, cap_edges;
} scan;

static int fn_index(scan *s, CXCursor def);

static void push_int(int **arr, int *n, int *cap, int v) {
  if (*n == *cap) {
    int nc = *cap ? *cap * 2 : 64;
    int *a = realloc(*arr, (size_t)nc * sizeof *a);
    if (!a) return;
    *arr = a;
    *cap = nc;
  }
  (*arr)[(*n)++] = v;
}

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

/* A call through a function pointer or a virtual method in a loop's own
 * body: each iteration may run another layer (interp_indirect.c, Note
 * [dispatch loops]). */
static enum CXChildVisitResult dispatch_visitor(CXCursor c, CXCursor parent, CXClientData d) {
  (void)parent;
  CXCursor key;
  if (clang_getCursorKind(c) == CXCursor_LambdaExpr) return CXChildVisit_Continue;
  if (clang_getCursorKind(c) == CXCursor_CallExpr && callees_kind(c, &key) != CALLEE_DIRECT) {
    *(int *)d = 1;
    return CXChildVisit_Break;
  }
  return CXChildVisit_Recurse;
}

static int loop_is_layer_like(CXCursor loop) {
  /* `for (auto &l : layers)`: over a container, as a layer loop is; as the
   * step loop inside an epoch loop it is still taken when it reaches
   * forward and backward/update (Note [step loops]) */
  if (clang_getCursorKind(loop) == CXCursor_CXXForRangeStmt) return 1;
  if (clang_getCursorKind(loop) != CXCursor_ForStmt) return 0;
  /* init first, body last (five children with a condition variable) */
  CXCursor init = cursor_first_child(loop), body = cursor_last_child(loop);
  /* `layers[l]->forward(...)`, `net.layers[i].forward(l, net)`: a dispatch loop */
  int dispatch = 0; /* the body itself may be the call (unbraced) */
  if (dispatch_visitor(body, loop, &dispatch) == CXChildVisit_Recurse)
    clang_visitChildren(body, dispatch_visitor, &dispatch);
  if (dispatch) return 1;
  if (clang_equalCursors(init, body) || clang_getCursorKind(init) != CXCursor_DeclStmt) return 0;
  CXCursor vd[1];
  if (cursor_children(init, vd, 1) != 1) return 0;
  layer_scan ls = {vd[0], 0, 0};
  clang_visitChildren(body, layer_visitor, &ls);
  return ls.found;
}

static enum CXChildVisitResult count_visitor(CXCursor c, CXCursor parent, CXClientData d) {
  scan *s = d;
  enum CXCursorKind k = clang_getCursorKind(c);
  if (k == CXCursor_LambdaExpr) return CXChildVisit_Continue;
  if (k == CXCursor_CallExpr) {
    if (opsite_is_op(&s->b->g->kernels, c, NULL)) {
      s->count++;
      char *n = gb_callee_name(c);
      int ph = liveness_name_phase(n);
      free(n);
      s->bits |= ph == TRACE_BACKWARD ? PB_BWD : ph == TRACE_UPDATE ? PB_UPD : PB_FWD;
    } else {
      CXCursor decl = gb_callee_decl(c), key;
      if (callees_kind(c, &key) != CALLEE_DIRECT) {
        /* an indirect call reaches every candidate's op sites (callees.c) */
        if (!s->b->callees) s->b->callees = callees_build(s->b->t);
        /* or is a library op (Note [library functions through pointers]) */
        CXCursor lib;
        if (callees_reach(s->b->callees, s->b->t, c, &lib) == CALLEE_REACH_LIBRARY) {
          char *n = string_and_dispose(clang_getCursorSpelling(lib));
          if (n && opsite_is_op(&s->b->g->kernels, c, n)) {
            s->count++;
            int ph = liveness_name_phase(n);
            s->bits |= ph == TRACE_BACKWARD ? PB_BWD : ph == TRACE_UPDATE ? PB_UPD : PB_FWD;
          }
          free(n);
          return CXChildVisit_Recurse;
        }
        CXCursor *cand = NULL;
        int n = callees_candidates(s->b->callees, s->b->t, c, &cand);
        for (int i = 0; i < n; i++) {
          if (clang_Location_isInSystemHeader(clang_getCursorLocation(cand[i]))) continue;
          int caller = s->cur_fn;
          s->count += count_function(s, cand[i]);
          int fi = fn_index(s, cand[i]);
          if (fi >= 0) {
            s->bits |= s->fns[fi].bits;
            push_int(&s->calls, &s->n_calls, &s->cap_calls, fi);
            push_int(&s->edges, &s->n_edges, &s->cap_edges, caller);
            push_int(&s->edges, &s->n_edges, &s->cap_edges, fi);
          }
        }
        free(cand);
        return CXChildVisit_Recurse;
      }
      if (!clang_Cursor_isNull(decl)) {
        CXCursor def = program_definition(s->b->t, decl); /* in any input */
        if (!clang_Cursor_isNull(def) &&
            !clang_Location_isInSystemHeader(clang_getCursorLocation(def))) {
          int caller = s->cur_fn;
          s->count += count_function(s, def);
          int fi = fn_index(s, def);
          if (fi >= 0) {
            s->bits |= s->fns[fi].bits;
            push_int(&s->calls, &s->n_calls, &s->cap_calls, fi);
            push_int(&s->edges, &s->n_edges, &s->cap_edges, caller);
            push_int(&s->edges, &s->n_edges, &s->cap_edges, fi);
          }
        }
      }
    }
    return CXChildVisit_Recurse;
  }
  if (k == CXCursor_ForStmt || k == CXCursor_WhileStmt || k == CXCursor_DoStmt ||
      k == CXCursor_CXXForRangeStmt) {
    /* `do { ... } while (0)` (check macros) runs once: no loop */
    if (k == CXCursor_DoStmt) {
      CXCursor ch[2];
      int64_t cv = 1;
      if (cursor_children(c, ch, 2) == 2) cursor_eval_int(ch[1], &cv);
      if (cv == 0) return CXChildVisit_Recurse;
    }
    int saved = s->count;
    unsigned saved_bits = s->bits;
    int calls_from = s->n_calls;
    s->count = 0;
    s->bits = 0;
    s->depth++;
    clang_visitChildren(c, count_visitor, s);
    s->depth--;
    int inner = s->count;
    unsigned inner_bits = s->bits;
    s->count = saved + inner;
    s->bits = saved_bits | inner_bits;
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
      lc->bits = inner_bits;
      lc->fn = s->cur_fn;
      lc->calls_from = calls_from;
      lc->calls_to = s->n_calls;
    }
    return CXChildVisit_Continue;
  }
  return CXChildVisit_Recurse;
}

/* Op sites reachable from a function body (memoised by USR). */
static int fn_find(scan *s, const char *usr) {
  for (int i = 0; i < s->n_fns; i++)
    if (strcmp(s->fns[i].usr, usr) == 0) return i;
  return -1;
}

static int fn_index(scan *s, CXCursor def) {
  char *usr = string_and_dispose(clang_getCursorUSR(def));
  int i = usr ? fn_find(s, usr) : -1;
  free(usr);
  return i;
}

static int count_function(scan *s, CXCursor def) {
  char *usr = string_and_dispose(clang_getCursorUSR(def));
  int have = fn_find(s, usr);
  if (have >= 0) {
    free(usr);
    return s->fns[have].busy ? 0 : s->fns[have].count;
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
  s->fns[idx].bits = 0;
  int saved = s->count, saved_depth = s->depth, saved_fn = s->cur_fn;
  unsigned saved_bits = s->bits;
  s->count = 0;
  s->bits = 0;
  s->depth = 0;
  s->cur_fn = idx;
  /* Loops inside a function are recorded when the function is scanned at
   * top level (below); here only the count matters, so a nested scan must
   * not record them twice. */
  int saved_n = s->n_loops;
  clang_visitChildren(def, count_visitor, s);
  s->n_loops = saved_n;
  int c = s->count;
  unsigned bits = s->bits;
  /* a function named like a phase puts every op it reaches in that phase */
  char *nm = string_and_dispose(clang_getCursorSpelling(def));
  int ph = liveness_name_phase(nm);
  free(nm);
  if (bits && ph == TRACE_BACKWARD) bits = PB_BWD;
  if (bits && ph == TRACE_UPDATE) bits = PB_UPD;
  s->count = saved;
  s->bits = saved_bits;
  s->depth = saved_depth;
  s->cur_fn = saved_fn;
  s->fns[idx].count = c;
  s->fns[idx].bits = bits;
  s->fns[idx].busy = 0;
  return c;
}

static enum CXChildVisitResult tu_visitor(CXCursor c, CXCursor parent, CXClientData d) {
  scan *s = d;
  enum CXCursorKind k = clang_getCursorKind(c);
  if (k == CXCursor_Namespace || k == CXCursor_LinkageSpec) return CXChildVisit_Recurse;
  /* methods defined in their class (`class Trainer { void fit() { for ... } };`),
   * of a class template too: their loops are candidates as any function's */
  if ((k == CXCursor_ClassDecl || k == CXCursor_StructDecl || k == CXCursor_ClassTemplate) &&
      clang_isCursorDefinition(c))
    return CXChildVisit_Recurse;
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
    char *nm = string_and_dispose(clang_getCursorSpelling(c));
    s->in_main = strcmp(nm, "main") == 0;
    free(nm);
    count_function(s, c); /* its memo entry: the loops in it know their function */
    s->cur_fn = fn_index(s, c);
    s->count = 0;
    s->bits = 0;
    s->depth = 0;
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
/* By identity when both name existing files (`../../src/x.cu` and the
 * view's `./../src/x.cu`), else by base name (a path as the build wrote
 * it, from another folder). */
static int same_file(const char *given, const char *main_path) {
  if (strcmp(given, main_path) == 0) return 1;
  struct stat a, c;
  if (stat(given, &a) == 0 && stat(main_path, &c) == 0)
    return a.st_dev == c.st_dev && a.st_ino == c.st_ino;
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

/* Note [step loops]: the loop reaching the most op sites may be an epoch
 * loop: around the step loop (directly, or through `train_epoch()`), and
 * reaching more ops when it also calls a forward-only evaluation.  One
 * iteration must be one optimizer step, so a loop inside the chosen one
 * (written inside it, or in a function its body calls) that itself reaches
 * forward and the same later phases (backward, update: by the names of
 * Note [phases]; a micro-batch loop without the update does not qualify)
 * and at least a quarter of its op sites is taken instead, innermost first.  A
 * layer loop reaches one phase only, so it never qualifies, whatever
 * pointer arithmetic its counter does (a step loop slicing the epoch's
 * data `x + b * B * D` looks like a layer loop to tie_better). */
static int step_like(const loop_cand *c) {
  return (c->bits & (PB_BWD | PB_UPD)) && (c->bits & (c->bits - 1)); /* two phases or more */
}

/* Is function fn reached from loop j's body (through any chain of calls)? */
static int reaches(const scan *s, const loop_cand *j, int fn) {
  if (fn < 0) return 0;
  char *seen = calloc((size_t)s->n_fns + 1, 1);
  int *stack = malloc(((size_t)s->n_fns + 1) * sizeof *stack);
  int n = 0, found = 0;
  if (!seen || !stack) goto out;
  for (int i = j->calls_from; i < j->calls_to; i++)
    if (!seen[s->calls[i]]) {
      seen[s->calls[i]] = 1;
      stack[n++] = s->calls[i];
    }
  while (n && !found) {
    int f = stack[--n];
    if (f == fn) found = 1;
    for (int e = 0; e + 1 < s->n_edges; e += 2)
      if (s->edges[e] == f && s->edges[e + 1] >= 0 && !seen[s->edges[e + 1]]) {
        seen[s->edges[e + 1]] = 1;
        stack[n++] = s->edges[e + 1];
      }
  }
out:
  free(seen);
  free(stack);
  return found;
}

static int inside(const scan *s, const loop_cand *i, const loop_cand *j) {
  if (i == j) return 0;
  if (i->file == j->file && i->offset >= j->offset && i->end <= j->end) return 1;
  return reaches(s, j, i->fn);
}

static int step_loop_inside(const scan *s, int chosen) {
  for (int guard = 0; guard < 64 && step_like(&s->loops[chosen]); guard++) {
    const loop_cand *c = &s->loops[chosen];
    int best = -1;
    for (int i = 0; i < s->n_loops; i++) {
      const loop_cand *x = &s->loops[i];
      /* every phase past forward the outer loop reaches (a micro-batch loop
       * without the update is not a step), and a good part of its work */
      if (!step_like(x) || (x->bits & (PB_BWD | PB_UPD)) != (c->bits & (PB_BWD | PB_UPD)) ||
          4 * x->ops < c->ops || !inside(s, x, c))
        continue;
      if (best < 0 || x->ops > s->loops[best].ops ||
          (x->ops == s->loops[best].ops && inside(s, x, &s->loops[best])))
        best = i;
    }
    if (best < 0) break;
    chosen = best;
  }
  return chosen;
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
      diag_error(NULL, 0, 0,
                 "--loop %s:%u: not a file of the program ('%s': its inputs and the project "
                 "files they include)",
                 lf, opt->loop_line, b->t->main_path);
      rc = TIDAL_EXIT_BAD_INPUT;
      goto out;
    }
    for (int i = 0; i < s.n_loops; i++)
      if (s.loops[i].line == opt->loop_line &&
          same_file(lf, b->t->prog->files[s.loops[i].file]->main_path) &&
          (chosen < 0 || s.loops[i].offset < s.loops[chosen].offset))
        chosen = i;
    if (chosen < 0) {
      diag_error(lf, opt->loop_line, 1, "no for, while or do loop starts on this line (--loop %s:%u)",
                 lf, opt->loop_line);
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
    int outer = chosen;
    chosen = step_loop_inside(&s, chosen);
    if (chosen != outer)
      snprintf(reason, sizeof reason, "heuristic: %d op sites; step loop (reaches forward and "
               "backward/update) inside the loop at line %u", s.loops[chosen].ops,
               s.loops[outer].line);
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
  free(s.calls);
  free(s.edges);
  return rc;
}

int loop_record(gb *b, gb_frame *f, CXCursor stmt, CXCursor body, const char *var, sym *lo,
                sym *hi, int step, sym *stride) {
  graph *g = b->g;
  int id = graph_add_loop(g);
  if (id < 0) return -1;
  graph_loop *l = &g->loops[id];
  l->id = id;
  l->parent = b->n_loops ? b->loops[b->n_loops - 1].id : -1;
  l->call_depth = b->n_path;
  l->var = var ? strdup(var) : NULL;
  /* bounds without a variable: one iteration of a range-for walked one by
   * one (graph_loop.iteration) */
  int shaped = var || (lo && hi && step);
  l->step = shaped ? step : 0;
  l->lo = lo && shaped ? lo : sym_unknown(b->a);
  l->hi = hi && shaped ? hi : sym_unknown(b->a);
  int64_t as = step > 0 ? step : -(int64_t)step;
  l->stride = shaped && step ? (stride ? stride : sym_const(b->a, as)) : sym_unknown(b->a);
  if (shaped && lo && hi && step) {
    sym *span = step > 0 ? sym_sub(b->a, hi, lo) : sym_sub(b->a, lo, hi);
    int64_t cs;
    if (sym_get_const(l->stride, &cs) && cs == 1)
      l->trip = span;
    else /* ceil(span / stride) (Note [strided loops] in interp_loop.c) */
      l->trip = sym_div(b->a, sym_add(b->a, span, sym_sub(b->a, l->stride, sym_const(b->a, 1))),
                        l->stride);
  } else {
    l->trip = sym_unknown(b->a);
  }
  gb_location(b, stmt, &l->file, &l->line, &l->col);
  l->stmt = gb_range(b, stmt, 0);
  l->body = gb_range(b, body, 1);
  (void)f;
  return id;
}
