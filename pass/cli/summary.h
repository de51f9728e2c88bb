/* summary.h - never succeed silently: warnings for what tidal leaves out,
 * one summary line per run, and the checks that turn them into errors
 * (--require-plan, --min-coverage).  All on stderr. */
#ifndef TIDAL_PASS_SUMMARY_H
#define TIDAL_PASS_SUMMARY_H

#include "graph/coverage.h"
#include "graph/graph.h"
#include "rewrite/rewrite.h"
#include "replay/replay.h"

/* "file:line:col: warning:" for each allocation tidal cannot manage
 * (managed[i] == 0; graph_allocs_replaced) and each access it could not
 * attribute (the graph's notes). */
void summary_graph_warnings(const graph *g, const unsigned char *managed);
/* The same for a rewrite: op sites left uninstrumented, an unmet budget,
 * a budget asked for and no plan made. */
void summary_rewrite_warnings(const char *input, const rw_report *r, int budget_given,
                              const replay_report *cost);

/* "tidal: summary: FILE: ..." - what tidal manages and, for a rewrite, the
 * plan (or why there is none) and its cost: cost is the plan's replay on
 * the simulator (cli/plan_replay.c, Note [one model of cost]), NULL when
 * there was none to make. */
void summary_line(const char *input, const graph_coverage *c, const rw_report *r,
                  const replay_report *cost);

/* One line for the rewritten file's header: the replayed cost of the plan
 * (budget met, exceeded or refused; steady and first-iteration overhead). */
void summary_cost_note(const replay_report *cost, char *buf, size_t cap);

/* The same line for `tidal replay`: what tidal manages, then the measured
 * peaks of the unmanaged and managed runs, whether their data agree, and
 * the modelled overhead. */
void summary_replay_line(const char *input, const graph_coverage *c, const replay_report *r,
                         const plan_result *plan);

/* --require-plan / --min-coverage=PCT (min_coverage < 0: not asked).
 * Returns TIDAL_EXIT_OK, or prints "error:" and returns
 * TIDAL_EXIT_BAD_INPUT. */
int summary_check(const char *input, const graph_coverage *c, const rw_report *r,
                  int require_plan, double min_coverage, const replay_report *cost);

/* Managed share in percent: of bytes when every size is known, else of
 * allocations (100 when there are none). */
double summary_coverage_pct(const graph_coverage *c);

#endif
