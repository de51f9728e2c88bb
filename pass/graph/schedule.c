/* schedule.c - whether a periodic branch runs in a replayed iteration: its
 * condition's program evaluated at that step (interp_schedule.c, Note
 * [periodic schedules]). */
#include "graph/graph.h"
#include "graph/trace.h"

#define STACK 64

/* A value of the program: an integer, one taken as larger than every
 * replayed step (from a name not bound), or unknown. */
typedef struct cval {
  int64_t v;
  int large;
  int unknown;
} cval;

static cval unknown(void) { return (cval){0, 0, 1}; }

/* Truth of x: unknown for a large value (an unbound name used as a flag is
 * not "larger than every step"). */
static int truth(cval x) { return x.unknown || x.large ? -1 : x.v != 0; }

static cval logic(graph_cond_op op, cval x, cval y) {
  int a = truth(x), b = truth(y);
  if (op == GCOND_LAND) {
    if (a == 0 || b == 0) return (cval){0, 0, 0};
    if (a < 0 || b < 0) return unknown();
    return (cval){1, 0, 0};
  }
  if (a == 1 || b == 1) return (cval){1, 0, 0};
  if (a < 0 || b < 0) return unknown();
  return (cval){0, 0, 0};
}

static cval binary(graph_cond_op op, cval x, cval y) {
  if (op == GCOND_LAND || op == GCOND_LOR) return logic(op, x, y);
  if (x.unknown || y.unknown) return unknown();
  cval r = {0, x.large || y.large, 0};
  int64_t v;
  switch (op) {
  case GCOND_ADD: if (__builtin_add_overflow(x.v, y.v, &v)) return unknown(); break;
  case GCOND_SUB: if (__builtin_sub_overflow(x.v, y.v, &v)) return unknown(); break;
  case GCOND_MUL: if (__builtin_mul_overflow(x.v, y.v, &v)) return unknown(); break;
  case GCOND_DIV:
  case GCOND_REM:
    /* step % N, step / N with N not bound: N is larger than the step; a
     * value not bound on the left is not known at all */
    if (x.large || y.v == 0 || (x.v == INT64_MIN && y.v == -1)) return unknown();
    v = op == GCOND_DIV ? x.v / y.v : x.v % y.v;
    r.large = 0;
    break;
  default: /* comparisons: two values not bound are not ordered */
    if (x.large && y.large) return unknown();
    r.large = 0;
    switch (op) {
    case GCOND_LT: v = x.v < y.v; break;
    case GCOND_GT: v = x.v > y.v; break;
    case GCOND_LE: v = x.v <= y.v; break;
    case GCOND_GE: v = x.v >= y.v; break;
    case GCOND_EQ: v = x.v == y.v; break;
    case GCOND_NE: v = x.v != y.v; break;
    default: return unknown();
    }
  }
  r.v = v;
  return r;
}

/* The program's value at iteration it: 1 holds, 0 does not, -1 unknown
 * (a value not bound where it cannot be taken as larger than every step,
 * overflow, division by zero, a malformed program). */
int trace_branch_holds(const trace_branch *br, int iteration) {
  cval st[STACK];
  int n = 0;
  for (int i = 0; i < br->n_sched; i++) {
    const trace_cond *c = &br->sched[i];
    if (c->op == GCOND_VALUE) {
      int64_t m, v;
      if (n >= STACK) return -1;
      if (c->large) {
        st[n++] = (cval){TRACE_COND_LARGE, 1, 0};
        continue;
      }
      if (__builtin_mul_overflow(c->b, (int64_t)iteration, &m) || __builtin_add_overflow(c->a, m, &v))
        st[n++] = unknown();
      else
        st[n++] = (cval){v, 0, 0};
      continue;
    }
    if (c->op == GCOND_NOT || c->op == GCOND_NEG) {
      if (n < 1) return -1;
      cval x = st[n - 1];
      if (c->op == GCOND_NOT) {
        int t = truth(x);
        st[n - 1] = t < 0 ? unknown() : (cval){!t, 0, 0};
      } else if (x.unknown || x.large || x.v == INT64_MIN) {
        st[n - 1] = unknown();
      } else {
        st[n - 1].v = -x.v;
      }
      continue;
    }
    if (n < 2) return -1;
    st[n - 2] = binary((graph_cond_op)c->op, st[n - 2], st[n - 1]);
    n--;
  }
  if (n != 1) return -1;
  return truth(st[0]);
}

int trace_branch_runs(const tidal_trace *t, int branch, int iteration) {
  for (int guard = 0; guard < 64; guard++) {
    if (branch < 0 || branch >= t->n_branches) return 1;
    const trace_branch *br = &t->branches[branch];
    if (!br->periodic) return 1;
    if (br->n_sched && trace_branch_holds(br, iteration) == 0) return 0;
    branch = br->parent; /* a branch inside another runs only when that one does */
  }
  return 1;
}

int trace_op_runs(const tidal_trace *t, int op, int iteration) {
  const trace_op *o = &t->ops[op];
  return o->phase != TRACE_PERIODIC || trace_branch_runs(t, o->branch, iteration);
}
