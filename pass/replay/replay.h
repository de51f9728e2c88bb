/* replay.h - executing an op trace on the runtime's sim backend, unmanaged
 * and under a plan, and comparing the results.
 *
 * Each op goes through the real libtidal API (tidal_op_begin/op_end with its
 * declared accesses), then "runs": it reads every byte it declares, folding
 * them into a 64-bit hash seeded with its identity (static op, dynamic
 * index), and fills its written ranges from that hash.  So stale, missing or
 * wrongly recomputed data changes every later checksum.  Plan actions run
 * exactly where the rewritten program calls them (replay_place, from the
 * rewriter's own placement decision); actions it cannot emit do not run.
 * Recompute closures re-run the producer's replay with its captured
 * identity.  See docs/replay.md. */
#ifndef TIDAL_PASS_REPLAY_H
#define TIDAL_PASS_REPLAY_H

#include <stdint.h>
#include <stdio.h>
#include "plan/costmodel.h"
#include "plan/plan.h"
#include "graph/trace.h"
#include "tidal.h"

typedef enum replay_break {
  REPLAY_BREAK_NONE = 0,
  REPLAY_BREAK_SKIP_PREFETCH, /* prefetches not issued: faults rise, results still match */
  REPLAY_BREAK_DROP_LIVE,     /* every planned swap-out drops instead: results must differ */
  REPLAY_BREAK_SPLIT_NO_ADVANCE /* a split op's first elementwise argument is not advanced:
                                   every piece uses the first piece's range of it (a rewriter
                                   that forgot one pointer): results must differ */
} replay_break;

/* "skip-prefetch" / "drop-live" / "split-no-advance" -> mode; -1 if unknown. */
int replay_break_parse(const char *s, replay_break *out);

/* Where `tidal rewrite` emits one plan action (rewrite_place.c), so that
 * replay runs exactly what the rewritten program runs. */
typedef struct replay_place {
  int run;                      /* 0: the rewriter does not emit it: not executed */
  int level;                    /* call level of its statement (orders calls sharing a spot) */
  const unsigned char *in_call; /* NULL: next to its op; else, per static op, 1 if that op runs
                                   inside the call statement the action is placed at: the action
                                   runs before the call's first op / after its last op */
} replay_place;

typedef struct replay_options {
  uint64_t budget_bytes; /* of the managed run; 0 = unlimited */
  int iterations;        /* >= 2 so cross-iteration state matters; 0 = 2 */
  cost_model cost;       /* op durations and copy rates for the sim clock */
  uint64_t chunk_bytes;  /* runtime eviction unit (--chunk); 0 = the CUDA backend's 2 MiB,
                            doubled until the allocations span at most 24576 chunks */
  double budget_percent; /* --budget N%: the managed run's budget is N% of the unmanaged
                            run's peak in chunks (Note [budgets in chunks]); 0 = bytes */
  const char *sim_costs_path; /* --costs: the sim's cost model file, NULL = built in */
  replay_break brk;      /* test-only: deliberately break the plan */
  const replay_place *place; /* per plan action (plan->n_actions), or NULL: all at their ops */
  int n_static_ops;      /* length of every in_call array */
  const unsigned *pack;  /* per allocation: packing group (plan/pack.h, as rewrite emits it:
                            tidal_malloc_grouped), or NULL */
  tidal_planner planner; /* the managed run's TIDAL_PLANNER (the unmanaged run: lru);
                            default hints: the build-time plan alone */
  int vmm_thread;        /* TIDAL_VMM_THREAD: both runs queue driver calls for libtidal's
                            VMM worker, modelled on its own timeline */
  int prefetch_order_off; /* TIDAL_PREFETCH_ORDER=0: prefetch hints issued where called */
  int no_relocate;       /* TIDAL_RELOCATE=0: every allocation at home; else those the graph
                            finds relocatable (trace_alloc.relocatable) get the flag, as the
                            rewriter emits them, and every op's data goes through tidal_at */
  /* Several programs replayed at once (docs/replay.md, "Several programs"):
   * the managed run joins this shared budget (libtidal's arbiter) under
   * this group name; budget_bytes then only caps this program's share. */
  uint64_t shared_budget_bytes; /* 0 = not shared */
  const char *shared_name;
  const char *trace_path;  /* the managed run writes libtidal's trace here (tensors
                              annotated with their names and groups), or NULL */
  /* Per static op (n_static_ops entries each), or NULL: the host seconds
   * the rewritten program's launch of the op takes (a profile's launch
   * column; < 0 unknown), charged in the managed run only (the unmanaged
   * run stands for the original program, which launches for the cost
   * model's launch_s); and 1 where the op's call makes the host wait for
   * the device (cudaMemcpy to or from the host), in both runs. */
  const double *op_launch_s;
  const unsigned char *op_host_sync;
  /* The training loop waits for the device once an iteration
   * (graph.loop_device_syncs): both runs' hosts wait at each iteration's
   * end, 1 for every op and copy (cudaDeviceSynchronize as written: Note
   * [device sync], backend_sim.c), 2 for the ops only (the rewrite's
   * tidal_device_synchronize: Note [the program's sync], rewrite.c). */
  int device_sync;
  /* --sync-as-written: the loop's device sync waits for every copy (1)
   * even where the rewrite would make it tidal_device_synchronize (2): to
   * compare with a card that ran a rewrite from before that change. */
  int sync_as_written;
  void (*managed_start)(void *ud); /* called before the managed run, or NULL */
  void *managed_start_ud;
  int cost_only;         /* 1: no data oracle (ops do not read or write their bytes, the
                            checksums are not compared): only the runtime's actions and the
                            sim clock, which do not depend on the data - what `tidal rewrite`
                            and `tidal fit` need for their figures, at a fraction of the
                            time (Note [one model of cost], replay.c) */
} replay_options;

