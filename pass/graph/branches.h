/* branches.h - the syntactic shapes of `if` statements inside the
 * training iteration that do not run every iteration (branches.c);
 * interp_branch.c decides with values (Note [once and periodic]). */
#ifndef TIDAL_PASS_BRANCHES_H
#define TIDAL_PASS_BRANCHES_H

#include <stdint.h>
#include <clang-c/Index.h>
#include "frontend/frontend.h"

typedef enum branch_shape {
  BRANCH_EVERY = 0, /* nothing recognised */
  BRANCH_ONCE,      /* tests a pointer for NULL or a flag, and the branch sets it so the
                       test fails next time (`if (!p) cudaMalloc(&p, ..)`, `if (first) {
                       ..; first = 0; }`) */
  BRANCH_EQ_CONST,  /* `V == K`, K a constant: once if V is the step counter at its
                       first value (`if (step == 0)`); *var is V, *k is K */
  BRANCH_PERIODIC   /* a `%` in the condition (`step % N == 0`); *var is its left side */
} branch_shape;

/* The shape of `if (cond) then_s`. */
branch_shape branch_classify(const pass_tu *t, CXCursor cond, CXCursor then_s, CXCursor *var,
                             int64_t *k);

#endif
