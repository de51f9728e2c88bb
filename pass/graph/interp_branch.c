/* interp_branch.c - if statements: both arms walked unless the condition
 * is known; once and periodic branches inside the iteration confirmed
 * with values (Note [once and periodic]; their shapes are branches.c's);
 * the clamp of a last short batch (Note [clamp branch]); arms that end the
 * function (Note [arms that return]); integers an arm may set (Note
 * [integers set in an arm]); condition variables (Note [condition
 * variables]). */
#include <stdlib.h>
#include <string.h>

#include "graph/interp_impl.h"
#include "graph/branches.h"

/* Note [once and periodic]: not every `if` inside the iteration is
 * "either arm, any iteration".  Two shapes are common in real trainers and
 * matter for the plan:
 *  - once: lazy initialisation (`if (o->m == NULL) { cudaMalloc(&o->m, n);
 *    cudaMemset(o->m, 0, n); }`, `if (first) { ...; first = 0; }`, `if
 *    (step == 0)` on the training loop's counter at its first value).  Taken
 *    as running every iteration, its memset looks like an exact overwrite
 *    before each update, and the plan drops the optimizer moments after the
 *    update: state lost every step.  So the branch is interpreted as setup
 *    (mode GB_SETUP): its allocations are persistent, carved regions are
 *    collected (handlers.h once_done), its op sites are not ops of the
 *    iteration (the rewriter still instruments them, as it does setup's),
 *    and the graph lists it (graph_branch, kind once).  branches.c knows the
 *    shapes: the branch must itself make its test fail next time.
 *  - periodic: `if (step % N == 0) { evaluate(); }`.  Its ops are graph ops
 *    with graph_op.branch set and phase periodic: they still count as uses
 *    (a drop never crosses them), but their writes are never taken to
 *    overwrite anything (unroll.c), since on most steps they do not run.
 *    A `%` over an inner loop's variable (`l % 2`) is not periodic. */
static int record_branch(gb *b, gb_frame *f, CXCursor s, CXCursor cond, graph_branch_kind kind) {
  graph *g = b->g;
  char *file;
  unsigned line, col;
  gb_location(b, s, &file, &line, &col);
  for (int i = 0; i < g->n_branches; i++)
    if (g->branches[i].kind == kind && g->branches[i].line == line &&
        g->branches[i].col == col && strcmp(g->branches[i].file, file) == 0) {
      free(file);
      return i; /* the same statement reached through another call path */
    }
  int id = graph_add_branch(g);
  if (id < 0) {
    free(file);
    return -1;
  }
  graph_branch *br = &g->branches[id];
  br->id = id;
  br->kind = kind;
  br->file = file;
  br->line = line;
  br->col = col;
  br->stmt = gb_range(b, s, 0);
  br->cond = frontend_cursor_text(b->t, cond);
  br->function = string_and_dispose(clang_getCursorSpelling(f->fn));
  br->parent = kind == GRAPH_BRANCH_PERIODIC ? b->cur_branch : -1;
  return id;
}

static void walk_once(gb *b, gb_frame *f, CXCursor s, CXCursor cond, CXCursor then_s) {
  int id = record_branch(b, f, s, cond, GRAPH_BRANCH_ONCE);
  int first_alloc = b->g->n_allocs, sites = b->once_sites;
  gb_mode saved = b->mode;
  b->mode = GB_SETUP;
  b->in_once++;
  gb_walk_stmt(b, f, then_s);
  b->in_once--;
  b->mode = saved;
  b->h->once_done(b, f, first_alloc);
  if (id >= 0) {
    b->g->branches[id].n_allocs += b->g->n_allocs - first_alloc;
    b->g->branches[id].n_sites += b->once_sites - sites;
  }
}

