/* rewrite_place.c - the one decision of whether and where a plan action is
 * emitted in source.  `tidal rewrite` emits what rw_plan_place says;
 * `tidal replay` executes exactly those actions, at the same dynamic
 * position (Note [placement levels]), so the plan replay proves is the plan
 * the rewritten program runs.
 *
 * Note [placement levels]
 * An action is keyed to a static op X (plan.h).  X's call path gives
 * levels 0..n (graph.h: level k is the statement calls[k], or X's own
 * statement at k == n, in function F_k).  The action goes to the DEEPEST
 * level k where:
 *   - every function F_1..F_k is referenced exactly once in the program
 *     (graph_call.refs, graph/callrefs.c: so a statement there runs only on
 *     this one path from the training loop, never from a second call site,
 *     setup code or recursion);
 *   - no graph loop inside F_{k+1}..F_n encloses X (the level-k statement
 *     then runs once per instance of X);
 *   - the range's reference op shares calls[0..k-1] with X, and its pointer
 *     and byte texts at level k are valid at X's level-k statement
 *     (graph_access.text_valid_at / text_span_at);
 *   - the statement is editable (in the main file, not a macro expansion).
 * At k < n the call goes before or after the whole call statement, so it
 * runs before the first op (BEFORE) or after the last op (AFTER) of that
 * call's execution.  rw_place.in_call lists the static ops inside that
 * call so that replay can run the action at exactly that dynamic op.
 * Recompute registrations need the launch's own arguments: only level n
 * (the launch statement), under the same single-path rule.  What nothing
 * satisfies is not emitted; rw_place.why says why. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "rewrite/rewrite.h"

int rw_placer_init(rw_placer *p, pass_tu *t, const graph *g) {
  memset(p, 0, sizeof *p);
  p->t = t;
  p->g = g;
  return 0;
}

void rw_placer_free(rw_placer *p) {
  free(p->guards);
  memset(p, 0, sizeof *p);
}

void rw_place_free(rw_place *pl) {
  free(pl->ptr);
  free(pl->bytes);
  free(pl->sbytes);
  free(pl->in_call);
  memset(pl, 0, sizeof *pl);
}

/* 1 if F_1..F_k of op's path are each referenced exactly once
 * (graph_call.refs). */
static int single_path(const rw_placer *p, const graph_op *op, int k) {
  (void)p;
  for (int j = 0; j < k && j < op->n_calls; j++)
    if (op->calls[j].refs != 1) return 0;
  return 1;
}

/* 1 if a and b reach the same statements at levels 0..k-1. */
static int same_prefix(const graph_op *a, const graph_op *b, int k) {
  if (a->n_calls < k || b->n_calls < k) return 0;
  for (int j = 0; j < k; j++)
    if (a->calls[j].stmt.begin != b->calls[j].stmt.begin ||
        a->calls[j].stmt.file != b->calls[j].stmt.file ||
        strcmp(a->calls[j].function, b->calls[j].function) != 0)
      return 0;
  return 1;
}

/* Call depth of the innermost graph loop around op (-1: none). */
static int loop_depth(const graph *g, const graph_op *op) {
  return op->loop >= 0 && op->loop < g->n_loops ? g->loops[op->loop].call_depth : -1;
}

const graph_site *rw_site_of_op(const graph *g, int op) {
  int file = g->ops[op].stmt.file;
  if (file < 0 || file >= g->n_files) return NULL;
  const graph_file *f = &g->files[file];
  for (int i = f->first_site; i < f->first_site + f->n_sites; i++) {
    const graph_site *s = &g->sites[i];
    if (s->n_ops > 0 && !s->skip) {
      const graph_op *a = &g->ops[s->ops[0]], *b = &g->ops[op];
      if (a->stmt.begin == b->stmt.begin && !strcmp(a->callee, b->callee)) return s;
    }
  }
  return NULL;
}

int rw_is_unbraced_body(const pass_tu *t, unsigned off) {
  const char *src = t->main_source;
  unsigned p = off;
  while (p > 0 && strchr(" \t\r\n", src[p - 1])) p--;
  if (p == 0) return 0;
  if (src[p - 1] == ')') {
    /* `) stmt` is a body unless the ')' closes a cast or call: look at what
     * precedes the matching '(' - a control keyword means a body. */
    int depth = 0;
    unsigned q = p;
    while (q > 0) {
      q--;
      if (src[q] == ')') depth++;
      if (src[q] == '(' && --depth == 0) break;
    }
    while (q > 0 && strchr(" \t\r\n", src[q - 1])) q--;
    static const char *kw[] = {"if", "for", "while", "switch"};
    for (size_t i = 0; i < sizeof kw / sizeof kw[0]; i++) {
      size_t n = strlen(kw[i]);
      if (q >= n && !strncmp(src + q - n, kw[i], n)) return 1;
    }
    return 0;
  }
  return (p >= 4 && !strncmp(src + p - 4, "else", 4)) || (p >= 2 && !strncmp(src + p - 2, "do", 2));
}

