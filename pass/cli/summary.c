/* summary.c - see summary.h.
 *
 * Decisions:
 *  - Warnings are clang-style and point at the source line, so an editor
 *    jumps there; each says what tidal does instead (always something
 *    conservative: keep the memory resident, restore more than needed).
 *  - The summary line is one line, always printed (also on success), so a
 *    build log shows what tidal managed without opening the rewritten file.
 *  - Coverage is by bytes when every allocation's size is known, else by
 *    allocation count (sizes only known at run time). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/diag.h"
#include "cli/summary.h"
#include "base/progress.h"

static void fmt_bytes(char *buf, size_t cap, double b) {
  if (b >= 1024.0 * 1024 * 1024)
    snprintf(buf, cap, "%.2f GiB", b / (1024.0 * 1024 * 1024));
  else if (b >= 1024.0 * 1024)
    snprintf(buf, cap, "%.1f MiB", b / (1024.0 * 1024));
  else if (b >= 1024.0)
    snprintf(buf, cap, "%.1f KiB", b / 1024.0);
  else
    snprintf(buf, cap, "%.0f B", b);
}

void summary_graph_warnings(const graph *g, const unsigned char *managed) {
  for (int i = 0; i < g->n_allocs; i++) {
    const graph_alloc *a = &g->allocs[i];
    if (managed && managed[i]) continue;
    int64_t v;
    char b[32] = "";
    if (graph_eval(g, a->bytes, &v) == 0) fmt_bytes(b, sizeof b, (double)v);
    diag_warning(a->file, a->line, a->col,
                 "allocation '%s'%s%s%s is not managed: tidal cannot replace its call (%s); the "
                 "memory stays resident and outside the budget",
                 a->name ? a->name : "?", *b ? " (" : "", b, *b ? ")" : "",
                 g->tu && a->file && strcmp(a->file, g->tu->main_path) != 0
                     ? "it is outside the file being rewritten"
                     : "it is written inside a macro body");
  }
  for (int i = 0; i < g->n_notes; i++)
    diag_warning(g->notes[i].file, g->notes[i].line, g->notes[i].col, "%s", g->notes[i].message);
}

void summary_rewrite_warnings(const char *input, const rw_report *r, int budget_given,
                              const replay_report *cost) {
  if (cost && replay_refused(cost)) {
    char b[32];
    fmt_bytes(b, sizeof b, (double)cost->budget_bytes);
    diag_warning(input, 0, 0, "the runtime would refuse this program under the budget of %s "
                 "(TIDAL_ERR_BUDGET; found by replaying the plan on the simulator): %s", b,
                 cost->managed.error);
  } else if (cost && (cost->unmanaged.failed || cost->managed.failed)) {
    diag_warning(input, 0, 0, "the plan's cost is unknown: its replay on the simulator failed: "
                 "%s", cost->unmanaged.failed ? cost->unmanaged.error : cost->managed.error);
  }
  if (r->home_all_why && r->n_mems > 0)
    diag_warning(input, 0, 0, "no allocation is relocatable (each stays at home, moved by the "
                 "driver's mapping calls): %s", r->home_all_why);
  for (int i = 0; i < r->n_skipped; i++)
    diag_warning(input, r->skipped[i].line, r->skipped[i].col,
                 "op site '%s' is not instrumented: %s; the runtime cannot see what it touches",
                 r->skipped[i].label, r->skipped[i].why);
  for (int i = 0; i < r->n_homed; i++)
    diag_warning(input, r->homed[i].line, r->homed[i].col,
                 "op site '%s': %d pointer%s reach%s it through %s, not as an argument the "
                 "rewrite can pass at its current address (TIDAL_AT): the allocation%s %s point%s "
                 "into stay%s at home (tidal_home before the op; moved by the driver's mapping "
                 "calls)",
                 r->homed[i].label, r->homed[i].n, r->homed[i].n > 1 ? "s" : "",
                 r->homed[i].n > 1 ? "" : "es", r->homed[i].why, r->homed[i].n > 1 ? "s" : "",
                 r->homed[i].n > 1 ? "they" : "it", r->homed[i].n > 1 ? "" : "s",
                 r->homed[i].n > 1 ? "" : "s");
  if (r->planned && r->budget_bytes && !r->budget_met) {
    char want[32], got[32];
    fmt_bytes(want, sizeof want, (double)r->budget_bytes);
    fmt_bytes(got, sizeof got, (double)r->peak_after);
    if (!strcmp(want, got)) { /* "7.0 MiB: its modelled peak is 7.0 MiB" says nothing */
      snprintf(want, sizeof want, "%" PRIu64 " bytes", r->budget_bytes);
      snprintf(got, sizeof got, "%" PRIu64 " bytes", r->peak_after);
    }
    diag_warning(input, 0, 0,
                 "the plan does not meet the budget of %s: its modelled peak is %s (the runtime "
                 "still keeps the program inside the budget, faulting what it must)",
                 want, got);
  }
  if (!r->planned && budget_given && r->plan_emitted)
    diag_warning(input, 0, 0, "no plan was made for the budget: %s; the output is instrumented, "
                              "with %d candidate hints, and the runtime decides",
                 r->why_unplanned ? r->why_unplanned : "unknown reason", r->plan_emitted);
  else if (!r->planned && budget_given)
    diag_warning(input, 0, 0, "no plan was made for the budget: %s; the output is instrumented "
                              "only, and the runtime decides alone",
                 r->why_unplanned ? r->why_unplanned : "unknown reason");
}

