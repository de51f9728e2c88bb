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

int graph_build_from_options(const tidal_options *o, pass_tu **tu, graph *g) {
  memset(g, 0, sizeof *g);
  *tu = NULL;
  frontend_options fo = options_frontend(o);
  progress_stage("parsing");
  int rc = frontend_parse(&fo, tu);
  if (rc != TIDAL_EXIT_OK) return rc;
  protect_files_read(*tu); /* no output may replace a header the parse read */
  const char **names = calloc((size_t)o->n_binds + 1, sizeof *names);
  int64_t *values = calloc((size_t)o->n_binds + 1, sizeof *values);
  if (!names || !values) {
    diag_error(NULL, 0, 0, "out of memory");
    rc = TIDAL_EXIT_INTERNAL;
    goto out;
  }
  for (int i = 0; i < o->n_binds; i++) {
    names[i] = o->binds[i].name;
    values[i] = o->binds[i].value;
  }
  graph_options go = {o->loop_file, o->loop_line, o->n_binds, names, values, o->max_ops,
                      o->no_split};
  progress_stage("analysing the training loop");
  rc = graph_build(*tu, &go, g);
out:
  free(names);
  free(values);
  return rc;
}

const char *program_name(const tidal_options *o, const pass_tu *tu) {
  if (o->input) return o->input;
  return tu && tu->main_path ? tu->main_path : o->compdb_dir;
}
