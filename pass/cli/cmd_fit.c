/* cmd_fit.c - `tidal fit FILE.cu --budget SIZE --vary NAME=LO..HI
 * [--max-overhead PCT] [--bind N=V]... [--format text|json] [-o OUT]
 * [-- clang flags]`: the largest value of a size the program reads at run
 * time (a batch size from argv) whose plan, replayed, fits the budget.
 *
 * Note [fit]
 * "How big a batch can I train on my card, and at what cost?"  For a value
 * v of NAME, the program's graph is built with NAME bound to v, planned
 * for SIZE bytes and replayed with the data oracle (cli/plan_replay.c,
 * exactly what `tidal replay --bind NAME=v --budget SIZE` does); v fits
 * when the replay succeeds - the runtime did not refuse it, its peak is
 * within the budget and every checksum is equal - and the modelled
 * overhead of the steady state is at most PCT.  The search takes the
 * memory a program needs to grow with NAME (a batch, a sequence length):
 * LO is tried, then HI, then the middle of the range between the largest
 * value known to fit and the smallest known not to, until they are
 * adjacent.  Every value tried is reported, in the order tried.  The
 * parse is made once; each value builds its own graph (a size can change
 * which branches and setup loops run).  Exit status: 0 when some value
 * fits, 1 when none does (or on bad input), 2 on an internal error. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "base/progress.h"
#include "cli/build_graph.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "cli/output.h"
#include "cli/plan_replay.h"
#include "graph/graph.h"
#include "plan/costmodel.h"
#include "replay/replay.h"

#define FIT_MAX_TRIES 80 /* a 64-bit range halves in 64 steps, plus LO and HI */

typedef struct fit_cli {
  const char *vary;    /* NAME=LO..HI as given */
  char name[256];
  int64_t lo, hi;
  double max_overhead; /* fraction; --max-overhead 25% -> 0.25 */
} fit_cli;

/* One value tried. */
typedef struct fit_run {
  int64_t value;
  int fits;
  char why[640];     /* why it does not fit, or "" */
  replay_report rep; /* its replay */
} fit_run;

static void usage(FILE *fp) {
  fprintf(fp,
          "usage: tidal fit FILE.cu --budget SIZE --vary NAME=LO..HI [--max-overhead PCT]\n"
          "                 [--bind NAME=VALUE]... [--format text|json] [-o OUT] [-- clang flags]\n"
          "Finds the largest value of NAME (a size the program reads at run time, such as\n"
          "its batch size) from LO to HI whose memory plan, replayed on libtidal's CPU\n"
          "simulator as `tidal replay --bind NAME=VALUE --budget SIZE` does, fits SIZE\n"
          "bytes with every checksum equal and a modelled steady-state overhead of at\n"
          "most PCT (default 25%%).  It takes the memory to grow with NAME, tries LO, HI\n"
          "and then halves the range, and prints each value tried and the answer\n"
          "(JSON: largest, runs).  Exit status 1 when no value fits.\n\n"
          "options:\n");
  options_print_help(fp, "fit");
}

/* NAME=LO..HI (LO, HI integers with optional K/M/G; LO <= HI). */
static int parse_vary(fit_cli *c, const char *v) {
  const char *eq = strchr(v, '='), *dots = eq ? strstr(eq, "..") : NULL;
  char lo[64], hi[64];
  if (!eq || eq == v || !dots || (size_t)(eq - v) >= sizeof c->name) goto bad;
  memcpy(c->name, v, (size_t)(eq - v));
  c->name[eq - v] = '\0';
  if ((size_t)(dots - eq - 1) >= sizeof lo || strlen(dots + 2) >= sizeof hi) goto bad;
  memcpy(lo, eq + 1, (size_t)(dots - eq - 1));
  lo[dots - eq - 1] = '\0';
  snprintf(hi, sizeof hi, "%s", dots + 2);
  const char *ends[2] = {lo, hi};
  int64_t *out[2] = {&c->lo, &c->hi};
  for (int k = 0; k < 2; k++) {
    uint64_t b = 0;
    double pct = 0;
    size_t nd = strspn(ends[k], "0123456789");
    if (nd && !ends[k][nd] && nd <= 18)
      b = strtoull(ends[k], NULL, 10);
    else if (options_parse_size(ends[k], &b, &pct) != 0 || pct > 0)
      goto bad;
    if (b > (uint64_t)INT64_MAX) goto bad;
    *out[k] = (int64_t)b;
  }
  if (c->lo > c->hi || c->hi < 1) {
    diag_error(NULL, 0, 0, "--vary %s: LO must be at most HI, and HI at least 1", v);
    return -1;
  }
  return 0;
bad:
  diag_error(NULL, 0, 0, "--vary expects NAME=LO..HI (integers, K/M/G allowed: batch=1..4096), "
             "got '%s'", v);
  return -1;
}