double summary_coverage_pct(const graph_coverage *c) {
  if (c->bytes > 0) return 100.0 * (double)c->bytes_managed / (double)c->bytes;
  if (c->n_allocs > 0 && c->bytes < 0) return 100.0 * c->n_allocs_managed / c->n_allocs;
  return 100.0;
}

static void coverage_part(const char *input, const graph_coverage *c) {
  char managed[32], total[32];
  progress_clear_line();
  fprintf(stderr, "tidal: summary: %s: managed %d of %d allocations", input, c->n_allocs_managed,
          c->n_allocs);
  if (c->bytes >= 0) {
    fmt_bytes(managed, sizeof managed, (double)c->bytes_managed);
    fmt_bytes(total, sizeof total, (double)c->bytes);
    fprintf(stderr, " (%s of %s)", managed, total);
  } else {
    fprintf(stderr, " (sizes known at run time)");
  }
  fprintf(stderr, "; %d of %d accesses resolved", c->n_resolved, c->n_accesses);
  if (c->n_unresolved) fprintf(stderr, ", %d unresolved", c->n_unresolved);
}

/* "budget 18.0 MiB met, modelled overhead +208.7% steady (first iteration
 * +152.9%)" (Note [one budget], Note [steady headline] in replay.h). */
static void cost_part(char *buf, size_t cap, const replay_report *cost) {
  char before[32], after[32], budget[32];
  fmt_bytes(before, sizeof before, (double)cost->unmanaged.peak_bytes);
  fmt_bytes(after, sizeof after, (double)cost->managed.peak_bytes);
  fmt_bytes(budget, sizeof budget, (double)cost->budget_bytes);
  if (cost->unmanaged.failed || cost->managed.failed) {
    if (replay_refused(cost))
      snprintf(buf, cap, "budget %s REFUSED by the runtime (an op's working set does not fit)",
               budget);
    else
      snprintf(buf, cap, "cost unknown (its replay failed)");
    return;
  }
  int n = snprintf(buf, cap, "peak %s -> %s", before, after);
  if (cost->budget_bytes && n > 0 && (size_t)n < cap)
    n += snprintf(buf + n, cap - (size_t)n, ", budget %s %s", budget,
                  cost->budget_respected ? "met" : "EXCEEDED");
  if (n > 0 && (size_t)n < cap)
    snprintf(buf + n, cap - (size_t)n, ", modelled overhead %+.1f%% steady (first iteration "
             "%+.1f%%)", 100.0 * replay_overhead_steady(cost), 100.0 * replay_overhead_first(cost));
}

void summary_cost_note(const replay_report *cost, char *buf, size_t cap) {
  char part[256], chunk[32];
  cost_part(part, sizeof part, cost);
  fmt_bytes(chunk, sizeof chunk, (double)cost->chunk_bytes);
  snprintf(buf, cap, "cost, replayed on libtidal's simulator (%s chunks, the build-time plan's "
           "calls alone, as `tidal replay`): %s%s%s", chunk, part,
           replay_refused(cost) ? ": " : "", replay_refused(cost) ? cost->managed.error : "");
}

