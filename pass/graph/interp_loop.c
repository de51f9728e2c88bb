/* interp_loop.c - loops: setup loops run (unrolled while their trip count
 * is a small constant, walked once otherwise), graph loops inside the
 * iteration walked once with their induction variable symbolic, and the
 * training loop itself (its counter, Note [while counter]; the dry walk
 * that finds state changed by calls, Note [state changed by calls]).
 * Values a loop body carries from one iteration to the next are forgotten
 * before it is walked (Note [loop-carried values]). */
#include <stdlib.h>
#include <string.h>

#include "graph/interp_impl.h"
#include "graph/callees.h"

/* Parts of a for statement: libclang omits absent parts, so they are told
 * apart by position relative to the header's semicolons. */
typedef struct for_parts {
  CXCursor init, cond, inc, body;
  CXCursor cvar; /* the condition's variable (Note [condition variables]) */
  int has_init, has_cond, has_inc, has_cvar;
} for_parts;

static void for_split(gb *b, CXCursor s, for_parts *p) {
  memset(p, 0, sizeof *p);
  /* five children when the condition declares a variable
   * (`for (...; int r = n - i; ...)`: its VarDecl, then the condition) */
  CXCursor *ch;
  int n = cursor_children_all(s, &ch);
  if (n < 1) {
    free(ch);
    return;
  }
  p->body = ch[n - 1];
  /* the two ';' of the header, from its tokens */
  CXSourceRange ext = clang_getCursorExtent(s);
  CXToken *toks = NULL;
  unsigned nt = 0;
  unsigned semi[2] = {0, 0};
  int ns = 0, depth = 0;
  unsigned body_off;
  clang_getExpansionLocation(clang_getRangeStart(clang_getCursorExtent(p->body)), NULL, NULL, NULL,
                             &body_off);
  CXTranslationUnit tu = clang_Cursor_getTranslationUnit(s); /* any input's */
  clang_tokenize(tu, ext, &toks, &nt);
  for (unsigned i = 0; i < nt && ns < 2; i++) {
    unsigned off;
    clang_getExpansionLocation(clang_getTokenLocation(tu, toks[i]), NULL, NULL, NULL, &off);
    if (off >= body_off) break;
    char *sp = string_and_dispose(clang_getTokenSpelling(tu, toks[i]));
    if (strcmp(sp, "(") == 0) depth++;
    else if (strcmp(sp, ")") == 0) depth--;
    else if (strcmp(sp, ";") == 0 && depth == 1) semi[ns++] = off;
    free(sp);
  }
  if (toks) clang_disposeTokens(tu, toks, nt);
  for (int i = 0; i < n - 1; i++) {
    unsigned off;
    clang_getExpansionLocation(clang_getRangeStart(clang_getCursorExtent(ch[i])), NULL, NULL, NULL,
                               &off);
    if (ns == 2 && off < semi[0]) {
      p->init = ch[i];
      p->has_init = 1;
    } else if (ns == 2 && off < semi[1] && clang_getCursorKind(ch[i]) == CXCursor_VarDecl) {
      p->cvar = ch[i];
      p->has_cvar = 1;
    } else if (ns == 2 && off < semi[1]) {
      p->cond = ch[i];
      p->has_cond = 1;
    } else if (ns == 2) {
      p->inc = ch[i];
      p->has_inc = 1;
    } else if (i == 0 && n == 4) {
      p->init = ch[0];
      p->has_init = 1;
    } else if (i == 1 && n == 4) {
      p->cond = ch[1];
      p->has_cond = 1;
    } else if (i == 2 && n == 4) {
      p->inc = ch[2];
      p->has_inc = 1;
    }
  }
  free(ch);
}

/* Note [strided loops]: `for (off = 0; off < NEVAL; off += B)` and
 * `for (off = 0; off + B <= NEVAL; off += B)` step by a value the loop
 * does not change: the stride is that value (a symbol, `B`), the bound of
 * `off + E < N` is N - E, and the trip count ceil((hi - lo) / stride)
 * follows once the names are bound.  E is taken as loop-invariant only
 * when it calls nothing and no variable or field it reads is assigned (or
 * has its address taken) anywhere in the loop; the stride must then be
 * positive when evaluated (unroll.c), else the trip count is unknown, as
 * before. */
typedef struct invariant_scan {
  gb *b;
  gb_frame *f;
  CXCursor loop;
  int ok;
} invariant_scan;

static int assignments_in(gb *b, gb_frame *f, CXCursor where, const char *key);

static enum CXChildVisitResult invariant_visitor(CXCursor c, CXCursor parent, CXClientData d) {
  (void)parent;
  invariant_scan *is = d;
  enum CXCursorKind k = clang_getCursorKind(c);
  if (k == CXCursor_CallExpr || k == CXCursor_LambdaExpr ||
      (k == CXCursor_UnaryOperator && clang_getCursorUnaryOperatorKind(c) >= CXUnaryOperator_PostInc &&
       clang_getCursorUnaryOperatorKind(c) <= CXUnaryOperator_PreDec) ||
      ((k == CXCursor_BinaryOperator || k == CXCursor_CompoundAssignOperator) &&
       clang_getCursorBinaryOperatorKind(c) >= CXBinaryOperator_Assign &&
       clang_getCursorBinaryOperatorKind(c) <= CXBinaryOperator_OrAssign)) {
    is->ok = 0;
    return CXChildVisit_Break;
  }
  if ((k == CXCursor_DeclRefExpr || k == CXCursor_MemberRefExpr) && gb_plain_lvalue(c)) {
    enum CXCursorKind rk = clang_getCursorKind(clang_getCursorReferenced(c));
    if (rk == CXCursor_EnumConstantDecl || rk == CXCursor_FunctionDecl) return CXChildVisit_Continue;
    const char *key = gb_lvalue(is->b, is->f, cursor_strip_casts(c), NULL, NULL);
    if (!key || assignments_in(is->b, is->f, is->loop, key) != 0) {
      is->ok = 0;
      return CXChildVisit_Break;
    }
    return CXChildVisit_Continue; /* a field's object is the same key's prefix */
  }
  return CXChildVisit_Recurse;
}

