/* cmd_replay.c - `tidal replay`: parse, build the graph, bind, unroll, plan
 * (the same plan `tidal rewrite` makes), keep exactly the actions the
 * rewriter emits, where it emits them (rw_plan_place), and prove them on
 * the CPU by running the op trace through libtidal's sim backend unmanaged
 * and managed.
 *
 * --budget PCT is, for the runtime, that percentage of the unmanaged run's
 * peak in whole chunks, as a compiled program's runtime resolves it (the
 * run's one budget, Note [one budget] in replay.h), and for the planner
 * the same percentage of its modelled peak (so `rewrite` and `replay` make
 * the same plan).  The plan is made, placed and replayed by
 * cli/plan_replay.c.  Exit codes: 0 when checksums match and the budget was respected;
 * 1 for bad input or a failed proof (with a message saying which); 2 for an
 * internal error.  The test-only switch --break (or TIDAL_REPLAY_BREAK)
 * breaks the plan on purpose so tests can show the oracle fails. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <strings.h>
#include <unistd.h>

#include "cli/build_graph.h"
#include "base/progress.h"
#include "cli/commands.h"
#include "plan/costmodel.h"
#include "base/diag.h"
#include "frontend/frontend.h"
#include "graph/graph.h"
#include "cli/options.h"
#include "cli/profile_load.h"
#include "analysis/libcalls.h"
#include "cli/output.h"
#include "cli/plan_replay.h"
#include "cli/replay_multi.h"
#include "plan/pack.h"
#include "plan/plan.h"
#include "replay/replay.h"
#include "rewrite/rewrite.h"
#include "cli/summary.h"
#include "graph/coverage.h"

typedef struct replay_cli {
  cost_model cost;
  int iterations;
  replay_break brk;
  tidal_planner planner;
  int bad;
  int separate;         /* --separate-programs: each input is a program of its own, all
                           replayed at once under one shared budget (replay_multi.c) */
  uint64_t budget;      /* --budget in bytes (several programs: the shared total) */
  double pct;           /* --budget as a percentage (one program only) */
  uint64_t chunk;       /* --chunk: the runtime's chunk (0: replay's own choice) */
  const char *trace;    /* --trace FILE: the managed run's libtidal trace */
  const char *timeline; /* --timeline FILE.svg: its memory timeline */
  const char *costs;    /* --costs FILE: the sim's cost model (runtime/device/sim_costs.txt format) */
  const char *profile;  /* --profile FILE: measured op durations (TIDAL_PROFILE) */
  profile prof;         /* its lines, read and checked before any analysis */
  int model_only;       /* --model-only: modelled times alone, no data checked */
  int sync_as_written;  /* --sync-as-written: Note [the program's sync] not applied */
} replay_cli;

static int replay_extra(void *ud, int argc, char **argv, int *i) {
  replay_cli *c = ud;
  const char *a = argv[*i], *v = NULL;
  if (!strcmp(a, "--separate-programs")) {
    c->separate = 1;
    return 1;
  }
  if (strcmp(a, "--model-only") == 0) {
    c->model_only = 1;
    return 1;
  }
  if (strcmp(a, "--sync-as-written") == 0) {
    c->sync_as_written = 1;
    return 1;
  }
  static const char *const names[] = {"--cost", "--iterations", "--break", "--runtime-planner",
                                      "--trace", "--timeline", "--chunk", "--costs", "--profile"};
  int k = options_named_value(argc, argv, i, names, 9, &v);
  if (k < 0) return k == -1 ? 0 : -1; /* not ours, or no value */
  char why[256];
  if (k == 0 && cost_model_set_pair(&c->cost, v, why, sizeof why) != 0) {
    diag_error(NULL, 0, 0, "bad --cost: %s (e.g. --cost h2d_bw=25G)", why);
    return -1;
  }
  if (k == 1) {
    char *end;
    long n_it = strtol(v, &end, 10);
    if (*end || n_it < 2 || n_it > 1000) {
      diag_error(NULL, 0, 0, "--iterations must be an integer from 2 to 1000, not '%s'", v);
      return -1;
    }
    c->iterations = (int)n_it;
  }
  if (k == 6) {
    double pct = 0;
    uint64_t b = 0;
    if (options_parse_size(v, &b, &pct) != 0 || pct > 0 || b < 4096 || (b & (b - 1))) {
      diag_error(NULL, 0, 0, "--chunk must be a power of two of at least 4K, not '%s'", v);
      return -1;
    }
    c->chunk = b;
  }
  if (k == 4) c->trace = v;
  if (k == 5) c->timeline = v;
  if (k == 3) {
    static const char *const pn[] = {"runtime", "hints", "lru"};
    c->planner = TIDAL_PLANNER_DEFAULT;
    for (int q = 0; q < 3; q++)
      if (strcmp(v, pn[q]) == 0) c->planner = (tidal_planner)(TIDAL_PLANNER_RUNTIME + q);
    if (c->planner == TIDAL_PLANNER_DEFAULT) {
      diag_error(NULL, 0, 0, "--runtime-planner must be runtime, hints or lru, not '%s'", v);
      return -1;
    }
  }
  if (k == 7) c->costs = v;
  if (k == 8) c->profile = v;
  if (k == 2 && replay_break_parse(v, &c->brk) != 0) {
    diag_error(NULL, 0, 0, "--break must be skip-prefetch, drop-live or split-no-advance, "
               "not '%s'", v);
    return -1;
  }
  return 1;
}

