/* build.c - graph_build: the order of the analysis passes.
 *
 * It runs the kernel analysis (analysis/kernels*.c), the training loop
 * choice (loop.c), the interpreter from main() (interp*.c) with the graph's
 * handlers plugged in (op sites, regions, graph loops: handlers.h), then
 * unrolls the iteration (unroll.c) and computes phases and liveness on it
 * (liveness.c), and last records every op site of the program (sites.c).
 * The top of the graph stage: nothing in graph/ calls back
 * into this file.  The builder's scratch state (store, strings) lives only
 * during graph_build; everything left in the graph is owned by it and
 * released by graph_free. */
#include <stdlib.h>
#include <string.h>

#include "base/stack.h"
#include "graph/callees.h"
#include "graph/written.h"
#include "graph/calltext.h"
#include "graph/interp.h"
#include "graph/liveness.h"
#include "graph/loop.h"
#include "graph/opsites.h"
#include "graph/regions.h"
#include "graph/sites.h"
#include "graph/unroll.h"

static CXCursor function_of(CXCursor c) {
  for (int guard = 0; guard < 256 && !clang_Cursor_isNull(c); guard++) {
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_FunctionDecl || k == CXCursor_CXXMethod) return c;
    if (k == CXCursor_TranslationUnit) break;
    c = clang_getCursorSemanticParent(c);
  }
  return clang_getNullCursor();
}

/* Drops loops that contain no op (host-side loops such as batch
 * generation): they only add noise to the graph and its readers. */
static void prune_loops(graph *g) {
  if (!g->n_loops) return;
  int *keep = calloc((size_t)g->n_loops, sizeof *keep);
  if (!keep) return;
  for (int i = 0; i < g->n_ops; i++)
    for (int l = g->ops[i].loop; l >= 0; l = g->loops[l].parent) keep[l] = 1;
  int n = 0;
  for (int l = 0; l < g->n_loops; l++) {
    if (!keep[l]) {
      free(g->loops[l].var);
      free(g->loops[l].file);
      keep[l] = -1;
      continue;
    }
    keep[l] = n;
    g->loops[n] = g->loops[l];
    g->loops[n].id = n;
    n++;
  }
  for (int l = 0; l < n; l++)
    if (g->loops[l].parent >= 0) g->loops[l].parent = keep[g->loops[l].parent];
  for (int i = 0; i < g->n_ops; i++) {
    if (g->ops[i].loop >= 0) g->ops[i].loop = keep[g->ops[i].loop];
    if (g->ops[i].top_loop >= 0) g->ops[i].top_loop = keep[g->ops[i].top_loop];
  }
  g->n_loops = n;
  free(keep);
}

/* Does some tensor get written and then, after other ops, read again in a
 * later op (activations saved for backward)? */
static int forward_then_backward(const graph *g) { return g->n_candidates > 0; }

/* The dry walk's handlers (interp_loop.c Note [state changed by calls]): an op
 * site or an allocation records nothing, but its arguments are evaluated
 * (a call inside one may change state); graph loops are recorded and
 * dropped again by the interpreter. */
static int quiet_op_site(gb *b, gb_frame *f, CXCursor call, const char *as) {
  if (!opsite_is_op(&b->g->kernels, call, as)) return 0;
  int n = clang_Cursor_getNumArguments(call);
  for (int i = 0; i < n; i++) gb_eval(b, f, clang_Cursor_getArgument(call, (unsigned)i));
  return 1;
}

static int quiet_alloc_call(gb *b, gb_frame *f, CXCursor call, const char *callee) {
  (void)callee;
  int n = clang_Cursor_getNumArguments(call);
  for (int i = 0; i < n; i++) gb_eval(b, f, clang_Cursor_getArgument(call, (unsigned)i));
  return 1;
}

static void quiet_pointer_stored(gb *b, const char *key, const char *name, gval *v) {
  (void)b;
  (void)key;
  (void)name;
  (void)v;
}

static void quiet_once_done(gb *b, gb_frame *f, int first_alloc) {
  (void)b;
  (void)f;
  (void)first_alloc;
}

static const gb_handlers quiet_handlers = {
    .op_site = quiet_op_site,
    .alloc_call = quiet_alloc_call,
    .pointer_stored = quiet_pointer_stored,
    .setup_done = regions_finish_setup, /* never called: the dry walk is inside the loop */
    .once_done = quiet_once_done,
    .graph_loop = loop_record,
};