/* 1 if C text from the graph is usable: not empty, no empty call "()". */
static int text_ok(const char *s) { return s && *s && !strstr(s, "()"); }

/* The statement range at level k of op (end past a following ';'). */
static int level_stmt(const rw_placer *p, const graph_op *op, int k, unsigned *b, unsigned *e,
                      int *file) {
  graph_range st = k < op->n_calls ? op->calls[k].stmt : op->stmt;
  *file = st.file;
  if (k == op->n_calls) {
    const graph_site *site = rw_site_of_op(p->g, op->id);
    if (site) {
      *b = site->stmt_begin;
      *e = site->stmt_end;
      return 1;
    }
  }
  /* the statement's own file (an input or a project header) */
  if (st.file < 0 || st.file >= p->g->n_files || !p->t->prog || st.file >= p->t->prog->n_files)
    return 0;
  const pass_tu *t = p->t->prog->files[st.file];
  if (!st.editable || st.end <= st.begin || st.end > t->main_size) return 0;
  *b = st.begin;
  *e = st.end;
  if (*e > 0 && t->main_source[*e - 1] != ';') {
    unsigned j = *e;
    while (j < t->main_size && strchr(" \t\r\n", t->main_source[j])) j++;
    if (j < t->main_size && t->main_source[j] == ';') *e = j + 1;
  }
  return 1;
}

static void not_emitted(rw_place *pl, const char *why) {
  pl->emit = 0;
  pl->why = why;
}

static int place_recompute(rw_placer *p, const plan_action *a, rw_place *pl) {
  const graph *g = p->g;
  const graph_op *at = &g->ops[a->at_op];
  const graph_access *ga = &g->ops[a->ref_op].acc[a->ref_access];
  const graph_site *site = rw_site_of_op(g, a->at_op);
  const char *why = NULL;
  if (at->kind != GRAPH_OP_LAUNCH)
    why = "the producer is a library call (only kernel launches get closures)";
  else if (at->flags & (KERNEL_RNG | KERNEL_NONDETERMINISTIC))
    why = "the producer is RNG-stateful or nondeterministic: re-running it would change the data";
  else if (a->ref_op != a->at_op)
    why = "the range is not the producer's own access";
  else if (!site)
    why = "the producer's statement is not instrumented";
  else if (site->args_array) /* rw_closure_emit re-launches with <<<...>>> */
    why = "the producer is launched by cudaLaunchKernel: its arguments are in an array a "
          "closure cannot capture";
  else if (site->n_ops != 1 || !single_path(p, at, at->n_calls))
    why = "the producer's launch is reached by several call paths or from outside the training "
          "loop (a closure there would fire on all of them)";
  else if (loop_depth(g, at) > at->n_calls)
    why = "the producer is inside a loop deeper than its launch";
  else if (site->braces == 0 &&
           rw_is_unbraced_body(p->t->prog ? p->t->prog->files[at->stmt.file] : p->t,
                               site->stmt_begin))
    why = "the producer is a declaration used as an unbraced body";
  if (why) {
    not_emitted(pl, why);
    return 0;
  }
  pl->ptr = strdup(ga->ptr_local ? ga->ptr_local : "0");
  pl->bytes = sym_is_unknown(ga->bytes_local) ? NULL : sym_to_c(ga->bytes_local);
  pl->sbytes = sym_is_unknown(ga->bytes_local) ? NULL : sym_to_text(ga->bytes_local);
  if (!text_ok(pl->bytes) || !text_ok(pl->ptr)) {
    not_emitted(pl, "the producer's write extent is unknown");
    return 0;
  }
  /* the closure must be expressible: try it */
  rw_buf def = {0}, reg = {0};
  int rc = rw_closure_emit(g, site, a->at_op, 0, "", "", &def, &reg);
  rw_buf_free(&def);
  rw_buf_free(&reg);
  if (rc != 0) {
    not_emitted(pl, "the launch's configuration or argument types cannot be captured");
    return 0;
  }
  pl->emit = 1;
  pl->level = at->n_calls;
  pl->site = site;
  pl->file = at->stmt.file;
  pl->begin = site->stmt_begin;
  pl->end = site->stmt_end;
  return 0;
}