static int fit_extra(void *ud, int argc, char **argv, int *i) {
  fit_cli *c = ud;
  const char *v = NULL;
  static const char *const names[] = {"--vary", "--max-overhead"};
  int k = options_named_value(argc, argv, i, names, 2, &v);
  if (k < 0) return k == -1 ? 0 : -1; /* not ours, or no value */
  if (k == 0) {
    c->vary = v;
    return parse_vary(c, v) == 0 ? 1 : -1;
  }
  char *end;
  errno = 0;
  double p = strtod(v, &end);
  if (*end == '%') end++;
  if (errno || end == v || *end || !(p >= 0 && p <= 1e9)) {
    diag_error(NULL, 0, 0, "--max-overhead expects a percentage of at least 0 (25%%), got '%s'", v);
    return -1;
  }
  c->max_overhead = p / 100.0;
  return 1;
}

static void fmt_mib(char *buf, size_t cap, uint64_t b) {
  snprintf(buf, cap, "%.1f MiB", (double)b / (1024.0 * 1024.0));
}

/* The graph of the program with NAME = r->value, planned and replayed;
 * r->fits and r->why say the verdict.  Returns an exit code: not OK only
 * when fit cannot go on (bad input, an internal error). */
static int try_value(const tidal_options *o, pass_tu *tu, const fit_cli *c, plan_mode mode,
                     uint64_t budget, const cost_model *cost, int first, fit_run *r) {
  graph g;
  tidal_trace trace;
  memset(&trace, 0, sizeof trace);
  plan_replay pr;
  memset(&pr, 0, sizeof pr);
  int have_trace = 0;
  int rc = graph_build_parsed(o, tu, &g, c->name, r->value);
  if (rc != TIDAL_EXIT_OK) goto out;
  if (first) {
    /* NAME must be a size the program uses: a typo would make every value
     * fit alike (and the --bind warnings, for the others) */
    const char *close = NULL;
    if (graph_warn_unused_binds(o, &g, c->name, &close)) {
      if (close)
        diag_error(NULL, 0, 0, "--vary %s: no size, loop or branch of the program uses '%s' (did "
                   "you mean '%s'?)", c->vary, c->name, close);
      else
        diag_error(NULL, 0, 0, "--vary %s: no size, loop or branch of the program uses '%s'",
                   c->vary, c->name);
      rc = TIDAL_EXIT_BAD_INPUT;
      goto out;
    }
  }
  rc = graph_unroll(&g, &trace); /* an unbound name other than NAME: said there */
  if (rc != TIDAL_EXIT_OK) goto out;
  have_trace = 1;
  if (trace.n_ops == 0) {
    diag_error(o->input, 0, 0, "the training loop has no ops to replay");
    rc = TIDAL_EXIT_BAD_INPUT;
    goto out;
  }
  plan_replay_request rq;
  memset(&rq, 0, sizeof rq);
  rq.mode = mode;
  rq.budget_bytes = budget;
  replay_options_default(&rq.ro);
  rq.ro.cost = *cost;
  if (plan_replay_env(&rq.ro) != 0) { /* as the program would run */
    rc = TIDAL_EXIT_BAD_INPUT;
    goto out;
  }
  rc = plan_replay_run(tu, &g, &trace, &rq, &pr);
  if (rc != TIDAL_EXIT_OK) goto out;
  r->rep = pr.rep;
  const replay_report *rep = &pr.rep;
  double ov = replay_overhead_steady(rep);
  char a[32], b[32];
  if (replay_ok(rep) && ov <= c->max_overhead + 1e-12) {
    r->fits = 1;
  } else if (replay_refused(rep)) {
    snprintf(r->why, sizeof r->why, "refused by the runtime: %s", rep->managed.error);
  } else if (rep->unmanaged.failed || rep->managed.failed) {
    snprintf(r->why, sizeof r->why, "its replay failed: %s",
             rep->unmanaged.failed ? rep->unmanaged.error : rep->managed.error);
  } else if (!rep->checksums_match) {
    snprintf(r->why, sizeof r->why, "the managed run computed different data (%d ops differ)",
             rep->mismatched_ops);
  } else if (!rep->budget_respected) {
    fmt_mib(a, sizeof a, rep->managed.peak_bytes);
    fmt_mib(b, sizeof b, rep->budget_bytes);
    snprintf(r->why, sizeof r->why, "its peak %s exceeds the budget %s", a, b);
  } else {
    snprintf(r->why, sizeof r->why, "modelled overhead %+.1f%% steady is over %+.1f%%", 100 * ov,
             100 * c->max_overhead);
  }
out:
  plan_replay_free(&pr);
  if (have_trace) trace_free(&trace);
  graph_free(&g);
  return rc;
}