/* The shape of a graph-mode if (branches.c), confirmed with values. */
static branch_shape graph_branch_shape(gb *b, gb_frame *f, CXCursor cond, CXCursor then_s,
                                       int known) {
  CXCursor var = clang_getNullCursor();
  int64_t k = 0;
  branch_shape sh = branch_classify(b->t, cond, then_s, &var, &k);
  if (sh == BRANCH_EQ_CONST) {
    /* `step == 0`: the training loop's counter at its first value */
    gval v = gb_eval(b, f, var);
    int first = b->train_var && v.k == GV_INT && v.s && sym_get_kind(v.s) == SYM_VAR &&
                strcmp(sym_var_name(v.s), b->train_var) == 0 && k == b->train_lo;
    /* an inner loop's variable of the same name (`i` of a layer loop in a
     * callee, `i` of main's step loop) is not the training loop's counter */
    for (int i = 0; first && i < b->n_loops; i++) {
      const char *lv = b->g->loops[b->loops[i].id].var;
      if (lv && !strcmp(lv, b->train_var)) first = 0;
    }
    if (!first && b->train_key && k == b->train_lo && gb_plain_lvalue(var)) {
      /* a while loop's counter (Note [while counter]) */
      const char *vk = gb_lvalue(b, f, cursor_strip_casts(var), NULL, NULL);
      first = vk && strcmp(vk, b->train_key) == 0;
    }
    return first ? BRANCH_ONCE : BRANCH_EVERY;
  }
  if (sh == BRANCH_PERIODIC) {
    if (known) return BRANCH_EVERY;
    gval v = gb_eval(b, f, var);
    int64_t c;
    if (gb_int_value_const(b, &v, &c)) return BRANCH_EVERY;
    /* a `%` over an inner loop's variable alternates within one iteration */
    for (int i = 0; i < b->n_loops; i++) {
      const char *lv = b->g->loops[b->loops[i].id].var;
      if (lv && v.k == GV_INT && gb_sym_mentions(v.s, lv)) return BRANCH_EVERY;
    }
  }
  return sh;
}

/* Note [clamp branch]: `if (start + cur > n) cur = n - start;` (the short
 * last batch of an epoch) or `if (v > m) v = m;` inside the iteration.  Its
 * condition depends on the step, so both arms are walked, and walking the
 * then-arm after nothing leaves `cur = n - start`: at the first step the
 * whole epoch's remaining samples, an extent many times the batch.  When
 * the arm lowers v by exactly the amount the condition says it exceeds
 * (E - v == Y - X for `X > Y` or `X >= Y`, `Y < X`, `Y <= X`), the value
 * after the if is min(v, E): exact, not a bound.  The identity is checked
 * by evaluating both sides with the names at three arbitrary values. */
static enum CXChildVisitResult call_visitor(CXCursor c, CXCursor parent, CXClientData d) {
  (void)parent;
  if (clang_getCursorKind(c) != CXCursor_CallExpr) return CXChildVisit_Recurse;
  *(int *)d = 1;
  return CXChildVisit_Break;
}

/* 1 if e calls something (evaluating it again could record an op twice). */
static int has_call(CXCursor e) {
  int r = clang_getCursorKind(e) == CXCursor_CallExpr;
  if (!r) clang_visitChildren(e, call_visitor, &r);
  return r;
}

static int probe_value_fn(void *ud, const char *name, int64_t *out) {
  size_t h = *(const size_t *)ud;
  for (const char *c = name; *c; c++) h = (h ^ (unsigned char)*c) * 1099511628211ull;
  *out = (int64_t)(h % 100003u) + 7;
  return 1;
}

/* 1 if s is 0 whatever its names hold (probed at three points). */
static int sym_zero_everywhere(const sym *s) {
  static const size_t seeds[3] = {0x9e3779b9u, 0x85ebca6bu, 0xc2b2ae35u};
  for (int i = 0; i < 3; i++) {
    int64_t v;
    if (sym_is_unknown(s) || sym_eval(s, probe_value_fn, (void *)&seeds[i], &v) != 0 || v != 0)
      return 0;
  }
  return 1;
}

/* The clamp shape (Note [clamp branch]): the key of v, its value before
 * the branch in *old and the clamp E in *lim; NULL if not that shape. */