void summary_line(const char *input, const graph_coverage *c, const rw_report *r,
                  const replay_report *cost) {
  coverage_part(input, c);
  if (r) {
    if (r->n_skipped)
      fprintf(stderr, "; %d of %d op sites instrumented", r->n_sites, r->n_sites + r->n_skipped);
    fprintf(stderr, "; %d of %d allocations relocatable", r->n_relocatable, c->n_allocs_managed);
    if (r->planned && cost) { /* Note [one model of cost] (cli/plan_replay.c) */
      char part[256];
      cost_part(part, sizeof part, cost);
      fprintf(stderr, "; plan: %s", part);
    } else if (r->planned) {
      char before[32], after[32];
      fmt_bytes(before, sizeof before, (double)r->peak_before);
      fmt_bytes(after, sizeof after, (double)r->peak_after);
      fprintf(stderr, "; plan: peak %s -> %s", before, after);
      if (r->budget_bytes) fprintf(stderr, " (budget %s)", r->budget_met ? "met" : "NOT met");
      if (r->compute_s > 0)
        fprintf(stderr, ", modelled overhead %+.1f%%", 100.0 * r->overhead_s / r->compute_s);
    } else {
      fprintf(stderr, "; no plan: %s", r->why_unplanned ? r->why_unplanned : "?");
      if (r->plan_emitted) fprintf(stderr, "; %d candidate hints", r->plan_emitted);
    }
  }
  fputc('\n', stderr);
}

void summary_replay_line(const char *input, const graph_coverage *c, const replay_report *r,
                         const plan_result *plan) {
  coverage_part(input, c);
  char before[32], after[32], budget[32];
  fmt_bytes(before, sizeof before, (double)r->unmanaged.peak_bytes);
  fmt_bytes(after, sizeof after, (double)r->managed.peak_bytes);
  fmt_bytes(budget, sizeof budget, (double)r->budget_bytes);
  (void)plan;
  if (replay_refused(r)) { /* no data was wrong: say what the runtime said */
    fprintf(stderr, "; replay: budget %s REFUSED by the runtime (TIDAL_ERR_BUDGET): %s\n",
            budget, r->managed.error);
    return;
  }
  fprintf(stderr, "; replay: peak %s -> %s", before, after);
  /* Note [one budget] (replay.h): one figure, met or exceeded */
  if (r->budget_bytes)
    fprintf(stderr, ", budget %s %s", budget, r->budget_respected ? "met" : "EXCEEDED");
  if (r->unmanaged.failed || r->managed.failed) {
    fprintf(stderr, ", %s run FAILED\n", r->unmanaged.failed ? "unmanaged" : "managed");
    return;
  }
  if (r->cost_only)
    fprintf(stderr, ", checksums not compared");
  else
    fprintf(stderr, ", %s", r->checksums_match ? "checksums match" : "CHECKSUMS DIFFER");
  /* Note [steady headline] (replay.h) */
  if (r->unmanaged.last_modelled_s > 0)
    fprintf(stderr, ", modelled overhead %+.1f%% steady (first iteration %+.1f%%)",
            100.0 * replay_overhead_steady(r), 100.0 * replay_overhead_first(r));
  fputc('\n', stderr);
}

int summary_check(const char *input, const graph_coverage *c, const rw_report *r,
                  int require_plan, double min_coverage, const replay_report *cost) {
  int rc = TIDAL_EXIT_OK;
  if (require_plan && r && !r->planned) {
    diag_error(input, 0, 0, "--require-plan: no plan was made: %s",
               r->why_unplanned ? r->why_unplanned : "?");
    rc = TIDAL_EXIT_BAD_INPUT;
  } else if (require_plan && cost && replay_refused(cost)) {
    diag_error(input, 0, 0, "--require-plan: the runtime would refuse the program under the "
               "budget");
    rc = TIDAL_EXIT_BAD_INPUT;
  } else if (require_plan && r && r->budget_bytes && !r->budget_met) {
    diag_error(input, 0, 0, "--require-plan: the plan does not meet the budget");
    rc = TIDAL_EXIT_BAD_INPUT;
  }
  double pct = summary_coverage_pct(c);
  if (min_coverage >= 0 && pct + 1e-9 < min_coverage) {
    diag_error(input, 0, 0, "--min-coverage=%g%%: tidal manages %.1f%% of the program's %s", min_coverage,
               pct, c->bytes >= 0 ? "device memory" : "allocations");
    rc = TIDAL_EXIT_BAD_INPUT;
  }
  return rc;
}
