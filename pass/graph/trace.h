/* trace.h - one training iteration unrolled into concrete ops.
 *
 * The graph (graph.h) keeps loop structure and symbolic sizes; once every
 * symbol is bound (--bind, or compile-time constants in the source) it is
 * unrolled into this flat, concrete form, which the planner (plan.h) and
 * `tidal replay` consume.  Everything here is plain data owned by the
 * trace: trace_free releases it. */
#ifndef TIDAL_PASS_TRACE_H
#define TIDAL_PASS_TRACE_H

#include <stdint.h>
#include "analysis/kernels.h" /* access_mode, enum kernel_flags */
#include "tidal.h"            /* TIDAL_SPLIT_GRAIN */

typedef struct trace_alloc {
  char *name;     /* the variable the allocation was stored to ("acts_memory") */
  uint64_t bytes;
  int persistent; /* allocated before the loop and never freed inside it */
  int relocatable;/* graph_alloc.relocatable: replay allocates it TIDAL_GROUP_RELOCATABLE */
} trace_alloc;

/* What a tensor is to training, from the phases that touch it (groups.c):
 * the memory timeline stacks resident bytes by group. */
enum trace_group {
  TRACE_GROUP_PARAMETERS = 0, /* read by forward/backward, written by the update */
  TRACE_GROUP_OPTIMIZER = 1,  /* touched by the update only (moments, master weights) */
  TRACE_GROUP_GRADIENTS = 2,  /* written by backward */
  TRACE_GROUP_ACTIVATIONS = 3,/* written by forward */
  TRACE_GROUP_OTHER = 4,
  TRACE_NGROUPS = 5
};
const char *trace_group_name(int group); /* "parameters", "optimizer state", ... */

typedef struct trace_tensor {
  char *name;     /* region name, with the layer index for slices ("acts.ln1[l=3]") */
  int group;      /* enum trace_group */
  int alloc;      /* index into trace.allocs */
  uint64_t offset;/* bytes from the start of the allocation */
  uint64_t bytes;
} trace_tensor;

typedef struct trace_access {
  int tensor;        /* index into trace.tensors */
  uint64_t offset;   /* bytes from the start of the allocation (not the tensor) */
  uint64_t bytes;    /* may be the whole tensor when the extent was unknown */
  access_mode mode;
  int exact;         /* 1 if bytes is exactly what the op touches (drop needs it) */
  int static_access; /* index of this access in its graph op's access list */
  uint32_t split_elem_bytes; /* split ops: bytes per element (trace_op.split_count) */
  /* An access that moves with the training loop's counter (unroll.c, Note
   * [stepped accesses]): offset/bytes above are the whole range the loop's
   * steps cover (what the planner sees), and step k (k = 0 the first)
   * touches step_bytes at step_offset + k * step_stride, clipped to that
   * range (trace_access_at).  stepped 0: the same bytes every step. */
  int stepped;
  uint64_t step_offset;
  uint64_t step_bytes;
  int64_t step_stride;
  /* An access of a periodic op (TRACE_PERIODIC) that, when the op runs,
   * writes every byte of its range without reading it (the graph's exact
   * write).  mode/exact above say readwrite, inexact: the op may not run,
   * so the plan never counts on it overwriting anything; but a read that
   * follows it can only see its bytes or run not at all, so data it is the
   * next access to is dead when the next unconditional access overwrites it
   * too (plan.c, Note [overwrites across periodic branches]).  The program
   * declares it TIDAL_WRITE, and so does replay. */
  int run_exact_write;
  /* The extent was not known (an index read from memory: llm.c's token
   * ids into the embedding).  offset/bytes run to the end of its carved
   * region, which is what the plan models; the rewritten program declares
   * TIDAL_EXTENT_UNKNOWN, to the end of the allocation, and so does
   * replay (Note [unknown extents], replay.c). */
  int unknown_extent;
} trace_access;

/* TRACE_PERIODIC: under `if (step % N == 0)` - not every iteration (graph.h
 * graph_branch); its writes are never taken to overwrite anything. */
enum trace_phase {
  TRACE_FORWARD = 0, TRACE_BACKWARD = 1, TRACE_UPDATE = 2, TRACE_OTHER = 3, TRACE_PERIODIC = 4
};

typedef struct trace_op {
  int static_op;    /* graph op id this is an instance of */
  char *label;      /* "layernorm_forward -> layernorm_forward_kernel [l=3]" */
  unsigned flags;   /* enum kernel_flags of the op (RNG, nondeterministic...) */
  int phase;        /* enum trace_phase */
  int branch;       /* TRACE_PERIODIC: the graph's periodic branch it runs under (ops of one
                       branch run together or not at all); else unused */
  double flops;     /* estimated floating-point work, 0 if unknown */
  int scope;        /* ops with the same scope run in the same iteration of the same
                       innermost loop (or both directly in the training-loop body):
                       a pointer expression valid at one is valid at the other, so a
                       plan call for one may be placed at the other */
  int static_scope; /* the graph loop id of that innermost loop (-1: the loop body) */
  /* A split op (graph_op.split): split_count elements, and each access
   * touches split_elem_bytes per element from its offset; replay runs it in
   * the pieces tidal_split_elements chooses.  0: runs whole.  split_grain:
   * the elements a piece is a whole number of (TIDAL_SPLIT_GRAIN for a
   * launch; 1 for a cuDNN call split over its batch, where an element is
   * one sample: tidal_split_batch). */
  uint64_t split_count;
  uint64_t split_grain;
  int n_acc;
  trace_access *acc;
} trace_op;