static const char *clamp_shape(gb *b, gb_frame *f, CXCursor cond, CXCursor then_s, gval *old,
                               gval *lim) {
  CXCursor st = then_s;
  if (clang_getCursorKind(st) == CXCursor_CompoundStmt) {
    CXCursor one[2];
    if (cursor_children(st, one, 2) != 1) return NULL;
    st = one[0];
  }
  st = cursor_strip_casts(st);
  CXCursor as[2], cs[2];
  if (clang_getCursorKind(st) != CXCursor_BinaryOperator ||
      clang_getCursorBinaryOperatorKind(st) != CXBinaryOperator_Assign || cursor_children(st, as, 2) != 2)
    return NULL;
  cond = cursor_strip_casts(cond);
  if (clang_getCursorKind(cond) != CXCursor_BinaryOperator || cursor_children(cond, cs, 2) != 2)
    return NULL;
  enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(cond);
  CXCursor x, y; /* the condition as x > y or x >= y */
  if (op == CXBinaryOperator_GT || op == CXBinaryOperator_GE) {
    x = cs[0];
    y = cs[1];
  } else if (op == CXBinaryOperator_LT || op == CXBinaryOperator_LE) {
    x = cs[1];
    y = cs[0];
  } else {
    return NULL;
  }
  CXType t = clang_getCanonicalType(clang_getCursorType(as[0]));
  if (!(t.kind >= CXType_Bool && t.kind <= CXType_Int128) || !gb_plain_lvalue(as[0]) ||
      has_call(as[1]) || has_call(x) || has_call(y))
    return NULL;
  const char *key = gb_lvalue(b, f, cursor_strip_casts(as[0]), NULL, NULL);
  if (!key) return NULL;
  gval *sv = gb_lookup(b, key);
  if (!sv || sv->k != GV_INT || sv->carried || sym_is_unknown(sv->s)) return NULL;
  gval xv = gb_eval(b, f, x), yv = gb_eval(b, f, y), ev = gb_eval(b, f, as[1]);
  if (xv.k != GV_INT || yv.k != GV_INT || ev.k != GV_INT || !xv.s || !yv.s || !ev.s) return NULL;
  /* the value v is read as inside the condition: named or substituted */
  gval vv = gb_eval(b, f, as[0]);
  if (vv.k != GV_INT || !vv.s) return NULL;
  sym *diff = sym_sub(b->a, sym_sub(b->a, ev.s, vv.s), sym_sub(b->a, yv.s, xv.s));
  if (!sym_zero_everywhere(diff)) return NULL;
  *old = *sv;
  *lim = ev;
  return key;
}

/* Note [arms that return]: both arms of an `if` whose condition is not
 * known are walked, and their effects stay in the store.  An arm that ends
 * the function (`if (init(&m) != 0) { free_model(&m); return 1; }`, or one
 * calling exit/abort) is different: nothing after the `if` runs when it is
 * taken, so what follows sees the state of the path that did not take it.
 * Keeping such an arm's writes would make the code after it read a freed,
 * NULLed buffer as NULL - an optional argument, no access, so a plan could
 * evict a buffer the program uses.  Its ops are still recorded; its store
 * writes are taken back (store.c's undo log) once it has been walked. */

/* 1 if statement s always ends the function: a return, a call of exit or
 * abort, or a block whose last statement does. */
static int ends_function(CXCursor s) {
  for (int guard = 0; guard < 64; guard++) {
    enum CXCursorKind k = clang_getCursorKind(s);
    if (k == CXCursor_ReturnStmt) return 1;
    if (k == CXCursor_CompoundStmt) {
      s = cursor_last_child(s); /* a block of any length */
      if (clang_Cursor_isNull(s)) return 0;
      continue;
    }
    CXCursor e = cursor_strip_casts(s);
    if (clang_getCursorKind(e) != CXCursor_CallExpr) return 0;
    char *name = gb_callee_name(e);
    int r = name && (strcmp(name, "exit") == 0 || strcmp(name, "abort") == 0 ||
                     strcmp(name, "_Exit") == 0 || strcmp(name, "quick_exit") == 0);
    free(name);
    return r;
  }
  return 0;
}

/* One arm of an if; may: the other arm may run instead (the condition is
 * not known), so an arm that ends the function leaves no writes behind. */
static void walk_arm(gb *b, gb_frame *f, CXCursor arm, int may) {
  if (!may || !ends_function(arm)) {
    gb_walk_stmt(b, f, arm);
    return;
  }
  size_t mark = gb_undo_begin(b);
  gb_walk_stmt(b, f, arm);
  gb_undo_end(b, mark);
}

