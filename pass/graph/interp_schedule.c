/* interp_schedule.c - a periodic branch's condition compiled into a small
 * postfix program over the training loop's counter, so that replay runs
 * the branch only on the steps where it holds (Note [periodic schedules]). */
#include <stdlib.h>
#include <string.h>

#include "graph/interp_impl.h"

/* Note [periodic schedules]: a periodic branch (`if (step % every == 0)`,
 * interp_branch.c, Note [once and periodic]) stays in the graph and the
 * plan as running every step: the plan must be right whichever way it
 * goes.  But replay's clock is a model of the steady step, and llm.c's
 * validation pass and sampling loop (`if (step % val_loss_every == 0 ||
 * last_step)`, `if (step > 0 && step % sample_every == 0 || last_step)`)
 * run one forward pass each and 63 more: run every iteration they were
 * most of the modelled step, which the card's timed steps never are.
 * So the condition is kept as a program: integer leaves (the counter,
 * values the interpreter knows as expressions of names --bind may fix,
 * a local condition variable through its initialiser when nothing else
 * writes it, `int last_step = step == train_num_batches;`) and C's
 * arithmetic, comparisons and logic.  The unroller evaluates it per step
 * under the bindings (unroll.c, trace_branch); a name left unbound or a
 * value read at run time is taken as larger than every replayed step, so
 * `step % N == 0` holds at step 0 only and `step == n_steps` never: a
 * period not bound is taken as longer than the replay, and the training
 * as longer too.  Only there: used as a flag, on the left of `%` or
 * compared with another such value it is unknown (schedule.c), and a
 * condition that is unknown at a step leaves the branch unmodelled.  The replay report names each branch, the iterations it
 * ran in and the names it took so.  A condition the program cannot hold
 * (a call, a floating-point value, `?:`) is not modelled: the branch runs
 * every iteration, as before, and the report says why. */

#define SCHED_MAX 64
#define SCHED_DEPTH 4

typedef struct sched {
  gb *b;
  gb_frame *f;
  graph_cond prog[SCHED_MAX];
  int n;
  const char *why; /* set on failure */
} sched;

static int push(sched *s, graph_cond_op op, sym *v, char *text) {
  if (s->n >= SCHED_MAX) {
    free(text);
    s->why = "the condition is too long";
    return -1;
  }
  s->prog[s->n].op = op;
  s->prog[s->n].value = v;
  s->prog[s->n].text = text;
  s->n++;
  return 0;
}

static int integer_type(CXCursor e) {
  CXType t = clang_getCanonicalType(clang_getCursorType(e));
  return (t.kind >= CXType_Bool && t.kind <= CXType_Int128) || t.kind == CXType_Enum;
}

static enum CXChildVisitResult call_visit(CXCursor c, CXCursor parent, CXClientData d) {
  (void)parent;
  if (clang_getCursorKind(c) != CXCursor_CallExpr) return CXChildVisit_Recurse;
  *(int *)d = 1;
  return CXChildVisit_Break;
}

static int has_call(CXCursor e) {
  int r = clang_getCursorKind(e) == CXCursor_CallExpr;
  if (!r) clang_visitChildren(e, call_visit, &r);
  return r;
}

/* 1 if e names (through casts and parentheses) the variable d. */
static int names(CXCursor e, CXCursor d) {
  e = cursor_strip_casts(e);
  return clang_getCursorKind(e) == CXCursor_DeclRefExpr &&
         clang_equalCursors(clang_getCursorReferenced(e), d);
}

typedef struct write_scan {
  CXCursor decl;
  int written;
} write_scan;

static enum CXChildVisitResult write_visit(CXCursor c, CXCursor parent, CXClientData d) {
  (void)parent;
  write_scan *w = d;
  CXCursor ch[2];
  enum CXCursorKind k = clang_getCursorKind(c);
  if ((k == CXCursor_BinaryOperator || k == CXCursor_CompoundAssignOperator) &&
      cursor_children(c, ch, 2) == 2) {
    enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(c);
    if ((op == CXBinaryOperator_Assign || k == CXCursor_CompoundAssignOperator) &&
        names(ch[0], w->decl))
      w->written = 1;
  } else if (k == CXCursor_UnaryOperator && cursor_children(c, ch, 1) == 1) {
    enum CXUnaryOperatorKind op = clang_getCursorUnaryOperatorKind(c);
    if (op != CXUnaryOperator_Plus && op != CXUnaryOperator_Minus && op != CXUnaryOperator_Not &&
        op != CXUnaryOperator_LNot && op != CXUnaryOperator_Deref && names(ch[0], w->decl))
      w->written = 1; /* ++, --, & (it may be written through the pointer) */
  }
  return w->written ? CXChildVisit_Break : CXChildVisit_Recurse;
}

/* A local variable's initialiser when nothing in the function writes it
 * after its declaration (`int last_step = step == n;`); a null cursor
 * otherwise. */
static CXCursor single_init(gb_frame *f, CXCursor ref) {
  CXCursor d = clang_getCursorReferenced(cursor_strip_casts(ref));
  if (clang_getCursorKind(d) != CXCursor_VarDecl || !integer_type(d) ||
      clang_getCursorSemanticParent(d).kind != CXCursor_FunctionDecl)
    return clang_getNullCursor();
  CXCursor *ch, init = clang_getNullCursor();
  int n = cursor_children_all(d, &ch);
  for (int i = 0; i < n; i++)
    if (clang_isExpression(clang_getCursorKind(ch[i]))) init = ch[i];
  free(ch);
  if (clang_Cursor_isNull(init)) return init;
  write_scan w = {d, 0};
  clang_visitChildren(f->fn, write_visit, &w);
  return w.written ? clang_getNullCursor() : init;
}