/* Note [guarded placement]
 * An op inside a function F_k called from several places (lenet's
 * ForwardPropagation: the training loop and the test loop) has no
 * single-path statement inside F_k: a plan call there would also fire on
 * the other calls, and a drop there could discard live data.  When
 * F_1..F_{k-1} are single-path, the call can still go inside F_k, guarded
 * by a path flag: the rewriter sets `tidal_path_N = 1;` before the one
 * call statement S at level k-1 and `tidal_path_N = 0;` after it, and
 * F_k's body starts with `const int tidal_on_path_N = tidal_path_N;
 * tidal_path_N = 0;`, so the activation entered from S sees 1 and every
 * other one, nested or recursive included, sees 0; the plan call is `if
 * (tidal_on_path_N) ...`.  Conditions: S and F_k's body are in one
 * program file (the flag is a static of that file), S is editable, not an
 * unbraced body, not a `return`, names F_k once and makes no other call
 * (one call of F_k per execution of S, and no argument that could reach
 * F_k first while the flag is set).  Replay runs the action at the same op as unguarded
 * (the trace is the training loop's path, the one the flag selects). */
static int name_count(const char *src, unsigned b, unsigned e, const char *name) {
  size_t n = strlen(name);
  int c = 0;
  for (unsigned i = b; n && i + n <= e; i++)
    if (!strncmp(src + i, name, n) && (i == b || !(isalnum((unsigned char)src[i - 1]) ||
                                                   src[i - 1] == '_')) &&
        (i + n == e || !(isalnum((unsigned char)src[i + n]) || src[i + n] == '_')))
      c++;
  return c;
}

/* 1 if op is the first static op run inside its level-(k-1) call statement
 * (where == BEFORE) or the last (AFTER). */
static int first_or_last_in_call(const graph *g, const graph_op *op, int k, plan_where where) {
  int first = -1, last = -1;
  for (int s = 0; s < g->n_ops; s++)
    if (same_prefix(&g->ops[s], op, k)) {
      if (first < 0) first = s;
      last = s;
    }
  return where == PLAN_BEFORE ? first == op->id : last == op->id;
}

/* The guard for placing at level k (statement at offset b of file) of op,
 * registered once per call statement; -1 with *why when none is possible,
 * -2 on allocation failure. */
static int guard_for(rw_placer *p, const graph_op *op, int k, unsigned b, int file,
                     const char **why) {
  unsigned cb, ce;
  int cfile;
  if (!level_stmt(p, op, k - 1, &cb, &ce, &cfile) || cfile != file || !p->t->prog ||
      file >= p->t->prog->n_files) {
    *why = "its op sits in a function called from several places, and the call from the "
           "training loop's path is not in the same editable file (no path flag possible)";
    return -1;
  }
  const pass_tu *ft = p->t->prog->files[file];
  const char *fn = op->calls[k - 1].function;
  const char *src = ft->main_source;
  unsigned sb = cb;
  while (sb < ce && strchr(" \t\r\n", src[sb])) sb++;
  /* one call in the statement: an argument that calls something could
   * enter F_k first, with the flag set, and take the flag from S's call */
  int parens = 0;
  for (unsigned i = cb; i < ce; i++) parens += src[i] == '(';
  if (rw_is_unbraced_body(ft, cb) || !strncmp(src + sb, "return", 6) ||
      name_count(src, cb, ce, fn) != 1 || parens != 1) {
    *why = "its op sits in a function called from several places, and the call from the "
           "training loop's path cannot carry a path flag (an unbraced body, a return, or "
           "another call in the same statement)";
    return -1;
  }
  /* the innermost body around b in that file: F_k's */
  const graph_file *sc = file < p->g->n_files ? &p->g->files[file] : NULL;
  int best = -1;
  for (int i = 0; sc && i < sc->n_fns; i++)
    if (sc->fns[i].begin < b && b < sc->fns[i].end &&
        (best < 0 || sc->fns[i].begin > sc->fns[best].begin))
      best = i;
  if (best < 0) {
    *why = "its op sits in a function called from several places whose body was not found";
    return -1;
  }
  for (int i = 0; i < p->n_guards; i++)
    if (p->guards[i].file == file && p->guards[i].call_begin == cb) return i;
  rw_guard *ng = realloc(p->guards, (size_t)(p->n_guards + 1) * sizeof *ng);
  if (!ng) return -2;
  p->guards = ng;
  p->guards[p->n_guards] = (rw_guard){p->n_guards, file, cb, ce, sc->fns[best].begin + 1};
  return p->n_guards++;
}

