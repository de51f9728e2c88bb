/* cmd_graph.c - `tidal graph FILE.cu [--format text|json|dot] [-o OUT]
 * [--bind N=V]... [--loop FILE:LINE] [-p DIR] [-- clang flags]`.
 *
 * Parse, build the graph, emit.  The output is written through output.h
 * (temporary file, then rename): on any error no output file appears.
 * Exit codes as diag.h says. */
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
          "usage: tidal graph FILE.cu [--format text|json|dot] [-o OUT] [--bind NAME=VALUE]...\n"
          "                   [--loop FILE:LINE] [-p BUILD_DIR] [-- clang flags...]\n"
          "Shows the training loop tidal found, its ops, tensors and eviction candidates.\n");
  options_print_help(fp, "graph");
}

int cmd_graph(int argc, char **argv) {
  tidal_options o;
  pass_tu *t = NULL;
  graph g;
  memset(&g, 0, sizeof g);
  int rc = options_parse(&o, argc, argv,
                         (1u << FORMAT_TEXT) | (1u << FORMAT_JSON) | (1u << FORMAT_DOT), NULL, NULL);
  if (rc != 0) return rc;
  if (o.help) {
    usage(stdout);
    options_free(&o);
    return TIDAL_EXIT_OK;
  }
  rc = graph_build_from_options(&o, &t, &g);
  if (rc != 0) goto out;
  {
    /* Which allocations a rewrite would manage: the rewriter's own scan. */
    rw_scan *scans = NULL;
    int n_scans = 0;
    unsigned char *managed = NULL;
    if (rw_scan_program(t, &g, &scans, &n_scans) == 0) {
      managed = rw_program_allocs_managed(t, &g, scans, n_scans);
      rw_scans_free(scans, n_scans);
    }
    graph_coverage cov;
    graph_coverage_of(&g, managed, &cov);
    summary_graph_warnings(&g, managed);
    summary_line(o.input, &cov, NULL);
    rc = summary_check(o.input, &cov, NULL, 0, o.min_coverage);
    free(managed);
    if (rc != 0) goto out;
  }
  output_file out;
  rc = output_open(&out, o.output);
  if (rc != 0) goto out;
  int er = o.format == FORMAT_JSON  ? graph_emit_json(&g, out.fp)
           : o.format == FORMAT_DOT ? graph_emit_dot(&g, out.fp)
                                    : graph_emit_text(&g, out.fp);
  if (er != 0) {
    diag_error(NULL, 0, 0, "writing the output failed");
    output_abort(&out);
    rc = TIDAL_EXIT_BAD_INPUT;
    goto out;
  }
  rc = output_commit(&out);
out:
  graph_free(&g);
  frontend_dispose(t);
  options_free(&o);
  return rc;
}