static int compile(sched *s, CXCursor e, int depth);

/* An integer leaf: the counter, a value the interpreter knows, a local
 * condition variable's initialiser, else a value read at run time. */
static int leaf(sched *s, CXCursor e, int depth) {
  gb *b = s->b;
  if (!integer_type(e)) {
    s->why = "the condition is not made of integers";
    return -1;
  }
  if (has_call(e)) {
    s->why = "the condition calls a function";
    return -1;
  }
  int64_t c;
  if (cursor_eval_int(e, &c)) return push(s, GCOND_VALUE, sym_const(b->a, c), NULL);
  if (b->train_key && gb_plain_lvalue(e)) {
    const char *k = gb_lvalue(b, s->f, e, NULL, NULL);
    if (k && strcmp(k, b->train_key) == 0) return push(s, GCOND_STEP, NULL, NULL);
  }
  gval v = gb_eval(b, s->f, e);
  int known = v.k == GV_INT && v.s && !sym_is_unknown(v.s) && (!v.carried || v.ind);
  /* a value the interpreter holds only as a name (a local it could not
   * follow, named so --bind can set it): its initialiser, when that is the
   * only write and replay can evaluate it (`int last_step = step == n;`) */
  int named = known && sym_get_kind(v.s) == SYM_VAR && !v.ind;
  if ((!known || named) && depth < SCHED_DEPTH && clang_getCursorKind(e) == CXCursor_DeclRefExpr) {
    CXCursor init = single_init(s->f, e);
    int mark = s->n;
    if (!clang_Cursor_isNull(init) && compile(s, init, depth + 1) == 0) return 0;
    for (int i = mark; i < s->n; i++) free(s->prog[i].text);
    s->n = mark;
    s->why = NULL;
  }
  if (known) return push(s, GCOND_VALUE, v.s, NULL);
  char *text = frontend_cursor_text(b->t, e);
  return push(s, GCOND_OPAQUE, NULL, text ? text : strdup("?"));
}

static int binary_op(enum CXBinaryOperatorKind k, graph_cond_op *op) {
  switch (k) {
  case CXBinaryOperator_Add: *op = GCOND_ADD; return 1;
  case CXBinaryOperator_Sub: *op = GCOND_SUB; return 1;
  case CXBinaryOperator_Mul: *op = GCOND_MUL; return 1;
  case CXBinaryOperator_Div: *op = GCOND_DIV; return 1;
  case CXBinaryOperator_Rem: *op = GCOND_REM; return 1;
  case CXBinaryOperator_LT: *op = GCOND_LT; return 1;
  case CXBinaryOperator_GT: *op = GCOND_GT; return 1;
  case CXBinaryOperator_LE: *op = GCOND_LE; return 1;
  case CXBinaryOperator_GE: *op = GCOND_GE; return 1;
  case CXBinaryOperator_EQ: *op = GCOND_EQ; return 1;
  case CXBinaryOperator_NE: *op = GCOND_NE; return 1;
  case CXBinaryOperator_LAnd: *op = GCOND_LAND; return 1;
  case CXBinaryOperator_LOr: *op = GCOND_LOR; return 1;
  default: return 0;
  }
}

static int compile(sched *s, CXCursor e, int depth) {
  e = cursor_strip_casts(e);
  CXCursor ch[3];
  enum CXCursorKind k = clang_getCursorKind(e);
  if (k == CXCursor_BinaryOperator && cursor_children(e, ch, 3) == 2) {
    graph_cond_op op;
    if (!binary_op(clang_getCursorBinaryOperatorKind(e), &op)) {
      s->why = "the condition uses an operator replay does not evaluate";
      return -1;
    }
    if (compile(s, ch[0], depth) || compile(s, ch[1], depth)) return -1;
    return push(s, op, NULL, NULL);
  }
  if (k == CXCursor_UnaryOperator && cursor_children(e, ch, 3) == 1) {
    enum CXUnaryOperatorKind u = clang_getCursorUnaryOperatorKind(e);
    if (u == CXUnaryOperator_Plus) return compile(s, ch[0], depth);
    if (u == CXUnaryOperator_LNot || u == CXUnaryOperator_Minus) {
      if (compile(s, ch[0], depth)) return -1;
      return push(s, u == CXUnaryOperator_LNot ? GCOND_NOT : GCOND_NEG, NULL, NULL);
    }
    s->why = "the condition uses an operator replay does not evaluate";
    return -1;
  }
  if (k == CXCursor_ConditionalOperator) {
    s->why = "the condition uses ?:";
    return -1;
  }
  return leaf(s, e, depth);
}

void gb_branch_schedule(gb *b, gb_frame *f, CXCursor cond, int id) {
  if (id < 0 || id >= b->g->n_branches) return;
  graph_branch *br = &b->g->branches[id];
  if (br->n_sched || br->sched_why) return; /* the same if through another call path */
  sched s;
  memset(&s, 0, sizeof s);
  s.b = b;
  s.f = f;
  if (compile(&s, cond, 0) == 0) {
    br->sched = malloc((size_t)s.n * sizeof *br->sched);
    if (br->sched) {
      memcpy(br->sched, s.prog, (size_t)s.n * sizeof *br->sched);
      br->n_sched = s.n;
      br->while_lo = b->train_lo;
      return;
    }
    s.why = "out of memory";
  }
  for (int i = 0; i < s.n; i++) free(s.prog[i].text);
  br->sched_why = strdup(s.why ? s.why : "not modelled");
}