static void usage(FILE *f) {
  fprintf(f, "usage: tidal replay FILE.cu... [--budget SIZE|PCT] [--plan auto|swap|recompute|none]\n"
             "                    [--bind NAME=VALUE]... [--format text|json] [-o OUT]\n"
             "                    [--runtime-planner runtime|hints|lru] [--iterations N]\n"
             "                    [--chunk SIZE] [--cost KEY=VALUE]... [--costs FILE]\n"
             "                    [--profile FILE] [--trace FILE] [--timeline FILE.svg]\n"
             "                    [--separate-programs] [--model-only] [--sync-as-written]\n"
             "                    [-- clang flags]\n"
             "Runs one training iteration's op trace (twice, or N times) on libtidal's CPU\n"
             "simulator, unmanaged and under the plan `tidal rewrite` would emit, and\n"
             "compares every op's output checksum.  --budget 50%% is half the unmanaged\n"
             "peak in the runtime's chunks; default: no budget (drops only).  The report's\n"
             "headline is the steady state (the last iteration).  Several FILEs are one\n"
             "program, as in every command; with --separate-programs each is a program of\n"
             "its own, replayed in its own process at the same time under one shared\n"
             "--budget SIZE (JSON: workloads, combined_peak_bytes).  --model-only: ops\n"
             "touch no data and checksums are not compared (JSON cost_only): the modelled\n"
             "times alone, faster (calibrating the cost model against a card).\n"
             "See docs/replay.md.\n\n"
             "options:\n");
  options_print_help(f, "replay");
}

/* The planner the managed run uses: --runtime-planner, else TIDAL_PLANNER,
 * else the run-time planner when there is no build-time plan (--plan none)
 * and the build-time plan's hints alone otherwise (what replay proves; a
 * compiled program's default differs, and the report says so: Note [which
 * planner] in replay.c).  -1 after an error. */
static int resolve_planner(tidal_planner asked, plan_mode mode, tidal_planner *out) {
  *out = asked;
  if (asked != TIDAL_PLANNER_DEFAULT) return 0;
  const char *pv = getenv("TIDAL_PLANNER");
  if (pv && *pv) {
    static const char *const pn[] = {"runtime", "hints", "lru"};
    for (int q = 0; q < 3; q++)
      if (strcasecmp(pv, pn[q]) == 0) *out = (tidal_planner)(TIDAL_PLANNER_RUNTIME + q);
    if (*out == TIDAL_PLANNER_DEFAULT) {
      diag_error(NULL, 0, 0, "TIDAL_PLANNER must be runtime, hints or lru, not '%s'", pv);
      return -1;
    }
  } else {
    *out = mode == PLAN_MODE_NONE ? TIDAL_PLANNER_RUNTIME : TIDAL_PLANNER_HINTS;
  }
  return 0;
}

/* One program: plan, place, replay, report.  child: one of several
 * programs replayed at once (replay_multi.c), else NULL. */