int rw_plan_place(rw_placer *p, const plan_action *a, rw_place *pl) {
  const graph *g = p->g;
  memset(pl, 0, sizeof *pl);
  pl->guard = -1;
  if (a->at_op < 0 || a->at_op >= g->n_ops || a->ref_op < 0 || a->ref_op >= g->n_ops) {
    not_emitted(pl, "the action names no op of the graph");
    return 0;
  }
  const graph_op *at = &g->ops[a->at_op], *ref = &g->ops[a->ref_op];
  if (a->ref_access < 0 || a->ref_access >= ref->n_acc) {
    not_emitted(pl, "the action names no access of its op");
    return 0;
  }
  if (a->kind == PLAN_RECOMPUTE) return place_recompute(p, a, pl);

  const graph_access *ga = &ref->acc[a->ref_access];
  int maxk = at->n_calls < ref->n_calls ? at->n_calls : ref->n_calls;
  while (maxk > 0 && !same_prefix(at, ref, maxk)) maxk--;
  int depth = loop_depth(g, at);
  const char *why = NULL;
  /* pass 0 prefers the call statement to a flag where both are the same
   * place; pass 1, when pass 0 placed nothing, takes the flag anyway */
  for (int pass = 0; pass < 2; pass++) {
  for (int k = maxk; k >= 0; k--) {
    /* F_k alone on several paths: a path flag (Note [guarded placement]) */
    int guarded = 0;
    if (!single_path(p, at, k)) {
      if (k < 1 || !single_path(p, at, k - 1)) {
        why = "its op sits in a function called from several places (or outside the training "
              "loop), and the range cannot be named further out";
        continue;
      }
      /* at the call's first op (before) or last op (after), the call
       * statement one level up is the same place and needs no flag */
      if (pass == 0 && first_or_last_in_call(g, at, k, a->where)) {
        why = "its op sits in a function called from several places";
        continue;
      }
      guarded = 1;
    }
    if (depth > k) {
      why = "a loop inside a called function runs the op several times per call, and the "
            "range cannot be named inside that loop";
      continue;
    }
    if (!ga->text_valid_at || !ga->text_valid_at[k] || !text_ok(ga->ptr_text_at[k]) ||
        !text_ok(ga->bytes_text_at[k])) {
      why = sym_is_unknown(ga->bytes) && sym_is_unknown(ga->bytes_local)
                ? "its extent is unknown"
                : "its pointer or size uses names not in scope where the call could go";
      continue;
    }
    unsigned b, e;
    int file;
    if (!level_stmt(p, at, k, &b, &e, &file)) {
      why = "the statement is not editable (inside a macro or another file)";
      continue;
    }
    graph_range sp = ga->text_span_at[k];
    if (!sp.editable || sp.file != file || b < sp.begin || b >= sp.end) {
      why = "its pointer or size uses a local not yet declared (or out of scope) where the call "
            "would go";
      continue;
    }
    pl->guard = -1;
    if (guarded) {
      const char *gwhy = NULL;
      int gi = guard_for(p, at, k, b, file, &gwhy);
      if (gi == -2) return -1;
      if (gi < 0) {
        why = gwhy;
        continue;
      }
      pl->guard = gi;
    }
    pl->emit = 1;
    pl->level = k;
    pl->file = file;
    pl->begin = b;
    pl->end = e;
    pl->ptr = strdup(ga->ptr_text_at[k]);
    pl->bytes = strdup(ga->bytes_text_at[k]);
    pl->sbytes = sym_is_unknown(ga->bytes) ? sym_to_text(ga->bytes_local) : sym_to_text(ga->bytes);
    if (!pl->ptr || !pl->bytes) return -1;
    if (k < at->n_calls) {
      pl->in_call = calloc((size_t)g->n_ops, 1);
      if (!pl->in_call) return -1;
      for (int s = 0; s < g->n_ops; s++) pl->in_call[s] = (unsigned char)same_prefix(&g->ops[s], at, k + 1);
    }
    return 0;
  }
  }
  not_emitted(pl, why ? why : "no call level can hold it");
  return 0;
}