/* Does e keep its value for the whole of loop (Note [strided loops])? */
static int loop_invariant(gb *b, gb_frame *f, CXCursor loop, CXCursor e) {
  invariant_scan is = {b, f, loop, 1};
  e = cursor_strip_casts(e);
  enum CXChildVisitResult r = invariant_visitor(e, clang_getNullCursor(), &is);
  if (r == CXChildVisit_Recurse) clang_visitChildren(e, invariant_visitor, &is);
  return is.ok;
}

/* Recognises `for (v = lo; v < hi; v++)`-like headers (v += E with E
 * loop-invariant, `v + E < hi`: Note [strided loops]).  Returns the
 * variable's key and fills lo/hi/step (hi exclusive in the step's
 * direction; step the constant stride, or the direction +1/-1 when the
 * stride is symbolic) and *stride (the stride's value); NULL when the
 * shape is not recognised. */
static const char *for_shape(gb *b, gb_frame *f, CXCursor loop, const for_parts *p,
                             const char **var, gval *lo, gval *hi, int *step, sym **stride) {
  if (!p->has_init || !p->has_cond || !p->has_inc) return NULL;
  const char *key = NULL, *text = NULL;
  int ok = 0;
  CXCursor init = p->init;
  if (clang_getCursorKind(init) == CXCursor_DeclStmt) {
    CXCursor vd[2];
    if (cursor_children(init, vd, 2) != 1) return NULL;
    gb_walk_decl(b, f, vd[0]);
    char *name = string_and_dispose(clang_getCursorSpelling(vd[0]));
    key = gb_var_key(b, f, vd[0], name);
    text = gb_str(b, name);
    free(name);
  } else {
    CXCursor s = cursor_strip_casts(init);
    if (clang_getCursorKind(s) != CXCursor_BinaryOperator ||
        clang_getCursorBinaryOperatorKind(s) != CXBinaryOperator_Assign)
      return NULL;
    gb_eval(b, f, s);
    CXCursor ch[2];
    cursor_children(s, ch, 2);
    key = gb_lvalue(b, f, ch[0], &text, &ok);
  }
  if (!key) return NULL;
  gval *lv = gb_lookup(b, key);
  *lo = lv ? *lv : gb_none_val();
  /* step */
  CXCursor inc = cursor_strip_casts(p->inc);
  *step = 0;
  *stride = NULL;
  if (clang_getCursorKind(inc) == CXCursor_UnaryOperator) {
    enum CXUnaryOperatorKind u = clang_getCursorUnaryOperatorKind(inc);
    if (u == CXUnaryOperator_PostInc || u == CXUnaryOperator_PreInc) *step = 1;
    if (u == CXUnaryOperator_PostDec || u == CXUnaryOperator_PreDec) *step = -1;
  } else if (clang_getCursorKind(inc) == CXCursor_CompoundAssignOperator) {
    CXCursor ch[2];
    int64_t c;
    enum CXBinaryOperatorKind bo = clang_getCursorBinaryOperatorKind(inc);
    int add = bo == CXBinaryOperator_AddAssign, sub = bo == CXBinaryOperator_SubAssign;
    if (cursor_children(inc, ch, 2) == 2 && (add || sub)) {
      const char *ik = gb_lvalue(b, f, cursor_strip_casts(ch[0]), NULL, NULL);
      if (!ik || strcmp(ik, key) != 0) return NULL; /* `j += k` in `for (i = ..; ..; j += k)` */
      if (cursor_eval_int(ch[1], &c)) {
        if (c != 0 && c >= -INT32_MAX && c <= INT32_MAX) *step = (int)(add ? c : -c);
      } else if (loop_invariant(b, f, loop, ch[1])) {
        /* `off += B` (Note [strided loops]) */
        gval sv = gb_eval(b, f, ch[1]);
        if (sv.k == GV_INT && sv.s && !sym_is_unknown(sv.s) && !sv.carried) {
          *step = add ? 1 : -1;
          *stride = sv.s;
        }
      }
    }
  }
  if (!*step) return NULL;
  if (!*stride) *stride = sym_const(b->a, *step > 0 ? *step : -(int64_t)*step);
  /* condition: v < hi, v <= hi, v > hi, v >= hi, v != hi */
  CXCursor cond = cursor_strip_casts(p->cond);
  if (clang_getCursorKind(cond) != CXCursor_BinaryOperator) return NULL;
  CXCursor ch[2];
  if (cursor_children(cond, ch, 2) != 2) return NULL;
  /* v < hi, or v + E < hi / E + v < hi / v - E < hi with E loop-invariant:
   * v < hi - E (Note [strided loops]) */
  sym *shift = NULL;
  CXCursor lhs = cursor_strip_casts(ch[0]), lc[2];
  const char *ck = gb_plain_lvalue(lhs) ? gb_lvalue(b, f, lhs, NULL, NULL) : NULL;
  if ((!ck || strcmp(ck, key) != 0) && clang_getCursorKind(lhs) == CXCursor_BinaryOperator &&
      (clang_getCursorBinaryOperatorKind(lhs) == CXBinaryOperator_Add ||
       clang_getCursorBinaryOperatorKind(lhs) == CXBinaryOperator_Sub) &&
      cursor_children(lhs, lc, 2) == 2) {
    int is_sub = clang_getCursorBinaryOperatorKind(lhs) == CXBinaryOperator_Sub;
    for (int side = 0; side < (is_sub ? 1 : 2) && !shift; side++) {
      CXCursor v = cursor_strip_casts(lc[side]), e = lc[1 - side];
      const char *vk = gb_plain_lvalue(v) ? gb_lvalue(b, f, v, NULL, NULL) : NULL;
      if (!vk || strcmp(vk, key) != 0 || !loop_invariant(b, f, loop, e)) continue;
      gval ev = gb_eval(b, f, e);
      if (ev.k != GV_INT || !ev.s || sym_is_unknown(ev.s) || ev.carried) continue;
      shift = is_sub ? sym_sub(b->a, sym_const(b->a, 0), ev.s) : ev.s;
      ck = key;
    }
  }
  if (!ck || strcmp(ck, key) != 0) return NULL;
  gval h = gb_eval(b, f, ch[1]);
  if (h.k != GV_INT) return NULL;
  if (shift) h.s = sym_sub(b->a, h.s, shift);
  switch (clang_getCursorBinaryOperatorKind(cond)) {
  case CXBinaryOperator_LT:
  case CXBinaryOperator_NE:
  case CXBinaryOperator_GT:
    break;
  case CXBinaryOperator_LE:
    h.s = sym_add(b->a, h.s, sym_const(b->a, 1));
    break;
  case CXBinaryOperator_GE:
    h.s = sym_sub(b->a, h.s, sym_const(b->a, 1));
    break;
  default:
    return NULL;
  }
  *hi = h;
  *var = text;
  return key;
}