void replay_options_default(replay_options *o);

/* One run's figures, counted over the iterations only (not the initial
 * writes of live-in data), except peak_bytes, the run's high-water mark. */
typedef struct replay_run {
  uint64_t peak_bytes;
  uint64_t swapped_out_bytes;
  uint64_t swapped_in_bytes;
  uint64_t prefetched_bytes;
  uint64_t dropped_bytes;
  uint64_t recomputed_ops;
  uint64_t faults;
  uint64_t evictions;
  double modelled_s;     /* sim virtual clock over the iterations */
  double stall_s;
  int hint_errors;       /* plan calls that returned an error status */
  /* the run-time planner's own actions, in chunks: swap_out, prefetch,
   * drop, recompute; and the build-time hints it ran or skipped */
  uint64_t runtime_actions[4];
  uint64_t hints_run, hints_skipped, plans_built;
  uint64_t hint_iterations; /* run-time planner: iterations that ran the build-time hints as
                               written, its trial and after it kept them (Note [the hints as
                               a candidate]) */
  uint64_t prefetches_deferred; /* prefetch hints held back to need order (Note [prefetch
                                   order], runtime/memory/pace.c) */
  double last_modelled_s; /* the last iteration alone: the steady state */
  double last_stall_s;
  /* the last iteration's modelled breakdown (tidal_counters' modelled_*) */
  double last_vmm_s, last_host_wait_s, last_launch_wait_s, last_copy_wait_s;
  uint64_t vmm_calls;      /* map + unmap + set-access over the iterations */
  uint64_t last_vmm_calls; /* in the last iteration: the steady state */
  uint64_t last_faults;    /* in the last iteration */
  uint64_t last_reclaimed, last_rebound; /* last iteration: chunks taken back with no call
                                            (parked, and stale: Note [stale aliases]) */
  uint64_t last_swapped_out, last_swapped_in; /* last iteration: bytes copied each way */
  uint64_t split_ops;       /* last iteration: split ops that ran in more than one piece */
  uint64_t split_pieces;    /* and the pieces (op_begin/op_end pairs) they ran as */
  uint64_t shared_peak_bytes; /* shared budget: the most all its processes held at once,
                                 as seen at the end of this run */
  double first_modelled_s;  /* the first iteration alone: the cold start */
  /* The median of iterations 1 .. N-1 (the first alone when N is 1): the
   * last iteration is the headline, but a step can leave copies to the
   * next (Note [the program's sync]) and then steps differ; a card's
   * figure is a median of steps. */
  double median_modelled_s;
  uint64_t budget_bytes;    /* the budget the runtime enforced (whole chunks), 0: none */
  /* The last iteration's actions, in chunks (one trace event each: the
   * timeline's marks): swap-outs, prefetches, drops, recomputes, faults. */
  uint64_t last_actions[5];
  int failed;            /* the run stopped: error says why */
  tidal_status status;   /* the libtidal status that stopped it (TIDAL_OK: none, or not a
                            libtidal call); TIDAL_ERR_BUDGET: the runtime refused the run */
  char error[512];
} replay_run;