static void print_run_text(FILE *f, const fit_cli *c, const fit_run *r) {
  char a[32], b[32], bud[32];
  const replay_report *rep = &r->rep;
  fmt_mib(a, sizeof a, rep->unmanaged.peak_bytes);
  fmt_mib(b, sizeof b, rep->managed.peak_bytes);
  fmt_mib(bud, sizeof bud, rep->budget_bytes);
  fprintf(f, "  %s=%" PRId64 ": ", c->name, r->value);
  if (r->fits)
    fprintf(f, "fits: peak %s -> %s, budget %s met, checksums match, modelled overhead %+.1f%% "
            "steady (first iteration %+.1f%%)\n", a, b, bud, 100 * replay_overhead_steady(rep),
            100 * replay_overhead_first(rep));
  else
    fprintf(f, "does not fit: %s (unmanaged peak %s)\n", r->why, a);
}

/* A ratio for JSON: null when not finite (JSON has no inf or nan; as
 * replay.c's output). */
static const char *jratio(char *buf, size_t cap, double v) {
  if (!isfinite(v)) return "null";
  snprintf(buf, cap, "%.6f", v);
  return buf;
}

static void print_json(FILE *f, const fit_cli *c, uint64_t budget, const fit_run *runs, int n,
                       int best) {
  char b1[40], b2[40];
  fprintf(f, "{\n  \"name\": ");
  replay_json_string(f, c->name);
  fprintf(f, ",\n  \"lo\": %" PRId64 ",\n  \"hi\": %" PRId64 ",\n", c->lo, c->hi);
  fprintf(f, "  \"budget_bytes\": %" PRIu64 ",\n  \"max_overhead\": %.6f,\n", budget,
          c->max_overhead);
  if (best >= 0) fprintf(f, "  \"largest\": %" PRId64 ",\n", runs[best].value);
  else fprintf(f, "  \"largest\": null,\n");
  fprintf(f, "  \"runs\": [");
  for (int i = 0; i < n; i++) {
    const fit_run *r = &runs[i];
    const replay_report *rep = &r->rep;
    fprintf(f, "%s\n    {\"value\": %" PRId64 ", \"fits\": %s, \"why\": ", i ? "," : "", r->value,
            r->fits ? "true" : "false");
    if (r->fits) fputs("null", f);
    else replay_json_string(f, r->why);
    fprintf(f, ", \"budget_bytes\": %" PRIu64 ", \"peak_unmanaged_bytes\": %" PRIu64
            ", \"peak_managed_bytes\": %" PRIu64 ", \"checksums_match\": %s, \"refused\": %s, "
            "\"modelled_overhead_steady\": %s, \"modelled_overhead_first\": %s}",
            rep->budget_bytes, rep->unmanaged.peak_bytes, rep->managed.peak_bytes,
            rep->checksums_match ? "true" : "false", replay_refused(rep) ? "true" : "false",
            jratio(b1, sizeof b1, replay_overhead_steady(rep)),
            jratio(b2, sizeof b2, replay_overhead_first(rep)));
  }
  fprintf(f, "\n  ]\n}\n");
}

