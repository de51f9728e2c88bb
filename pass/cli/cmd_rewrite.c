/* cmd_rewrite.c - `tidal rewrite FILE.cu [-o OUT.cu] [--plan auto|swap|
 * recompute|none] [--budget SIZE|PCT] [--bind N=V]... [--loop FILE:LINE]
 * [-p DIR] [-- clang flags]`.
 *
 * Refuse tidal's own output (before parsing: it includes tidal.h, which the
 * parse may not find), parse, build the graph, rewrite (rewrite.c), write
 * through output.h (temporary file, then rename): on any error no output
 * file appears, and the input is only ever read.  The default plan is auto;
 * a percentage budget is of the plan's modelled unmanaged peak, as in
 * `tidal replay`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/build_graph.h"
#include "cli/commands.h"
#include "base/diag.h"
#include "graph/graph.h"
#include "cli/options.h"
#include "cli/output.h"
#include "cli/summary.h"
#include "rewrite/rewrite.h"

static void usage(FILE *fp) {
  fprintf(fp,
          "usage: tidal rewrite FILE.cu [-o OUT.cu] [--plan auto|swap|recompute|none]\n"
          "                     [--budget SIZE|PCT] [--bind NAME=VALUE]... [--loop FILE:LINE]\n"
          "                     [-p BUILD_DIR] [-- clang flags...]\n"
          "Writes FILE.cu with libtidal calls inserted: every op site instrumented, the\n"
          "training loop marked, cudaMalloc/cudaFree replaced, and the static memory plan\n"
          "as explicit calls.  Compile the result with -I<tidal>/include and link libtidal.\n");
  options_print_help(fp, "rewrite");
}

/* 1 if the file starts (within RW_MARKER_SCAN_BYTES) with tidal's marker. */
static int input_is_tidal_output(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return 0; /* the front end reports a missing file */
  char buf[RW_MARKER_SCAN_BYTES];
  size_t n = fread(buf, 1, sizeof buf, f);
  fclose(f);
  return rw_is_tidal_output(buf, n);
}

int cmd_rewrite(int argc, char **argv) {
  tidal_options o;
  pass_tu *t = NULL;
  graph g;
  memset(&g, 0, sizeof g);
  char *text = NULL;
  size_t text_n = 0;
  int rc = options_parse(&o, argc, argv, 1u << FORMAT_TEXT, NULL, NULL);
  if (rc != 0) return rc;
  if (o.help) {
    usage(stdout);
    options_free(&o);
    return TIDAL_EXIT_OK;
  }
  rw_request req;
  memset(&req, 0, sizeof req);
  req.mode = PLAN_MODE_AUTO;
  req.plan_name = o.plan ? o.plan : "auto";
  if (o.plan && plan_mode_parse(o.plan, &req.mode) != 0) {
    diag_error(NULL, 0, 0, "--plan must be auto, swap, recompute or none, not '%s'", o.plan);
    rc = TIDAL_EXIT_BAD_INPUT;
    goto out;
  }
  if (o.budget) {
    req.budget_text = o.budget;
    if (options_parse_size(o.budget, &req.budget_bytes, &req.budget_pct) != 0 ||
        req.budget_pct < 0 || req.budget_pct > 100) {
      diag_error(NULL, 0, 0, "bad --budget '%s' (bytes with K/M/G, or a percentage)", o.budget);
      rc = TIDAL_EXIT_BAD_INPUT;
      goto out;
    }
  }
  if (o.input && input_is_tidal_output(o.input)) {
    diag_error(o.input, 1, 1,
               "input was produced by tidal rewrite (rewrite the original source instead)");
    rc = TIDAL_EXIT_BAD_INPUT;
    goto out;
  }
  rc = graph_build_from_options(&o, &t, &g);
  if (rc != 0) goto out;
  rw_report rep;
  rc = rw_rewrite(t, &g, &req, &text, &text_n, &rep);
  if (rc == 0) {
    graph_coverage cov;
    graph_coverage_of(&g, rep.alloc_managed, &cov);
    summary_graph_warnings(&g, rep.alloc_managed);
    summary_rewrite_warnings(o.input, &rep, o.budget != NULL);
    summary_line(o.input, &cov, &rep);
    rc = summary_check(o.input, &cov, &rep, o.require_plan, o.min_coverage);
  }
  rw_report_free(&rep);
  if (rc != 0) goto out;
  rc = output_write_all(o.output, text, text_n);
out:
  free(text);
  graph_free(&g);
  frontend_dispose(t);
  options_free(&o);
  return rc;
}