/* replay_run.last_actions, by index. */
enum { REPLAY_SWAP_OUTS, REPLAY_PREFETCHES, REPLAY_DROPS, REPLAY_RECOMPUTES, REPLAY_FAULTS };

typedef struct replay_report {
  /* Note [one budget]: the run's budget is the one the runtime enforced,
   * in whole chunks (budget_bytes); what the plan aimed at, in its byte
   * model without chunks, and what the runtime was asked for are kept for
   * the detail (JSON) only. */
  uint64_t budget_bytes;         /* the budget of the run: the runtime's, whole chunks; 0: none */
  uint64_t plan_budget_bytes;    /* replay_options.budget_bytes: what the plan aimed at */
  uint64_t runtime_budget_bytes; /* what the managed run's runtime was given */
  double budget_percent;         /* replay_options.budget_percent (0: bytes) */
  uint64_t chunk_bytes;          /* the runtime's eviction unit in both runs */
  int iterations;
  int n_ops;             /* dynamic ops per iteration */
  int stepped_accesses;  /* dynamic accesses that move with the training loop's counter: run
                            on iteration k's slice (graph/unroll.c, Note [stepped accesses]) */
  int64_t steps;         /* the counter's trip count (it wraps after), 0 if unknown */
  int unknown_extent_accesses; /* per iteration: accesses of unknown extent, declared to the
                                  end of their allocation (Note [unknown extents], replay.c) */
  int splittable_ops;    /* dynamic ops per iteration the pass proved elementwise
                            (trace_op.split_count > 0): they run in pieces when big */
  replay_run unmanaged;
  replay_run managed;
  int checksums_match;   /* every op's checksum and the final live-in state equal */
  int mismatched_ops;    /* dynamic ops (over all iterations) whose checksum differs */
  int device_sync;       /* replay_options.device_sync */
  int first_mismatch;    /* dynamic index of the first, -1 if none */
  char first_mismatch_label[256];
  int recompute_mismatches; /* re-runs whose result differed from the original */
  int final_state_match; /* live-in ranges (parameters, optimizer state) equal at the end */
  int budget_respected;  /* managed peak <= the runtime's budget (1 when no budget) */
  int cost_only;         /* replay_options.cost_only: the checksums were not compared */
  int actions_executed[5]; /* plan actions run, per plan_kind (static actions, not calls) */
  int unemitted_actions; /* planned actions the rewriter cannot emit, so not run */
  tidal_planner planner; /* the managed run's */
  const tidal_trace *trace; /* the trace replayed (its periodic branches are reported:
                               Note [periodic schedules]); must outlive the report's printing */
} replay_report;

/* Runs the trace unmanaged (no budget, no plan) and managed (budget, plan).
 * Returns 0 when both runs completed (the report says whether they agree),
 * -1 when the runtime could not be started or memory ran out (the report's
 * error fields say why). */
int replay_trace(const tidal_trace *t, const plan_result *plan, const replay_options *o,
                 replay_report *out);

/* The chunk size the runtime uses for this trace (Note [latency per chunk]). */
uint64_t replay_chunk_bytes(const tidal_trace *t, const replay_options *o);

/* 0 when the report is a success: both runs completed, checksums match and
 * the budget was respected. */
int replay_ok(const replay_report *r);

/* 1 when the runtime refused the managed run (TIDAL_ERR_BUDGET: an op's
 * working set does not fit the budget): no data was wrong; run.error says
 * which op and by how much. */
int replay_refused(const replay_report *r);

/* Note [steady headline]: the modelled overhead of the last iteration (the
 * steady state, the headline) and of the first (the cold start), as
 * fractions (0.25 = +25%). */
double replay_overhead_steady(const replay_report *r);
double replay_overhead_first(const replay_report *r);

/* "runtime", "hints", "lru" ("default" for TIDAL_PLANNER_DEFAULT). */
const char *replay_planner_name(tidal_planner p);

/* Writes the report as JSON (one object) or as text. */
/* Writes s as a JSON string (quoted, escaped); shared with the report of
 * several programs (cli/replay_multi.c). */
void replay_json_string(FILE *f, const char *s);

void replay_print_json(FILE *f, const replay_report *r, const plan_result *plan,
                       const char *mode_name);
void replay_print_text(FILE *f, const replay_report *r, const plan_result *plan,
                       const char *mode_name);

#endif