/* A graph loop's body, walked once with the loop on b->loops (the ops
 * inside record it); a condition variable (Note [condition variables]) is
 * declared first, as every iteration does. */
void gb_walk_graph_loop_body(gb *b, gb_frame *f, int id, CXCursor cvar, CXCursor body) {
  b->loops[b->n_loops].id = id;
  b->loops[b->n_loops].frame = f;
  if (b->n_loops < 63) b->n_loops++;
  if (!clang_Cursor_isNull(cvar)) gb_walk_decl(b, f, cvar);
  gb_walk_stmt(b, f, body);
  if (b->n_loops) b->n_loops--;
}

/* A dispatch loop in the iteration, walked once per iteration
 * (interp_indirect.c, Note [dispatch loops]); 0 if s is not one. */
static int walk_dispatch_for(gb *b, gb_frame *f, CXCursor s, const for_parts *p, const char *key,
                             const char *var, const gval *lo, const gval *hi, int step,
                             sym *stride) {
  int64_t l0, h0, sc;
  if (!step || !gb_int_value_const(b, lo, &l0) || !gb_int_value_const(b, hi, &h0)) return 0;
  /* a stride other than the step itself (`i += B`): not walked one by one */
  if (stride && !(sym_get_const(stride, &sc) && sc == (step > 0 ? step : -step))) return 0;
  int64_t trips = step > 0 ? (h0 - l0 + step - 1) / step : (l0 - h0 + (-step) - 1) / (-step);
  if (trips < 1 || trips > GB_MAX_DISPATCH_UNROLL || !gb_loop_dispatches(b, p->body)) return 0;
  for (int64_t i = 0, v = l0; i < trips; i++, v += step) {
    int id = b->h->graph_loop(b, f, s, p->body, var, sym_const(b->a, v), sym_const(b->a, v + step),
                              step, NULL);
    if (id >= 0) b->g->loops[id].iteration = 1;
    gval iv = gb_int(b, sym_const(b->a, v), var, f->is_loop_frame);
    iv.ind = 1;
    gb_store(b, key, iv);
    f->iter++; /* the body's calls run again (Note [one op per call site]) */
    gb_walk_graph_loop_body(b, f, id, p->has_cvar ? p->cvar : clang_getNullCursor(), p->body);
  }
  gb_store(b, key, gb_int(b, sym_const(b->a, l0 + trips * step), NULL, 0));
  return 1;
}