int cmd_fit(int argc, char **argv) {
  tidal_options o;
  fit_cli c;
  memset(&c, 0, sizeof c);
  c.max_overhead = 0.25;
  pass_tu *tu = NULL;
  fit_run *runs = NULL;
  int n_runs = 0;
  output_file out;
  int opened = 0; /* out is open and not yet committed */
  int rc = options_parse(&o, argc, argv, (1u << FORMAT_TEXT) | (1u << FORMAT_JSON), fit_extra, &c);
  if (rc != 0) return rc;
  if (o.help) {
    usage(stdout);
    goto done;
  }
  uint64_t budget = 0;
  double pct = 0;
  if (!o.budget || !c.vary) {
    diag_error(NULL, 0, 0, "tidal fit needs --budget SIZE and --vary NAME=LO..HI (see tidal fit "
               "--help)");
    rc = TIDAL_EXIT_BAD_INPUT;
    goto done;
  }
  if (options_parse_size(o.budget, &budget, &pct) != 0 || pct > 0) {
    diag_error(NULL, 0, 0, "--budget '%s': tidal fit needs bytes (8G, 512M): a percentage of the "
               "peak would change with %s", o.budget, c.name);
    rc = TIDAL_EXIT_BAD_INPUT;
    goto done;
  }
  plan_mode mode = PLAN_MODE_AUTO;
  if (o.plan && plan_mode_parse(o.plan, &mode) != 0) {
    diag_error(NULL, 0, 0, "--plan must be auto, swap, recompute or none, not '%s'", o.plan);
    rc = TIDAL_EXIT_BAD_INPUT;
    goto done;
  }
  cost_model cost;
  cost_model_default(&cost);
  const char *bad_env = NULL;
  char why[256];
  if (cost_model_from_env(&cost, &bad_env, why, sizeof why) != 0) { /* as `tidal replay` reads them */
    diag_error(NULL, 0, 0, "malformed %s: %s", bad_env, why);
    rc = TIDAL_EXIT_BAD_INPUT;
    goto done;
  }
  frontend_options fo = options_frontend(&o);
  progress_stage("parsing");
  rc = frontend_parse(&fo, &tu);
  if (rc != TIDAL_EXIT_OK) goto done;
  protect_files_read(tu);
  runs = calloc(FIT_MAX_TRIES, sizeof *runs);
  if (!runs) {
    diag_error(NULL, 0, 0, "out of memory");
    rc = TIDAL_EXIT_INTERNAL;
    goto done;
  }
  const char *input = program_name(&o, tu);
  rc = output_open(&out, o.output);
  if (rc != 0) goto done;
  opened = 1;
  char bud[32];
  fmt_mib(bud, sizeof bud, budget);
  if (o.format == FORMAT_TEXT)
    fprintf(out.fp, "fit: the largest %s from %" PRId64 " to %" PRId64 " whose plan fits %s "
            "(replayed: checksums equal, modelled steady overhead at most %+.1f%%)\n", c.name, c.lo,
            c.hi, bud, 100 * c.max_overhead);
  /* Note [fit]: LO, HI, then halving between what fits and what does not */
  int good = -1, bad = -1; /* indices into runs */
  for (int step = 0; n_runs < FIT_MAX_TRIES; step++) {
    int64_t v;
    if (step == 0) v = c.lo;
    else if (step == 1) v = c.hi;
    else if (runs[bad].value - runs[good].value <= 1) break;
    else v = runs[good].value + (runs[bad].value - runs[good].value) / 2;
    fit_run *r = &runs[n_runs];
    r->value = v;
    char stage[320];
    snprintf(stage, sizeof stage, "trying %s=%" PRId64, c.name, v);
    progress_stage(stage);
    rc = try_value(&o, tu, &c, mode, budget, &cost, step == 0, r);
    if (rc != TIDAL_EXIT_OK) goto done;
    n_runs++;
    if (o.format == FORMAT_TEXT) print_run_text(out.fp, &c, r);
    if (r->fits) good = n_runs - 1;
    else bad = n_runs - 1;
    if (step == 0 && (!r->fits || c.lo == c.hi)) break; /* not even LO, or nothing else */
    if (step == 1 && r->fits) break;                     /* all of the range */
  }
  if (o.format == FORMAT_JSON) {
    print_json(out.fp, &c, budget, runs, n_runs, good);
  } else if (good >= 0) {
    fprintf(out.fp, "fit: %s=%" PRId64 " (modelled overhead %+.1f%% steady", c.name,
            runs[good].value, 100 * replay_overhead_steady(&runs[good].rep));
    if (bad >= 0) fprintf(out.fp, "; %s=%" PRId64 " does not fit", c.name, runs[bad].value);
    fprintf(out.fp, ")\n");
  } else {
    fprintf(out.fp, "fit: no %s from %" PRId64 " to %" PRId64 " fits\n", c.name, c.lo, c.hi);
  }
  opened = 0;
  rc = output_commit(&out);
  if (rc != 0) goto done;
  if (good < 0) {
    diag_error(input, 0, 0, "no %s from %" PRId64 " to %" PRId64 " fits %s: %s=%" PRId64 " %s",
               c.name, c.lo, c.hi, bud, c.name, runs[0].value, runs[0].why);
    rc = TIDAL_EXIT_BAD_INPUT;
  }
done:
  if (opened) output_abort(&out);
  free(runs);
  frontend_dispose(tu);
  options_free(&o);
  return rc;
}