static int replay_program(tidal_options *op, void *ud, replay_child *child) {
  tidal_options o = *op;
  replay_cli *clip = ud, cli = *clip;
  int rc, reported = 0;
  plan_mode mode = PLAN_MODE_AUTO;
  if (o.plan && plan_mode_parse(o.plan, &mode) != 0) {
    diag_error(NULL, 0, 0, "--plan must be auto, swap, recompute or none, not '%s'", o.plan);
    if (child) replay_child_result(child, TIDAL_EXIT_BAD_INPUT, 0);
    return TIDAL_EXIT_BAD_INPUT;
  }

  pass_tu *tu = NULL;
  graph g;
  memset(&g, 0, sizeof g);
  tidal_trace trace;
  memset(&trace, 0, sizeof trace);
  int have_trace = 0;
  plan_replay pr;
  memset(&pr, 0, sizeof pr);
  double *op_seconds = NULL, *op_launch = NULL;
  char tmp_trace[] = "/tmp/tidal-replay-trace-XXXXXX";
  int have_tmp = 0;

  rc = graph_build_from_options(&o, &tu, &g);
  if (rc == 0) o.input = program_name(&o, tu); /* -p DIR alone gives none */
  if (rc != TIDAL_EXIT_OK) goto out;
  rc = graph_unroll(&g, &trace);
  if (rc != TIDAL_EXIT_OK) goto out;
  have_trace = 1;
  if (cli.profile) { /* measured op durations for the plan and the sim clock */
    int matched = 0;
    if (profile_match(&cli.prof, &g, &op_seconds, &op_launch, &matched) != 0) {
      rc = TIDAL_EXIT_INTERNAL;
      goto out;
    }
    cli.cost.op_seconds = op_seconds;
    cli.cost.n_op_seconds = g.n_ops;
    if (matched == 0)
      diag_warning(cli.profile, 0, 0, "no op site of %s is in the profile: roofline estimates "
                   "used", o.input);
  }
  if (trace.n_ops == 0) {
    diag_error(o.input, 0, 0, "the training loop has no ops to replay");
    rc = TIDAL_EXIT_BAD_INPUT;
    goto out;
  }

  plan_replay_request rq;
  memset(&rq, 0, sizeof rq);
  rq.mode = mode;
  rq.budget_bytes = cli.budget;
  rq.budget_pct = child ? 0 : cli.pct;
  if (child) { /* plan for the share the arbiter will give this program */
    uint64_t demand = 0;
    for (int a = 0; a < trace.n_allocs; a++) demand += trace.allocs[a].bytes;
    rq.budget_bytes = replay_child_share(child, demand);
  }
  /* a budget holds whole chunks (replay.c, Note [budgets in chunks]) */
  uint64_t want = rq.budget_bytes;
  if (!child && rq.budget_pct > 0)
    want = (uint64_t)((double)plan_modelled_peak(&trace, NULL, 0) * rq.budget_pct / 100.0);
  if (!child && want && want < (cli.chunk ? cli.chunk : (uint64_t)4 << 10)) {
    if (cli.chunk)
      diag_error(o.input, 0, 0, "the budget of %llu bytes is below one chunk (--chunk %llu): "
                 "device memory is held in whole chunks; give a budget of at least one chunk "
                 "or a smaller --chunk", (unsigned long long)want,
                 (unsigned long long)cli.chunk);
    else
      diag_error(o.input, 0, 0, "the budget of %llu bytes is below the smallest chunk (4096 "
                 "bytes): device memory is held in whole chunks", (unsigned long long)want);
    rc = TIDAL_EXIT_BAD_INPUT;
    goto out;
  }
  replay_options *ro = &rq.ro;
  replay_options_default(ro);
  ro->chunk_bytes = cli.chunk;
  ro->sim_costs_path = cli.costs;
  ro->cost = cli.cost;
  ro->op_launch_s = op_launch; /* Note [host costs per site], replay.c */
  ro->cost_only = cli.model_only;             /* --model-only: Note [one model of cost] */
  ro->sync_as_written = cli.sync_as_written;
  if (resolve_planner(cli.planner, mode, &ro->planner) != 0 ||
      options_env_flag("TIDAL_VMM_THREAD", 0, &ro->vmm_thread) != 0 || plan_replay_env(ro) != 0) {
    rc = TIDAL_EXIT_BAD_INPUT;
    goto out;
  }
  /* the run-time planner records one iteration, then plans and learns */
  if (ro->planner == TIDAL_PLANNER_RUNTIME) ro->iterations = 4;
  if (child) { /* the managed run shares the total; its own cap is the total */
    rq.runtime_budget_bytes = child->total;
    ro->shared_budget_bytes = child->total;
    ro->shared_name = child->group;
    ro->managed_start = replay_child_ready;
    ro->managed_start_ud = child;
  }
  if (cli.iterations) ro->iterations = cli.iterations;
  ro->brk = cli.brk;
  /* --timeline without --trace: the trace goes to a temporary file. */
  ro->trace_path = cli.trace;
  if (!child && cli.timeline && !cli.trace) {
    int fd = mkstemp(tmp_trace);
    if (fd < 0) {
      diag_error(NULL, 0, 0, "cannot create a temporary trace file: %s", strerror(errno));
      rc = TIDAL_EXIT_INTERNAL;
      goto out;
    }
    close(fd);
    have_tmp = 1;
    ro->trace_path = tmp_trace;
  }
  rc = plan_replay_run(tu, &g, &trace, &rq, &pr);
  if (rc != TIDAL_EXIT_OK) goto out;
  replay_report *rep = &pr.rep;
  plan_result *plan = &pr.plan;

  int failed = !replay_ok(rep);
  if (child) { /* the report goes to the parent, after the result line */
    replay_child_result(child, failed ? TIDAL_EXIT_BAD_INPUT : TIDAL_EXIT_OK,
                        rep->managed.shared_peak_bytes);
    reported = 1;
    if (o.format == FORMAT_JSON) replay_print_json(child->report, rep, plan, plan_mode_name(mode));
    else replay_print_text(child->report, rep, plan, plan_mode_name(mode));
    fflush(child->report);
  } else {
    output_file out;
    rc = output_open(&out, o.output);
    if (rc != 0) goto out;
    if (o.format == FORMAT_JSON) replay_print_json(out.fp, rep, plan, plan_mode_name(mode));
    else replay_print_text(out.fp, rep, plan, plan_mode_name(mode));
    rc = output_commit(&out);
    if (rc != 0) goto out;
    {
      unsigned char *managed = graph_allocs_replaced(&g, -1);
      graph_coverage cov;
      graph_coverage_of(&g, managed, &cov);
      free(managed);
      summary_replay_line(o.input, &cov, rep, plan);
    }
    if (cli.timeline && !rep->unmanaged.failed && !rep->managed.failed) {
      char title[512];
      snprintf(title, sizeof title, "tidal replay %s, budget %s", o.input,
               o.budget ? o.budget : "none");
      rc = report_render(ro->trace_path, cli.timeline, -1, title, rep->unmanaged.peak_bytes);
      if (rc == 0) {
        progress_clear_line();
        fprintf(stderr, "tidal: memory timeline: %s\n", cli.timeline);
      }
    }
  }

  if (failed) {
    if (rep->unmanaged.failed)
      diag_error(o.input, 0, 0, "replay failed (unmanaged run): %s", rep->unmanaged.error);
    else if (replay_refused(rep)) /* not wrong data: the budget is too small for an op */
      diag_error(o.input, 0, 0, "the runtime refused the managed run under the budget of %llu "
                 "bytes: %s", (unsigned long long)rep->budget_bytes, rep->managed.error);
    else if (rep->managed.failed)
      diag_error(o.input, 0, 0, "replay failed (managed run): %s", rep->managed.error);
    else if (!rep->checksums_match)
      diag_error(o.input, 0, 0, "the managed run computed different data: %d ops differ, "
                 "first at '%s'%s", rep->mismatched_ops,
                 rep->first_mismatch >= 0 ? rep->first_mismatch_label : "(final state)",
                 cli.brk != REPLAY_BREAK_NONE ? " (plan deliberately broken by --break)" : "");
    else
      diag_error(o.input, 0, 0, "the managed run's peak %llu bytes exceeds the budget %llu",
                 (unsigned long long)rep->managed.peak_bytes,
                 (unsigned long long)rep->budget_bytes);
    rc = TIDAL_EXIT_BAD_INPUT;
  }
out:
  if (have_tmp) unlink(tmp_trace);
  plan_replay_free(&pr);
  if (have_trace) trace_free(&trace);
  graph_free(&g);
  frontend_dispose(tu);
  free(op_seconds);
  free(op_launch);
  if (child && !reported) replay_child_result(child, rc ? rc : TIDAL_EXIT_INTERNAL, 0);
  return rc;
}