void gb_walk_for(gb *b, gb_frame *f, CXCursor s) {
  for_parts p;
  for_split(b, s, &p);
  if (b->mode == GB_GRAPH) {
    const char *var = NULL;
    gval lo, hi;
    int step = 0;
    sym *stride = NULL;
    const char *key = for_shape(b, f, s, &p, &var, &lo, &hi, &step, &stride);
    if (key && walk_dispatch_for(b, f, s, &p, key, var, &lo, &hi, step, stride)) return;
    if (!key && p.has_init) {
      if (clang_getCursorKind(p.init) == CXCursor_DeclStmt) gb_walk_stmt(b, f, p.init);
      else gb_eval(b, f, p.init);
    }
    int id = b->h->graph_loop(b, f, s, p.body, key ? var : NULL, key ? lo.s : NULL,
                         key ? hi.s : NULL, step, key ? stride : NULL);
    gb_forget_carried(b, f, s, key, p.has_init ? p.init : clang_getNullCursor());
    /* the induction variable stays symbolic inside the body */
    if (key) {
      gval iv = gb_int(b, sym_var(b->a, var), var, f->is_loop_frame);
      iv.ind = 1;
      gb_store(b, key, iv);
    }
    gb_walk_graph_loop_body(b, f, id, p.has_cvar ? p.cvar : clang_getNullCursor(), p.body);
    return;
  }
  const char *var;
  gval lo, hi;
  int step;
  sym *stride = NULL;
  const char *key = for_shape(b, f, s, &p, &var, &lo, &hi, &step, &stride);
  int64_t l0, h0, st = 0;
  int runs = 0; /* the stride is known now (`off += B` with B bound: its value) */
  if (key) {
    gval sv = gb_int(b, stride, NULL, 0);
    if (gb_int_value_const(b, &sv, &st) && st > 0 && st <= INT32_MAX) {
      step = step > 0 ? (int)st : -(int)st;
      runs = 1;
    }
  }
  if (runs && gb_int_value_const(b, &lo, &l0) && gb_int_value_const(b, &hi, &h0)) {
    int64_t trips = step > 0 ? (h0 - l0 + step - 1) / step : (l0 - h0 + (-step) - 1) / (-step);
    if (trips <= 0) return;
    /* Unroll only while the nest stays small and the work budget lasts:
     * carving and size loops are short; data-initialisation loops are not
     * worth running (walked once instead, their variable unknown). */
    if (trips * b->unroll_product <= GB_MAX_SETUP_UNROLL && b->steps < GB_MAX_STEPS) {
      int64_t saved_product = b->unroll_product;
      b->unroll_product *= trips;
      for (int64_t i = 0, v = l0; i < trips && b->steps < GB_MAX_STEPS; i++, v += step) {
        gval iv = gb_int(b, sym_const(b->a, v), gb_fmt(b, "%lld", (long long)v), 1);
        iv.ind = 1;
        gb_store(b, key, iv);
        f->iter++; /* the body's calls run again (Note [one op per call site]) */
        if (p.has_cvar) gb_walk_decl(b, f, p.cvar);
        gb_walk_stmt(b, f, p.body);
      }
      b->unroll_product = saved_product;
      return;
    }
  }
  if (!key && p.has_init) {
    if (clang_getCursorKind(p.init) == CXCursor_DeclStmt) gb_walk_stmt(b, f, p.init);
    else gb_eval(b, f, p.init);
  }
  if (key) {
    gval iv = gb_int(b, sym_unknown(b->a), NULL, 0);
    iv.ind = 1;
    gb_store(b, key, iv);
  }
  b->once_depth++;
  if (p.has_cvar) gb_walk_decl(b, f, p.cvar);
  gb_walk_stmt(b, f, p.body);
  b->once_depth--;
}

/* Note [loop-carried values]: a loop body is walked once, but a variable
 * the loop assigns (`step++` in `while (true)`, `p += sizes[i]`, `off +=
 * n`) holds a different value in every later iteration.  Reading its entry
 * value would prune `if (step > 0)` and put every iteration's access at
 * the first offset - wrong, and confidently so.  Before a graph-mode loop
 * body (the training loop's included) is walked, every integer or pointer
 * variable or field the loop itself assigns, other than its recognised
 * induction variable, is forgotten (gb_forget_carried): integers become
 * unknown under their own name (ind: never bound as a constant), device
 * pointers keep their allocation but lose their offset.  Values computed
 * from them carry the `carried` flag, so an access through such a pointer
 * is reported as "offset carried around a loop" and covers its whole
 * allocation (opsites.c).  Assignments made inside called functions
 * (`advance(&p)`) are not seen by this syntactic scan (docs/limitations.md).
 */
typedef struct carried_ud {
  gb *b;
  gb_frame *f;
  const char *skip;   /* the loop's recognised induction variable (its own rule) */
  CXCursor skip_part; /* a for statement's init: runs once, not carried */
} carried_ud;

static void forget_value(carried_ud *cd, CXCursor target) {
  gb *b = cd->b;
  CXType t = clang_getCanonicalType(clang_getCursorType(target));
  int is_int = (t.kind >= CXType_Bool && t.kind <= CXType_Int128) || t.kind == CXType_Enum;
  if (!is_int && t.kind != CXType_Pointer) return;
  const char *text;
  int ok;
  const char *key = gb_lvalue(b, cd->f, target, &text, &ok);
  if (!key || (cd->skip && strcmp(key, cd->skip) == 0)) return;
  gval *st = gb_lookup(b, key);
  if (is_int) {
    if (st && st->carried) return; /* already forgotten by an enclosing loop */
    gval v = gb_int(b, sym_unknown(b->a), text, ok);
    v.ind = 1; /* gb_named_int: never bound as a constant */
    v.carried = 1;
    gb_store(b, key, v);
    /* a constant found while it held its entry value names no constant */
    if (text && ok) bind_forget_const(&b->g->binds, text);
    return;
  }
  if (!st) return; /* never assigned: read as a pointer of unknown origin anyway */
  gval v = *st;
  if (v.k == GV_DEVPTR) {
    v.delta = sym_unknown(b->a);
  } else if (v.k == GV_ADDR) {
    const char *lb = strrchr(v.path, '[');
    v.path = lb ? gb_fmt(b, "%.*s[?]", (int)(lb - v.path), v.path) : gb_fmt(b, "%s+?", v.path);
    v.index = NULL; /* which element is not known */
  } else {
    return;
  }
  v.carried = 1;
  v.text = text; /* the entry value's text no longer names it */
  v.text_ok = ok;
  v.prec = 0;
  gb_store(b, key, v);
}

