/* replay_multi.h - `tidal replay a.cu b.cu --budget B`: several programs
 * replayed at once, each in its own process, under one shared budget.
 *
 * The parent forks one child per program; each child runs the ordinary
 * single-program replay (cmd_replay.c) whose managed run joins libtidal's
 * shared budget (the arbiter).  Parent and children talk over two pipes
 * per child, one line at a time (Note [multi-replay protocol],
 * replay_multi.c): each child reports its demand and is told the sum (its
 * plan is made for its expected share), all children start their managed
 * runs together, and each sends back its report and the group's peak. */
#ifndef TIDAL_PASS_REPLAY_MULTI_H
#define TIDAL_PASS_REPLAY_MULTI_H

#include <stdint.h>
#include <stdio.h>
#include "cli/options.h"

/* This process is one of several programs replayed at once. */
typedef struct replay_child {
  int up, down;        /* pipes to and from the parent */
  uint64_t total;      /* the shared budget */
  char group[64];      /* the arbiter group (TIDAL_SHARED_NAME) of this replay */
  FILE *report;        /* where the child writes its report */
} replay_child;

/* Replays one program: the options name one input; child is NULL when it
 * is the only program.  Returns an exit code. */
typedef int (*replay_program_fn)(tidal_options *o, void *ud, replay_child *child);

/* Runs every input in its own process through fn, under the shared budget
 * `budget` (bytes), and prints the combined report (JSON: `workloads`,
 * `combined_peak_bytes`) to o->output.  Returns an exit code: 0 when every
 * program's replay succeeded and the group's peak is within the budget. */
int replay_multi(tidal_options *o, const char *const *inputs, int n_inputs, uint64_t budget,
                 replay_program_fn fn, void *ud);

/* Child side.  The program's demand (bytes of its allocations) goes up; its
 * expected share of the total comes back (the budget its plan is made for). */
uint64_t replay_child_share(replay_child *c, uint64_t demand);
/* replay_options.managed_start: waits until every program is ready. */
void replay_child_ready(void *child);
/* The child's result, before its report: exit code and the group's peak. */
void replay_child_result(replay_child *c, int rc, uint64_t shared_peak);

#endif
