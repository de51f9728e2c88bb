/* schedule.c - whether a periodic branch runs in a replayed iteration: its
 * condition's program evaluated at that step (interp_schedule.c, Note
 * [periodic schedules]). */
#include "graph/graph.h"
#include "graph/trace.h"

#define STACK 64

/* The program's value at iteration it; -1 when it cannot be evaluated
 * (overflow, division by zero, a malformed program). */
static int eval(const trace_branch *br, int64_t it, int64_t *out) {
  int64_t st[STACK];
  int n = 0;
  for (int i = 0; i < br->n_sched; i++) {
    const trace_cond *c = &br->sched[i];
    if (c->op == GCOND_VALUE) {
      int64_t m, v;
      if (n >= STACK || __builtin_mul_overflow(c->b, it, &m) || __builtin_add_overflow(c->a, m, &v))
        return -1;
      st[n++] = v;
      continue;
    }
    if (c->op == GCOND_NOT || c->op == GCOND_NEG) {
      if (n < 1) return -1;
      if (c->op == GCOND_NOT) st[n - 1] = !st[n - 1];
      else if (__builtin_sub_overflow((int64_t)0, st[n - 1], &st[n - 1])) return -1;
      continue;
    }
    if (n < 2) return -1;
    int64_t x = st[n - 2], y = st[n - 1], r;
    switch (c->op) {
    case GCOND_ADD: if (__builtin_add_overflow(x, y, &r)) return -1; break;
    case GCOND_SUB: if (__builtin_sub_overflow(x, y, &r)) return -1; break;
    case GCOND_MUL: if (__builtin_mul_overflow(x, y, &r)) return -1; break;
    case GCOND_DIV:
    case GCOND_REM:
      if (y == 0 || (x == INT64_MIN && y == -1)) return -1;
      r = c->op == GCOND_DIV ? x / y : x % y;
      break;
    case GCOND_LT: r = x < y; break;
    case GCOND_GT: r = x > y; break;
    case GCOND_LE: r = x <= y; break;
    case GCOND_GE: r = x >= y; break;
    case GCOND_EQ: r = x == y; break;
    case GCOND_NE: r = x != y; break;
    case GCOND_LAND: r = x && y; break;
    case GCOND_LOR: r = x || y; break;
    default: return -1;
    }
    st[n - 2] = r;
    n--;
  }
  if (n != 1) return -1;
  *out = st[0];
  return 0;
}

int trace_branch_runs(const tidal_trace *t, int branch, int iteration) {
  for (int guard = 0; guard < 64; guard++) {
    if (branch < 0 || branch >= t->n_branches) return 1;
    const trace_branch *br = &t->branches[branch];
    if (!br->periodic) return 1;
    int64_t v;
    if (br->n_sched && eval(br, iteration, &v) == 0 && v == 0) return 0;
    branch = br->parent; /* a branch inside another runs only when that one does */
  }
  return 1;
}

int trace_op_runs(const tidal_trace *t, int op, int iteration) {
  const trace_op *o = &t->ops[op];
  return o->phase != TRACE_PERIODIC || trace_branch_runs(t, o->branch, iteration);
}