static enum CXChildVisitResult carried_visitor(CXCursor c, CXCursor parent, CXClientData d) {
  carried_ud *cd = d;
  if (!clang_Cursor_isNull(cd->skip_part) && clang_equalCursors(c, cd->skip_part))
    return CXChildVisit_Continue;
  enum CXCursorKind k = clang_getCursorKind(c);
  if (k == CXCursor_LambdaExpr) return CXChildVisit_Continue;
  CXCursor target = clang_getNullCursor();
  if (k == CXCursor_BinaryOperator || k == CXCursor_CompoundAssignOperator) {
    enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(c);
    CXCursor ch[2];
    if (op >= CXBinaryOperator_Assign && op <= CXBinaryOperator_OrAssign && cursor_children(c, ch, 2) == 2)
      target = ch[0];
  } else if (k == CXCursor_UnaryOperator) {
    enum CXUnaryOperatorKind op = clang_getCursorUnaryOperatorKind(c);
    CXCursor ch[1];
    if (op >= CXUnaryOperator_PostInc && op <= CXUnaryOperator_PreDec && cursor_children(c, ch, 1) == 1)
      target = ch[0];
  }
  if (!clang_Cursor_isNull(target) && gb_plain_lvalue(target))
    forget_value(cd, cursor_strip_casts(target));
  return CXChildVisit_Recurse;
}

/* Forgets what loop s carries from one iteration to the next, except the
 * induction variable skip_key (NULL if none) and the init part of a for. */
void gb_forget_carried(gb *b, gb_frame *f, CXCursor s, const char *skip_key, CXCursor init) {
  carried_ud cd = {b, f, skip_key, init};
  clang_visitChildren(s, carried_visitor, &cd);
}

/* Note [state changed by calls]: the syntactic scan of Note [loop-carried
 * values] sees what the loop body itself assigns, not what the functions
 * it calls assign: a caching allocator's `top += bytes` inside `pool.get()`
 * (called by a Matrix constructor, called by `operator*`) moves every
 * later iteration's blocks, yet the one walk reads its entry value and
 * puts each iteration's temporaries at the first iteration's offsets -
 * where the weights were carved before the loop, so a plan could take the
 * weights for dead.  So the body is first walked dry: with handlers that
 * record nothing (b->quiet), noting every store key written outside once
 * branches.  A key that held a value before the dry walk and holds a
 * different one after it is state carried from one iteration to the next
 * by some call; the store is put back as it was, such keys are forgotten
 * as Note [loop-carried values] forgets (integers unknown, pointers
 * keeping their allocation with an unknown offset, marked carried), and
 * the body is walked for real.  Keys written with the value they held
 * (`model->batch_size = B` every step) stay.  Only when the body calls a
 * user function (the syntactic scan covers the rest); state created
 * inside the iteration and carried between the iterations of an inner loop
 * by calls is not seen. */
typedef struct user_call_scan {
  gb *b;
  int found;
} user_call_scan;

static enum CXChildVisitResult user_call_visitor(CXCursor c, CXCursor parent, CXClientData d) {
  (void)parent;
  user_call_scan *u = d;
  if (clang_getCursorKind(c) == CXCursor_CallExpr) {
    CXCursor decl = gb_callee_decl(c), key;
    if (callees_kind(c, &key) != CALLEE_DIRECT || /* an indirect call may run a user function */
        (!clang_Cursor_isNull(decl) &&
         gb_is_user_function(u->b, program_definition(u->b->t, decl)))) {
      u->found = 1;
      return CXChildVisit_Break;
    }
  }
  return CXChildVisit_Recurse;
}

static int gval_same(const gval *x, const gval *y) {
  if (x->k != y->k) return 0;
  switch (x->k) {
  case GV_INT:
  case GV_DESC:
    return x->s == y->s || (x->s && y->s && sym_equal(x->s, y->s));
  case GV_DEVPTR:
    return x->alloc == y->alloc && x->region == y->region &&
           (x->base == y->base || (x->base && y->base && sym_equal(x->base, y->base))) &&
           (x->delta == y->delta || (x->delta && y->delta && sym_equal(x->delta, y->delta))) &&
           x->family == y->family; /* a family read again is a new one: conservative */
  case GV_ADDR:
  case GV_ALIAS:
    return x->path == y->path || (x->path && y->path && !strcmp(x->path, y->path));
  case GV_FUNC:
    return x->alloc == y->alloc;
  default:
    return 1;
  }
}