/* A branch of the iteration (graph.h graph_branch), for the periodic ones
 * with their condition per iteration: a postfix program (graph_cond_op
 * codes) whose leaves are a + b * iteration (interp_schedule.c, Note
 * [periodic schedules]; unroll.c fills it under the bindings). */
typedef struct trace_cond {
  int op;            /* graph_cond_op; leaves are GCOND_VALUE */
  int64_t a, b;      /* leaf: a + b * iteration */
  int large;         /* leaf: a name not bound or a value read at run time, taken as
                        larger than every replayed step (TRACE_COND_LARGE) */
} trace_cond;

/* What an unbound name or a value read at run time is taken as: more than
 * every replayed step. */
#define TRACE_COND_LARGE ((int64_t)1 << 40)

typedef struct trace_branch {
  char *file;        /* the if statement */
  unsigned line;
  char *cond;        /* its condition as written */
  int periodic;      /* 0: a once branch (setup: no ops in the trace) */
  int parent;        /* the periodic branch it is inside, -1 if none */
  int n_sched;       /* periodic: 0 when not modelled (why says why): runs every iteration */
  trace_cond *sched;
  char *assumed;     /* the names and values taken as TRACE_COND_LARGE, ", " between, or NULL */
  char *why;
} trace_branch;

typedef struct tidal_trace {
  /* Accesses the graph could not attribute to a tensor (unresolved
   * pointers; not managed/host memory), left out of ops[].acc.  The
   * rewritten program still declares them to the runtime, which restores
   * whatever they touch, but the planner cannot see them: while any exist it
   * plans no drops, since such a read could see dropped contents. */
  int n_unresolved;
  int n_allocs;
  trace_alloc *allocs;
  int n_tensors;
  trace_tensor *tensors;
  int n_ops;
  trace_op *ops;
  int n_branches;          /* the graph's branches, by graph_branch.id (trace_op.branch) */
  trace_branch *branches;
  int64_t steps;  /* trips of the training loop when its counter moves an access
                     (the counter wraps after them, as an epoch loop restarts it);
                     0: unknown or no stepped access */
} tidal_trace;

void trace_free(tidal_trace *t); /* frees the members, not t itself */
/* The bytes access a touches in iteration `iteration` (0 the first) of the
 * training loop: its own range, or for a stepped access that step's slice
 * (the counter wrapping after t->steps). */
static inline void trace_access_at(const tidal_trace *t, const trace_access *a, int iteration,
                                   uint64_t *offset, uint64_t *bytes) {
  *offset = a->offset;
  *bytes = a->bytes;
  if (!a->stepped) return;
  int64_t k = iteration;
  if (t->steps > 0) k %= t->steps;
  int64_t o = (int64_t)a->step_offset + k * a->step_stride;
  int64_t e = o + (int64_t)a->step_bytes;
  int64_t c0 = (int64_t)a->offset, c1 = c0 + (int64_t)a->bytes;
  if (o < c0) o = c0;
  if (e > c1) e = c1;
  if (e < o) e = o;
  *offset = (uint64_t)o;
  *bytes = (uint64_t)(e - o);
}
/* 1 if branch `branch` runs in iteration `iteration` (0 the first): a
 * periodic branch when its condition (and its parent's) holds at that
 * step, or when it is not modelled; any other branch always (schedule.c). */
int trace_branch_runs(const tidal_trace *t, int branch, int iteration);
/* Whether br's own condition holds in iteration `iteration`: 1, 0, or -1
 * when it cannot be told (a name not bound where it cannot be taken as
 * larger than every step: as a flag, on the left of `%`, compared with
 * another such; overflow). */
int trace_branch_holds(const trace_branch *br, int iteration);
/* 1 if trace op `op` runs in iteration `iteration`: not a periodic op, or
 * its branch runs. */
int trace_op_runs(const tidal_trace *t, int op, int iteration);

/* Sets every tensor's group from the phases of the ops that touch it
 * (groups.c; unroll calls it). */
void trace_groups(tidal_trace *t);

/* The elements a piece of split op `op` is a whole number of: its
 * split_grain, or a launch's TIDAL_SPLIT_GRAIN where none was set (traces
 * made by hand in tests). */
static inline uint64_t trace_split_grain(const trace_op *op) {
  return op->split_grain ? op->split_grain : TIDAL_SPLIT_GRAIN;
}

#endif