int cmd_replay(int argc, char **argv) {
  tidal_options o;
  replay_cli cli;
  memset(&cli, 0, sizeof cli);
  cost_model_default(&cli.cost);
  const char *bad_env = NULL;
  char why[256];
  if (cost_model_from_env(&cli.cost, &bad_env, why, sizeof why) != 0) {
    diag_error(NULL, 0, 0, "malformed %s: %s", bad_env, why);
    return TIDAL_EXIT_BAD_INPUT;
  }
  const char *env_break = getenv("TIDAL_REPLAY_BREAK");
  if (env_break && *env_break && replay_break_parse(env_break, &cli.brk) != 0) {
    diag_error(NULL, 0, 0, "TIDAL_REPLAY_BREAK must be skip-prefetch, drop-live or "
               "split-no-advance");
    return TIDAL_EXIT_BAD_INPUT;
  }
  int rc = options_parse(&o, argc, argv, (1u << FORMAT_TEXT) | (1u << FORMAT_JSON),
                         replay_extra, &cli);
  if (rc != 0) goto done;
  if (o.help) {
    usage(stdout);
    goto done;
  }
  /* The files replay reads; --trace and --timeline may replace none of
   * them (Note [protected files] in output.c; options_parse protected the
   * inputs). */
  output_protect(cli.costs);
  output_protect(cli.profile);
  if (output_check(cli.trace) != 0 || output_check(cli.timeline) != 0) {
    rc = TIDAL_EXIT_BAD_INPUT;
    goto done;
  }
  if (cli.costs) {
    /* The file's copy figures drive the sim and the plan's model alike,
     * unless --cost or TIDAL_COST_<KEY> chose them (those win); a bad file
     * is refused here, before any analysis (runtime/device/costs.c, Note [cost
     * file checks]). */
    tidal_sim_copy_costs fc;
    if (tidal_sim_copy_costs_read(cli.costs, &fc) != TIDAL_OK) {
      diag_error(NULL, 0, 0, "--costs: %s", tidal_last_error());
      rc = TIDAL_EXIT_BAD_INPUT;
      goto done;
    }
    if (!(cli.cost.set_keys & (1u << COST_H2D_BW))) cli.cost.h2d_bytes_per_s = fc.h2d_bytes_per_s;
    if (!(cli.cost.set_keys & (1u << COST_D2H_BW))) cli.cost.d2h_bytes_per_s = fc.d2h_bytes_per_s;
    if (!(cli.cost.set_keys & (1u << COST_LATENCY))) cli.cost.copy_latency_s = fc.copy_latency_s;
  }
  if (cli.profile && profile_read(cli.profile, &cli.prof) != 0) {
    rc = TIDAL_EXIT_BAD_INPUT;
    goto done;
  }
  if (o.budget && (options_parse_size(o.budget, &cli.budget, &cli.pct) != 0 || cli.pct < 0 ||
                   cli.pct > 100)) {
    diag_error(NULL, 0, 0, "bad --budget '%s' (bytes with K/M/G, or a percentage)", o.budget);
    rc = TIDAL_EXIT_BAD_INPUT;
    goto done;
  }
  /* Several files are one program, as in every command (docs/design.md,
   * "Whole-program input"); separate programs sharing a budget say so. */
  if (cli.separate) {
    if (o.n_inputs < 2) {
      diag_error(NULL, 0, 0, "--separate-programs replays two or more programs (FILE.cu FILE.cu "
                 "...), each under its share of one --budget");
      rc = TIDAL_EXIT_BAD_INPUT;
      goto done;
    }
    if (!o.budget || cli.pct > 0) {
      diag_error(NULL, 0, 0, "several programs share one budget: give it in bytes "
                 "(--budget 18M), not %s", o.budget ? "a percentage" : "none");
      rc = TIDAL_EXIT_BAD_INPUT;
      goto done;
    }
    rc = replay_multi(&o, o.inputs, o.n_inputs, cli.budget, replay_program, &cli);
    goto done;
  }
  rc = replay_program(&o, &cli, NULL);
done:
  options_free(&o);
  profile_free(&cli.prof);
  return rc;
}