/* A value some call changes between iterations: unknown from here on. */
static void carry_key(gb *b, const char *key) {
  gval *st = gb_lookup(b, key);
  if (!st || st->carried) return;
  gval v = *st;
  if (v.k == GV_INT) {
    /* the name's binding stays: setup's reads (a block carved before the
     * loop) used the value it held then, the loop reads this unknown */
    v = gb_int(b, sym_unknown(b->a), st->text, st->text_ok);
    v.ind = 1;
  } else if (v.k == GV_DEVPTR) {
    v.delta = sym_unknown(b->a);
  } else if (v.k == GV_ADDR) {
    const char *lb = strrchr(v.path, '[');
    v.path = lb ? gb_fmt(b, "%.*s[?]", (int)(lb - v.path), v.path) : gb_fmt(b, "%s+?", v.path);
  } else {
    return;
  }
  v.carried = 1;
  gb_store(b, key, v);
}

static void dry_walk(gb *b, gb_frame *f, CXCursor body) {
  user_call_scan u = {b, 0};
  clang_visitChildren(body, user_call_visitor, &u);
  if (!b->quiet || !u.found) return;
  graph *g = b->g;
  /* what the dry walk may change, saved */
  gb_store_copy saved;
  if (gb_store_save(b, &saved) != 0) return;
  gb_seen_call seen[GB_SEEN_CALLS];
  memcpy(seen, b->seen, sizeof seen);
  int n_seen = b->n_seen, once_sites = b->once_sites;
  int n_loops = g->n_loops, n_branches = g->n_branches, n_notes = g->n_notes;
  const gb_handlers *h = b->h;
  b->h = b->quiet;
  b->dry = 1;
  b->n_dry_keys = 0;
  gb_walk_stmt(b, f, body);
  b->dry = 0;
  b->h = h;
  /* keys that existed before and now hold another value */
  size_t n_changed = 0;
  const char **changed = malloc((b->n_dry_keys + 1) * sizeof *changed);
  for (size_t i = 0; changed && i < b->n_dry_keys; i++) {
    const char *key = b->dry_keys[i];
    const gval *now = gb_lookup(b, key);
    const gval *old = gb_store_copy_lookup(&saved, key);
    if (old && now && !gval_same(old, now)) changed[n_changed++] = key;
  }
  /* put everything back */
  gb_store_restore(b, &saved);
  memcpy(b->seen, seen, sizeof seen);
  b->n_seen = n_seen;
  b->once_sites = once_sites;
  for (int i = n_loops; i < g->n_loops; i++) {
    free(g->loops[i].var);
    free(g->loops[i].file);
  }
  g->n_loops = n_loops;
  for (int i = n_branches; i < g->n_branches; i++) {
    free(g->branches[i].cond);
    free(g->branches[i].function);
    free(g->branches[i].file);
    for (int k = 0; k < g->branches[i].n_sched; k++) free(g->branches[i].sched[k].text);
    free(g->branches[i].sched); /* Note [periodic schedules] */
    free(g->branches[i].sched_why);
  }
  g->n_branches = n_branches;
  for (int i = n_notes; i < g->n_notes; i++) {
    free(g->notes[i].file);
    free(g->notes[i].message);
  }
  g->n_notes = n_notes;
  for (size_t i = 0; i < n_changed; i++) carry_key(b, changed[i]);
  free(changed);
}

/* Note [while counter]: `int step = 0; while (step < n) { if (step == 0)
 * {...} ...; step++; }`.  A while loop has no induction variable: its
 * counter is loop-carried (unknown inside the body), so `step == 0` could
 * not be told from any other test and its setup ran every iteration.  The
 * counter is recognised when the body's last statement increments it by
 * one (`step++`, `++step`, `step += 1`, `step = step + 1`), nothing else
 * in the body assigns it, and its value on entry is a constant: then the
 * first iteration is the one with that value.  It stays unknown otherwise
 * (nothing about later iterations is assumed), and a test of it inside a
 * called function (through a parameter) is not recognised. */
typedef struct assign_count {
  gb *b;
  gb_frame *f;
  const char *key;
  int n;
} assign_count;

static enum CXChildVisitResult assign_count_visitor(CXCursor c, CXCursor parent, CXClientData d) {
  (void)parent;
  assign_count *ac = d;
  enum CXCursorKind k = clang_getCursorKind(c);
  CXCursor ch[2], target = clang_getNullCursor();
  if ((k == CXCursor_BinaryOperator || k == CXCursor_CompoundAssignOperator) &&
      clang_getCursorBinaryOperatorKind(c) >= CXBinaryOperator_Assign &&
      clang_getCursorBinaryOperatorKind(c) <= CXBinaryOperator_OrAssign && cursor_children(c, ch, 2) == 2)
    target = ch[0];
  else if (k == CXCursor_UnaryOperator &&
           ((clang_getCursorUnaryOperatorKind(c) >= CXUnaryOperator_PostInc &&
             clang_getCursorUnaryOperatorKind(c) <= CXUnaryOperator_PreDec) ||
            clang_getCursorUnaryOperatorKind(c) == CXUnaryOperator_AddrOf) &&
           cursor_children(c, ch, 1) == 1)
    target = ch[0]; /* &step escapes: a callee may assign it */
  if (!clang_Cursor_isNull(target) && gb_plain_lvalue(target)) {
    const char *key = gb_lvalue(ac->b, ac->f, cursor_strip_casts(target), NULL, NULL);
    if (key && strcmp(key, ac->key) == 0) ac->n++;
  }
  return CXChildVisit_Recurse;
}

