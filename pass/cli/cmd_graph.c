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
#include "cli/emit.h"
#include "plan/plan.h"
#include "graph/graph.h"
#include "cli/options.h"
#include "cli/output.h"
#include "cli/summary.h"

static void usage(FILE *fp) {
  fprintf(fp,
          "usage: tidal graph FILE.cu [--format text|json|dot] [-o OUT] [--bind NAME=VALUE]...\n"
          "                   [--loop FILE:LINE] [-p BUILD_DIR] [-- clang flags...]\n"
          "Shows the training loop tidal found, its ops, tensors and eviction candidates.\n"
          "With --format dot, --plan/--budget draw the plan tidal rewrite would make.\n");
  options_print_help(fp, "graph");
}

/* The plan for --plan/--budget (as tidal rewrite makes it): 0 and *planned
 * set when one was made; a graph whose sizes are not all known draws no
 * plan, with a warning. */
static int dot_plan(const tidal_options *o, const graph *g, tidal_trace *trace, plan_result *plan,
                    int *planned) {
  plan_options po;
  plan_options_default(&po);
  if (o->plan && plan_mode_parse(o->plan, &po.mode) != 0) {
    diag_error(NULL, 0, 0, "--plan must be auto, swap, recompute or none, not '%s'", o->plan);
    return TIDAL_EXIT_BAD_INPUT;
  }
  uint64_t bytes = 0;
  double pct = 0;
  if (o->budget && options_parse_size(o->budget, &bytes, &pct) != 0) {
    diag_error(NULL, 0, 0, "bad --budget '%s'", o->budget);
    return TIDAL_EXIT_BAD_INPUT;
  }
  if (po.mode == PLAN_MODE_NONE) return TIDAL_EXIT_OK;
  if (g->unrolled_ops < 0 || graph_unroll(g, trace) != 0) {
    diag_warning(g->loop_file, g->loop_line, 0, "no plan drawn: the sizes are not all known "
                                                "(--bind them)");
    return TIDAL_EXIT_OK;
  }
  po.budget_bytes = pct > 0 ? (uint64_t)((double)plan_modelled_peak(trace, NULL, 0) * pct / 100.0)
                            : bytes;
  if (plan_make(trace, &po, plan) != 0) {
    trace_free(trace);
    diag_error(NULL, 0, 0, "out of memory while planning");
    return TIDAL_EXIT_INTERNAL;
  }
  trace_free(trace);
  *planned = 1;
  return TIDAL_EXIT_OK;
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
  if ((o.plan || o.budget) && o.format != FORMAT_DOT) {
    diag_error(NULL, 0, 0, "--plan and --budget only change what --format dot draws (the plan's "
                           "actions); use tidal rewrite or tidal replay for the plan itself");
    options_free(&o);
    return TIDAL_EXIT_BAD_INPUT;
  }
  tidal_trace trace;
  memset(&trace, 0, sizeof trace);
  plan_result plan;
  memset(&plan, 0, sizeof plan);
  int planned = 0, have_trace = 0;
  rc = graph_build_from_options(&o, &t, &g);
  if (rc == 0) o.input = program_name(&o, t); /* -p DIR alone gives none */
  if (rc != 0) goto out;
  {
    /* Which allocations a rewrite of the whole program would manage. */
    unsigned char *managed = graph_allocs_replaced(&g, -1);
    graph_coverage cov;
    graph_coverage_of(&g, managed, &cov);
    summary_graph_warnings(&g, managed);
    summary_line(o.input, &cov, NULL, NULL);
    rc = summary_check(o.input, &cov, NULL, 0, o.min_coverage, NULL);
    free(managed);
    if (rc != 0) goto out;
  }
  if ((o.plan || o.budget) && o.format == FORMAT_DOT) {
    /* The plan `tidal rewrite` would make, drawn on the graph. */
    rc = dot_plan(&o, &g, &trace, &plan, &planned);
    if (rc != 0) goto out;
  }
  output_file out;
  rc = output_open(&out, o.output);
  if (rc != 0) goto out;
  int er = o.format == FORMAT_JSON  ? graph_emit_json(&g, out.fp)
           : o.format == FORMAT_DOT ? graph_emit_dot(&g, planned ? &plan : NULL, out.fp)
                                    : graph_emit_text(&g, out.fp);
  if (er != 0) {
    diag_error(NULL, 0, 0, "writing the output failed");
    output_abort(&out);
    rc = TIDAL_EXIT_BAD_INPUT;
    goto out;
  }
  rc = output_commit(&out);
out:
  if (planned) plan_free(&plan);
  if (have_trace) trace_free(&trace);
  graph_free(&g);
  frontend_dispose(t);
  options_free(&o);
  return rc;
}