static const gb_handlers handlers = {
    .op_site = opsite_handle,
    .alloc_call = regions_handle_call,
    .pointer_stored = regions_note_store,
    .setup_done = regions_finish_setup,
    .once_done = regions_once_done,
    .graph_loop = loop_record,
};

int graph_build(pass_tu *t, const graph_options *opt, graph *g) {
  memset(g, 0, sizeof *g);
  g->tu = t;
  g->unrolled_ops = -1;
  g->max_unrolled_ops = opt && opt->max_unrolled_ops > 0 ? opt->max_unrolled_ops : GRAPH_MAX_UNROLLED_OPS;
  g->no_split = opt && opt->no_split;
  int rc = kernels_analyze(t, &g->kernels);
  if (rc != 0) return rc;
  if (opt)
    for (int i = 0; i < opt->n_binds; i++)
      bind_set(&g->binds, opt->bind_names[i], opt->bind_values[i], BIND_USER);
  gb b;
  memset(&b, 0, sizeof b);
  b.h = &handlers;
  b.quiet = &quiet_handlers;
  b.g = g;
  b.t = t;
  b.a = t->arena;
  b.train_loop = clang_getNullCursor();
  b.unroll_product = 1;
  b.cur_branch = -1;
  rc = loop_choose(&b, opt, &b.train_loop);
  if (rc != 0) goto out;
  CXCursor fn = function_of(b.train_loop);
  if (!clang_Cursor_isNull(fn)) g->loop_function = string_and_dispose(clang_getCursorSpelling(fn));
  CXCursor mainfn = graph_find_main(t);
  if (!clang_Cursor_isNull(mainfn)) {
    gb_init_globals(&b);
    gb_run_function(&b, mainfn, NULL, clang_getNullCursor(), NULL, 0, NULL);
  }
  if (!b.reached_loop && !clang_Cursor_isNull(fn)) {
    /* The loop's function is not reached from main (or there is no main):
     * walk it on its own, its parameters symbolic. */
    b.mode = GB_SETUP;
    gb_run_function(&b, fn, NULL, clang_getNullCursor(), NULL, 0, NULL);
    if (b.reached_loop)
      gb_note(&b, b.train_loop, "the training loop's function '%s' is not reached from main() "
              "by direct calls (a test harness, a function pointer or a virtual call runs it): "
              "it is analysed on its own, its parameters unknown", g->loop_function);
  }
  /* A construct too deep to interpret was reported (base/stack.h): the
   * graph would miss whatever it held. */
  if (stack_exhausted()) {
    rc = TIDAL_EXIT_BAD_INPUT;
    goto out;
  }
  if (!b.reached_loop) {
    diag_error(g->loop_file, g->loop_line, g->loop_col,
               "internal error: the training loop was not reached by the analysis");
    rc = TIDAL_EXIT_INTERNAL;
    goto out;
  }
  prune_loops(g);
  bind_prune_unused(g);
  liveness_phases(g);
  tidal_trace trace;
  int ur = unroll_graph(g, &trace, 1);
  if (ur == 0) {
    liveness_candidates(g, &trace);
    trace_free(&trace);
  } else if (ur == UNROLL_TOO_LARGE) {
    rc = TIDAL_EXIT_BAD_INPUT; /* reported by unroll_graph */
    goto out;
  } else {
    liveness_candidates(g, NULL);
  }
  if (strncmp(g->loop_reason, "heuristic", 9) == 0 && forward_then_backward(g)) {
    size_t len = strlen(g->loop_reason) + 32;
    char *r = malloc(len);
    if (r) {
      snprintf(r, len, "%s, forward-then-backward", g->loop_reason);
      free(g->loop_reason);
      g->loop_reason = r;
    }
  }
  /* every op site of the program, the loop's ops among them (sites.c),
   * and how often each function on a call path is called (callrefs.c) */
  if (sites_build(g, &b.callees) != 0 || callrefs_count(g) != 0 || graph_relocatable(g, -1) != 0) {
    diag_error(NULL, 0, 0, "out of memory while recording the op sites");
    rc = TIDAL_EXIT_INTERNAL;
  }
out:
  calltext_free(&b);
  callees_free(b.callees);
  written_free(b.written);
  free(b.cursors);
  for (size_t i = 0; i < b.n_strs; i++) free(b.strs[i]);
  free(b.strs);
  free(b.tab);
  free(b.undo);
  free(b.dry_keys);
  return rc;
}