/* How many times the lvalue `key` is assigned (or has its address taken)
 * inside `where`. */
static int assignments_in(gb *b, gb_frame *f, CXCursor where, const char *key) {
  assign_count ac = {b, f, key, 0};
  clang_visitChildren(where, assign_count_visitor, &ac);
  return ac.n;
}

/* The counter of while-loop body `body` (Note [while counter]): its store
 * key and entry value, or NULL. */
static const char *while_counter(gb *b, gb_frame *f, CXCursor body, int64_t *first) {
  CXCursor last = body;
  if (clang_getCursorKind(body) == CXCursor_CompoundStmt) {
    last = cursor_last_child(body); /* a body of any length */
    if (clang_Cursor_isNull(last)) return NULL;
  }
  last = cursor_strip_casts(last);
  CXCursor ch[2], target;
  enum CXCursorKind k = clang_getCursorKind(last);
  int64_t one;
  if (k == CXCursor_UnaryOperator &&
      (clang_getCursorUnaryOperatorKind(last) == CXUnaryOperator_PostInc ||
       clang_getCursorUnaryOperatorKind(last) == CXUnaryOperator_PreInc) &&
      cursor_children(last, ch, 1) == 1) {
    target = ch[0];
  } else if (k == CXCursor_CompoundAssignOperator &&
             clang_getCursorBinaryOperatorKind(last) == CXBinaryOperator_AddAssign &&
             cursor_children(last, ch, 2) == 2 && cursor_eval_int(ch[1], &one) && one == 1) {
    target = ch[0];
  } else if (k == CXCursor_BinaryOperator &&
             clang_getCursorBinaryOperatorKind(last) == CXBinaryOperator_Assign &&
             cursor_children(last, ch, 2) == 2) {
    /* step = step + 1 */
    CXCursor rhs = cursor_strip_casts(ch[1]), rc[2];
    if (clang_getCursorKind(rhs) != CXCursor_BinaryOperator ||
        clang_getCursorBinaryOperatorKind(rhs) != CXBinaryOperator_Add || cursor_children(rhs, rc, 2) != 2 ||
        !cursor_eval_int(rc[1], &one) || one != 1)
      return NULL;
    const char *a = gb_lvalue(b, f, cursor_strip_casts(ch[0]), NULL, NULL);
    const char *c =
        gb_plain_lvalue(rc[0]) ? gb_lvalue(b, f, cursor_strip_casts(rc[0]), NULL, NULL) : NULL;
    if (!a || !c || strcmp(a, c) != 0) return NULL;
    target = ch[0];
  } else {
    return NULL;
  }
  CXType t = clang_getCanonicalType(clang_getCursorType(target));
  if (!(t.kind >= CXType_Bool && t.kind <= CXType_Int128) || !gb_plain_lvalue(target)) return NULL;
  const char *key = gb_lvalue(b, f, cursor_strip_casts(target), NULL, NULL);
  gval *v = key ? gb_lookup(b, key) : NULL;
  if (!v || v->carried || !gb_int_value_const(b, v, first)) return NULL;
  assign_count ac = {b, f, key, 0};
  clang_visitChildren(body, assign_count_visitor, &ac);
  return ac.n == 1 ? key : NULL;
}

void gb_walk_train_loop(gb *b, gb_frame *f, CXCursor s) {
  graph *g = b->g;
  b->reached_loop = 1;
  f->is_loop_frame = 1;
  f->keep_names = 1;
  b->loop_frame = f;
  b->h->setup_done(b);
  b->mode = GB_GRAPH;
  CXCursor first = cursor_first_child(s), last = cursor_last_child(s);
  if (!clang_Cursor_isNull(last)) {
    g->loop_body = gb_range(b, last, 1);
    if (clang_getCursorKind(s) == CXCursor_ForStmt) {
      for_parts p;
      for_split(b, s, &p);
      const char *var = NULL;
      gval lo, hi;
      int step = 0;
      sym *stride = NULL;
      const char *step_key = for_shape(b, f, s, &p, &var, &lo, &hi, &step, &stride);
      int64_t cst;
      if (step_key && (!sym_get_const(stride, &cst) || cst != (step > 0 ? step : -(int64_t)step)))
        step_key = NULL; /* a training loop stepping by a name: not followed (train_step) */
      if (step_key && lo.k == GV_INT && lo.s && hi.s) {
        /* the step counter: symbolic, in scope; its range lets unroll.c
         * follow accesses that move with it (Note [stepped accesses]) */
        gval iv = gb_int(b, sym_var(b->a, var), var, 1);
        iv.ind = 1;
        int64_t l0;
        if (gb_int_value_const(b, &lo, &l0)) {
          b->train_var = var; /* `if (step == lo)` is the first iteration */
          b->train_lo = l0;
        }
        g->train_var = strdup(var);
        g->train_lo = lo.s;
        g->train_hi = hi.s;
        g->train_step = step;
        gb_store(b, step_key, iv);
      } else if (p.has_init) {
        step_key = NULL;
        /* the step counter: symbolic, in scope */
        if (clang_getCursorKind(p.init) == CXCursor_DeclStmt) {
          CXCursor vd[1];
          if (cursor_children(p.init, vd, 1) == 1) {
            char *name = string_and_dispose(clang_getCursorSpelling(vd[0]));
            gval iv = gb_int(b, sym_var(b->a, name), gb_str(b, name), 1);
            iv.ind = 1;
            step_key = gb_var_key(b, f, vd[0], name);
            CXCursor *init;
            int ni = cursor_children_all(vd[0], &init);
            for (int i = 0; i < ni; i++)
              if (clang_isExpression(clang_getCursorKind(init[i])) &&
                  cursor_eval_int(init[i], &b->train_lo))
                b->train_var = gb_str(b, name); /* `if (step == lo)` is the first iteration */
            free(init);
            gb_store(b, step_key, iv);
            free(name);
          }
        }
      }
      gb_forget_carried(b, f, s, step_key, p.has_init ? p.init : clang_getNullCursor());
      if (p.has_cvar) { /* Note [condition variables] */
        dry_walk(b, f, p.cvar);
        gb_walk_decl(b, f, p.cvar);
      }
      dry_walk(b, f, p.body);
      gb_walk_stmt(b, f, p.body);
    } else {
      CXCursor body = clang_getCursorKind(s) == CXCursor_DoStmt ? first : last;
      if (clang_getCursorKind(s) == CXCursor_DoStmt) g->loop_body = gb_range(b, body, 1);
      /* before gb_forget_carried: the counter's entry value */
      b->train_key = while_counter(b, f, body, &b->train_lo);
      gb_forget_carried(b, f, s, NULL, clang_getNullCursor());
      /* `while (Batch *bt = loader.next())`: each iteration declares it
       * first (Note [condition variables]); its calls' state is carried */
      if (clang_getCursorKind(s) == CXCursor_WhileStmt &&
          clang_getCursorKind(first) == CXCursor_VarDecl) {
        dry_walk(b, f, first);
        gb_walk_decl(b, f, first);
      }
      dry_walk(b, f, body);
      gb_walk_stmt(b, f, body);
    }
  }
  b->mode = GB_AFTER;
}