/* Note [integers set in an arm]: when the condition is not known, either
 * arm may run, but the store keeps the value the last walked arm wrote:
 * `if (start > 0) m = 0;` made every later extent in m zero, so the bytes
 * the other path touches were never declared.  An integer an arm changed
 * (to a value other than the one it had before the if) is therefore
 * unknown afterwards: its extents are unknown (the whole allocation from
 * the offset, with a warning), never too small.  The clamp shape (Note
 * [clamp branch]) stores its min() after this.  Pointers keep the last
 * arm's value (their accesses are resolved by the allocation, not sized
 * by it).  A descriptor attribute an arm sets where none was set before
 * (a cublasLt layout's batch count, analysis/libcalls_cublaslt.c) is kept
 * and marked maybe: the extent it gives is the larger, never exact.  The
 * writes stay; the undo log only lists them (it is kept for an enclosing
 * arm that returns). */
/* Note [arms that agree]: `if (resume) load(&m, a); else if (bin) load(&m, b);
 * else build(&m, d);` - every arm computes the model's sizes by the same
 * code from the config each one read (llm.c's num_parameters, summed by
 * one helper whichever way the model is built).  An integer both arms
 * wrote to the same value is that value after the if, not unknown.
 * mark1: where the second arm's writes start in the undo log (end when
 * there is one arm). */
static int arms_agree(gb *b, size_t mark, size_t mark1, size_t end, const char *key,
                      const gval *cur) {
  if (mark1 >= end || cur->k != GV_INT || !cur->s) return 0;
  int in1 = 0;
  for (size_t j = mark; j < mark1 && !in1; j++) in1 = !strcmp(b->undo[j].key, key);
  if (!in1) return 0;
  for (size_t j = mark1; j < end; j++)
    if (!strcmp(b->undo[j].key, key)) { /* the first write of the second arm */
      const gb_undo *u2 = &b->undo[j];
      return u2->had && u2->v.k == GV_INT && u2->v.s &&
             sym_zero_everywhere(sym_sub(b->a, cur->s, u2->v.s));
    }
  return 0;
}

static void forget_arm_integers(gb *b, size_t mark, size_t mark1) {
  size_t end = b->n_undo;
  for (size_t i = mark; i < end; i++) {
    const gb_undo *u = &b->undo[i];
    gval *cur = gb_lookup(b, u->key);
    if (!cur) continue;
    if (arms_agree(b, mark, mark1, end, u->key, cur)) continue; /* Note [arms that agree] */
    if (!u->had && strstr(u->key, ".@")) {
      /* a descriptor attribute one arm sets (`if (batch) set(l, BATCH_COUNT,
       * &batch)`): kept, marked as maybe in effect; its users take the
       * larger extent it gives, never exact */
      cur->maybe = 1;
      continue;
    }
    if (cur->k != GV_INT || !cur->s) continue;
    if (u->had && u->v.k == GV_INT && u->v.s &&
        sym_zero_everywhere(sym_sub(b->a, cur->s, u->v.s)))
      continue; /* the same value as before the if */
    cur->s = sym_unknown(b->a);
    cur->text = NULL;
    cur->text_ok = 0;
  }
  b->undo_depth--;
  if (b->undo_depth == 0) b->n_undo = mark;
}

/* Note [condition variables]: `if (int n = rows(b))`, `if (float *p =
 * lookup(k))`, `switch (int k = g())`, `while (T *p = next())`, `for (..; int r =
 * n - i; ..)`.  libclang gives the declared variable as a bare VarDecl child of the statement
 * (an if's C++17 init statement is a DeclStmt instead), which the walk
 * used to skip: the variable was never stored, so an allocation sized by
 * it stayed symbolic ('n' unbound) and a pointer from it was not traced to
 * its cudaMalloc.  It is declared as any local is (gb_walk_decl: the
 * initialiser evaluated, its calls followed), and the condition, which
 * reads it, is then evaluated on its value: known, it prunes the arm that
 * cannot run; unknown, both arms are walked as before.  A loop's variable
 * is declared anew each iteration, so it is walked inside the loop, after
 * the loop-carried values are forgotten (and, for the training loop, after
 * a dry walk of its initialiser, Note [state changed by calls]): a value
 * that depends on the iteration is unknown there, never the first
 * iteration's. */

