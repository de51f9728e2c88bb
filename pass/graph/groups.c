/* groups.c - what each tensor of an unrolled iteration is to training
 * (enum trace_group), from which phases read and write it.
 *
 * Decisions: roles come from dataflow, not names, so a program that calls
 * its weights "W" or "p->mem + off" is classified the same.  First rule
 * that matches:
 *   1. written by the update and read by forward or backward: parameters;
 *   2. touched only by the update: optimizer state;
 *   3. written by backward: gradients (of parameters or of activations);
 *   4. written by forward: activations (inputs copied in count too);
 *   5. anything else: other.
 * The groups only label the memory timeline (report/); no plan depends on
 * them, so a wrong guess costs a colour, never data. */
#include <stdlib.h>

#include "graph/trace.h"

const char *trace_group_name(int group) {
  static const char *const names[TRACE_NGROUPS] = {"parameters", "optimizer state", "gradients",
                                                   "activations", "other"};
  return group >= 0 && group < TRACE_NGROUPS ? names[group] : "other";
}

enum { R_FWD = 1, W_FWD = 2, R_BWD = 4, W_BWD = 8, R_UPD = 16, W_UPD = 32 };

void trace_groups(tidal_trace *t) {
  unsigned *use = calloc((size_t)t->n_tensors + 1, sizeof *use);
  if (!use) {
    for (int i = 0; i < t->n_tensors; i++) t->tensors[i].group = TRACE_GROUP_OTHER;
    return;
  }
  for (int o = 0; o < t->n_ops; o++) {
    const trace_op *op = &t->ops[o];
    int shift = op->phase == TRACE_FORWARD ? 0 : op->phase == TRACE_BACKWARD ? 2
              : op->phase == TRACE_UPDATE  ? 4 : -1;
    if (shift < 0) continue;
    for (int a = 0; a < op->n_acc; a++) {
      int ti = op->acc[a].tensor;
      if (ti < 0 || ti >= t->n_tensors) continue;
      if (op->acc[a].mode & ACCESS_READ) use[ti] |= 1u << shift;
      if (op->acc[a].mode & ACCESS_WRITE) use[ti] |= 2u << shift;
    }
  }
  for (int i = 0; i < t->n_tensors; i++) {
    unsigned u = use[i];
    int g;
    if ((u & W_UPD) && (u & (R_FWD | R_BWD)))
      g = TRACE_GROUP_PARAMETERS;
    else if ((u & (R_UPD | W_UPD)) && !(u & (R_FWD | W_FWD | R_BWD | W_BWD)))
      g = TRACE_GROUP_OPTIMIZER;
    else if (u & W_BWD)
      g = TRACE_GROUP_GRADIENTS;
    else if (u & W_FWD)
      g = TRACE_GROUP_ACTIVATIONS;
    else
      g = TRACE_GROUP_OTHER;
    t->tensors[i].group = g;
  }
  free(use);
}