/* A range-for over a vector of `count` elements at vk, walked element by
 * element: before the training loop as a setup loop, inside it as a
 * dispatch loop (interp_indirect.c, Note [dispatch loops]: one graph loop
 * of one trip per element).  0 (nothing walked) past the bounds. */
static int walk_range_elements(gb *b, gb_frame *f, CXCursor s, CXCursor vd, CXCursor body,
                               const char *vk, const char *vt, int vok, int64_t count) {
  if (b->mode == GB_GRAPH) {
    if (count > GB_MAX_DISPATCH_UNROLL) return 0;
    for (int64_t k = 0; k < count; k++) {
      int id = b->h->graph_loop(b, f, s, body, NULL, sym_const(b->a, k), sym_const(b->a, k + 1), 1,
                                NULL);
      if (id >= 0) b->g->loops[id].iteration = 1;
      gb_bind_range_element(b, f, vd, vk, vt, vok, k);
      f->iter++; /* the body's calls run again (Note [one op per call site]) */
      gb_walk_graph_loop_body(b, f, id, clang_getNullCursor(), body);
    }
    return 1;
  }
  if (count * b->unroll_product > GB_MAX_SETUP_UNROLL) return 0;
  int64_t saved_product = b->unroll_product;
  b->unroll_product *= count ? count : 1;
  for (int64_t k = 0; k < count && b->steps < GB_MAX_STEPS; k++) {
    gb_bind_range_element(b, f, vd, vk, vt, vok, k);
    f->iter++;
    gb_walk_stmt(b, f, body);
  }
  b->unroll_product = saved_product;
  return 1;
}

/* `for (auto &l : layers)` over anything else: the element is not
 * followed; inside the iteration it is a graph loop of unknown trip
 * count, like a while.
 * Its own function so that the cursor array stays out of gb_walk_stmt's
 * frame, as walk_compound's. */
void gb_walk_range_for(gb *b, gb_frame *f, CXCursor s) {
  CXCursor *ch;
  int n = cursor_children_all(s, &ch);
  if (n < 1) {
    free(ch);
    return;
  }
  CXCursor body = ch[n - 1];
  /* a vector of known size: once per element (interp_container.c, Note
   * [container elements]) */
  if (n >= 3 && clang_getCursorKind(ch[0]) == CXCursor_VarDecl &&
      clang_isExpression(clang_getCursorKind(ch[1]))) {
    const char *vk, *vt;
    int vok;
    int64_t count;
    CXCursor vd = ch[0];
    if (gb_range_for_vector(b, f, ch[1], &vk, &vt, &vok, &count) &&
        walk_range_elements(b, f, s, vd, body, vk, vt, vok, count)) {
      free(ch);
      return;
    }
  }
  for (int i = 0; i + 1 < n; i++)
    if (clang_isExpression(clang_getCursorKind(ch[i]))) gb_eval(b, f, ch[i]);
  free(ch);
  if (b->mode == GB_GRAPH) {
    int id = b->h->graph_loop(b, f, s, body, NULL, NULL, NULL, 0, NULL);
    gb_forget_carried(b, f, s, NULL, clang_getNullCursor());
    gb_walk_graph_loop_body(b, f, id, clang_getNullCursor(), body);
  } else {
    b->once_depth++;
    gb_walk_stmt(b, f, body);
    b->once_depth--;
  }
}