/* ch: the n children of if statement s. */
static void walk_if_parts(gb *b, gb_frame *f, CXCursor s, const CXCursor *ch, int n) {
  if (n < 2) return;
  /* children: [init] [condvar] cond then [else] - cond is the first
   * expression.  The init is a DeclStmt, the condition variable a bare
   * VarDecl (Note [condition variables]); cond then reads its value. */
  int ci = 0;
  while (ci < n && !clang_isExpression(clang_getCursorKind(ch[ci]))) {
    enum CXCursorKind dk = clang_getCursorKind(ch[ci]);
    if (dk == CXCursor_DeclStmt || dk == CXCursor_VarDecl) gb_walk_stmt(b, f, ch[ci]);
    ci++;
  }
  if (ci >= n) return;
  gval c = gb_eval(b, f, ch[ci]);
  int64_t cv;
  /* a condition fixed for this call path (a NULL argument, a constant)
   * prunes the branch; anything depending on the iteration walks both */
  int known = gb_int_value_const(b, &c, &cv);
  if (!known && c.k == GV_FUNC) known = 1, cv = 1; /* `if (l.update)`: a function is set */
  /* `if (falgo)` on the address of a host object (`&algo` passed down):
   * never NULL, so the arm runs (its integers are kept: a cuDNN workspace
   * size computed there, Note [workspace sizes] in libcalls_formulas.c) */
  if (!known && c.k == GV_ADDR && c.path && clang_getCursorKind(cursor_strip_casts(ch[ci])) ==
                                                CXCursor_DeclRefExpr)
    known = 1, cv = 1;
  if (b->mode == GB_GRAPH && ci + 1 < n && (!known || cv)) {
    branch_shape sh = graph_branch_shape(b, f, ch[ci], ch[ci + 1], known);
    if (sh == BRANCH_ONCE) {
      walk_once(b, f, s, ch[ci], ch[ci + 1]);
      if (ci + 2 < n && !known) gb_walk_stmt(b, f, ch[ci + 2]);
      return;
    }
    if (sh == BRANCH_PERIODIC) {
      int id = record_branch(b, f, s, ch[ci], GRAPH_BRANCH_PERIODIC);
      gb_branch_schedule(b, f, ch[ci], id); /* Note [periodic schedules] */
      int saved = b->cur_branch;
      b->cur_branch = id;
      gb_walk_stmt(b, f, ch[ci + 1]);
      b->cur_branch = saved;
      if (ci + 2 < n) gb_walk_stmt(b, f, ch[ci + 2]);
      return;
    }
  }
  gval old, lim;
  const char *clamp = NULL;
  if (b->mode == GB_GRAPH && !known && ci + 2 == n) clamp = clamp_shape(b, f, ch[ci], ch[ci + 1], &old, &lim);
  size_t mark = 0;
  if (!known) mark = gb_undo_begin(b); /* Note [integers set in an arm] */
  if (ci + 1 < n && (!known || cv)) walk_arm(b, f, ch[ci + 1], !known);
  size_t mark1 = b->n_undo; /* Note [arms that agree] */
  if (ci + 2 < n && (!known || !cv)) walk_arm(b, f, ch[ci + 2], !known);
  if (!known) forget_arm_integers(b, mark, ci + 2 < n ? mark1 : b->n_undo);
  if (clamp) { /* Note [clamp branch] */
    gval v = old;
    v.s = sym_min(b->a, old.s, lim.s);
    v.text = old.text && lim.text ? gb_fmt(b, "(%s < %s ? %s : %s)", old.text, lim.text, old.text,
                                           lim.text) : NULL;
    v.text_ok = v.text && old.text_ok && lim.text_ok;
    v.prec = 0;
    v.ind = 0;
    gb_store(b, clamp, v);
  }
}

/* Five children with an init statement and a condition variable
 * (`if (T x = ...; int y = ...) ... else ...`): all are read. */
void gb_walk_if(gb *b, gb_frame *f, CXCursor s) {
  CXCursor *ch;
  int n = cursor_children_all(s, &ch);
  walk_if_parts(b, f, s, ch, n);
  free(ch);
}
