/* build_graph.c - parse, then graph_build with the command line's --bind
 * and --loop: shared by `tidal graph`, `tidal rewrite` and `tidal replay`
 * so that the three see the same graph for the same options.  The bind
 * arrays only live for the call (graph_build copies the names). */
#include <stdlib.h>
#include <string.h>

#include "cli/build_graph.h"
#include "base/progress.h"
#include "base/diag.h"
#include "cli/output.h"

static void protect_visitor(void *ud, const char *path) {
  (void)ud;
  output_protect(path);
}

void protect_files_read(const pass_tu *tu) { program_each_file_read(tu, protect_visitor, NULL); }

typedef struct unused_ctx {
  const tidal_options *o;
  const char *except; /* a name bound by the command, not --bind: reported to it */
  int except_unused;
  const char *except_close;
} unused_ctx;

static void unused_bind(void *ud, const char *name, const char *close) {
  unused_ctx *u = ud;
  const tidal_options *o = u->o;
  if (u->except && !strcmp(name, u->except)) {
    u->except_unused = 1;
    u->except_close = close;
    return;
  }
  const char *text = "";
  for (int i = 0; i < o->n_binds; i++)
    if (!strcmp(o->binds[i].name, name)) text = o->binds[i].text;
  if (close)
    diag_warning(NULL, 0, 0, "--bind %s=%s: no size, loop or branch of the program uses '%s' "
                 "(did you mean '%s'?); it has no effect", name, text, name, close);
  else
    diag_warning(NULL, 0, 0, "--bind %s=%s: no size, loop or branch of the program uses '%s'; it "
                 "has no effect", name, text, name);
}

int graph_warn_unused_binds(const tidal_options *o, const graph *g, const char *except,
                            const char **except_close) {
  unused_ctx u = {o, except, 0, NULL};
  bind_each_unused(g, unused_bind, &u);
  if (except_close) *except_close = u.except_close;
  return u.except_unused;
}

int graph_build_from_options(const tidal_options *o, pass_tu **tu, graph *g) {
  memset(g, 0, sizeof *g);
  *tu = NULL;
  frontend_options fo = options_frontend(o);
  progress_stage("parsing");
  int rc = frontend_parse(&fo, tu);
  if (rc != TIDAL_EXIT_OK) return rc;
  protect_files_read(*tu); /* no output may replace a header the parse read */
  rc = graph_build_parsed(o, *tu, g, NULL, 0);
  if (rc == TIDAL_EXIT_OK) graph_warn_unused_binds(o, g, NULL, NULL);
  return rc;
}

int graph_build_parsed(const tidal_options *o, pass_tu *tu, graph *g, const char *extra_name,
                       int64_t extra_value) {
  memset(g, 0, sizeof *g);
  int n = o->n_binds + (extra_name != NULL), rc;
  const char **names = calloc((size_t)n + 1, sizeof *names);
  int64_t *values = calloc((size_t)n + 1, sizeof *values);
  if (!names || !values) {
    diag_error(NULL, 0, 0, "out of memory");
    rc = TIDAL_EXIT_INTERNAL;
    goto out;
  }
  for (int i = 0; i < o->n_binds; i++) {
    names[i] = o->binds[i].name;
    values[i] = o->binds[i].value;
  }
  if (extra_name) { /* last: it wins over a --bind of the same name (bind_set replaces) */
    names[n - 1] = extra_name;
    values[n - 1] = extra_value;
  }
  graph_options go = {o->loop_file, o->loop_line, n, names, values, o->max_ops, o->no_split};
  progress_stage("analysing the training loop");
  rc = graph_build(tu, &go, g);
out:
  free(names);
  free(values);
  return rc;
}

const char *program_name(const tidal_options *o, const pass_tu *tu) {
  if (o->input) return o->input;
  return tu && tu->main_path ? tu->main_path : o->compdb_dir;
}
