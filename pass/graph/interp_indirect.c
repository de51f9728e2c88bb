/* interp_indirect.c - calls whose callee is a value: function pointers
 * (a function stored in a struct field or a variable, GV_FUNC) and
 * virtual methods (the object's dynamic class, kept at "OBJ.@dyn"), and
 * the loops that call a different function in each iteration (Note
 * [dispatch loops]).  The candidates when the value is not known come
 * from callees.c (Note [indirect calls] there). */
#include <stdlib.h>
#include <string.h>

#include "analysis/libcalls.h"
#include "graph/interp_impl.h"
#include "graph/callees.h"

gval gb_func_val(gb *b, CXCursor fn, const char *text) {
  gval v = gb_none_val();
  if (clang_Cursor_isNull(fn)) return v;
  int i = 0;
  while (i < b->n_cursors && !clang_equalCursors(b->cursors[i], fn)) i++;
  if (i == b->n_cursors) {
    if (b->n_cursors == b->cap_cursors) {
      int nc = b->cap_cursors ? b->cap_cursors * 2 : 32;
      CXCursor *n = realloc(b->cursors, (size_t)nc * sizeof *n);
      if (!n) return v;
      b->cursors = n;
      b->cap_cursors = nc;
    }
    b->cursors[b->n_cursors++] = fn;
  }
  v.k = GV_FUNC;
  v.alloc = i;
  v.text = text;
  v.text_ok = text != NULL;
  return v;
}

/* `fwd`, `&fwd`: the function's value; anything else: none (not evaluated). */
gval gb_eval_function_ref(gb *b, gb_frame *f, CXCursor e) {
  (void)f;
  CXCursor fn = callees_function_ref(e);
  return clang_Cursor_isNull(fn) ? gb_none_val() : gb_func_val(b, fn, gb_text(b, e));
}

CXCursor gb_func_cursor(gb *b, const gval *v) {
  if (!v || v->k != GV_FUNC || v->alloc < 0 || v->alloc >= b->n_cursors) return clang_getNullCursor();
  return b->cursors[v->alloc];
}

/* The object at obj was constructed as class cls (`new Linear(...)`,
 * make_unique<Linear>, a declared `Linear l(...)`): its virtual methods
 * are cls's overrides. */
void gb_set_dynamic_class(gb *b, const char *obj, CXCursor cls) {
  if (!obj || clang_Cursor_isNull(cls)) return;
  gb_store(b, gb_fmt(b, "%s.@dyn", gb_resolve_alias(b, obj)), gb_func_val(b, cls, NULL));
}

/* Runs def with the call's arguments bound; obj is `this` for a method. */
static void run_callee(gb *b, gb_frame *f, CXCursor e, CXCursor def, const char *obj, gval *ret) {
  gval args[64];
  int na = gb_bind_call_args(b, f, e, def, 0, args, 64);
  if (clang_getCursorKind(def) == CXCursor_CXXMethod && !clang_CXXMethod_isStatic(def))
    b->this_path = obj;
  gval r = gb_none_val();
  gb_run_function(b, def, f, e, args, na, &r);
  b->this_path = NULL;
  if (ret) *ret = r;
}

/* Note [indirect calls], continued: when the value does not say which
 * function runs (an object of unknown dynamic class, a function pointer
 * read from memory the analysis did not follow), every candidate the
 * program could run there is walked, one after the other, with b->maybe
 * set: their ops are in the graph (so the rewriter instruments every
 * candidate's op sites, and the run-time record sees the one that ran)
 * marked graph_op.maybe, whose writes are never taken to overwrite
 * anything (unroll.c), since the op may not run.  So is a single candidate
 * when something else may run instead (a library function, a value the
 * syntax does not name: callees_reach, Note [library functions through
 * pointers]).  No candidate: the call is reported and not followed. */
static void walk_candidates(gb *b, gb_frame *f, CXCursor e, const char *obj, const char *what) {
  if (!b->callees) b->callees = callees_build(b->t);
  CXCursor *cand = NULL;
  int n = callees_candidates(b->callees, b->t, e, &cand);
  int runnable = 0;
  for (int i = 0; i < n; i++) runnable += gb_is_user_function(b, cand[i]);
  if (!runnable) {
    gb_note(b, e, "%s: no function the program assigns to it was found; ops below it are not "
            "in the graph", what);
    free(cand);
    return;
  }
  CXCursor lib;
  int others = callees_reach(b->callees, b->t, e, &lib) != CALLEE_REACH_USER;
  int maybe = runnable > 1 || others;
  if (runnable > 1) {
    gb_note(b, e, "%s: which of %d candidate functions runs is not known here; each is walked "
            "and its ops may not run (instrumented; writes not taken as overwrites)", what, runnable);
  } else if (others) {
    gb_note(b, e, "%s: it may run a function the program does not define instead of the one "
            "walked, whose ops may not run (instrumented; writes not taken as overwrites)", what);
  }
  b->maybe += maybe;
  for (int i = 0; i < n; i++)
    if (gb_is_user_function(b, cand[i])) run_callee(b, f, e, cand[i], obj, NULL);
  b->maybe -= maybe;
  free(cand);
}

/* 1 when fn is a library function (no body in the program) the
 * interpreter takes by its name through a pointer: not an allocation or a
 * free (their replacement is a rewrite of the call as written, which names
 * the pointer, not the function). */
static int library_by_name(gb *b, CXCursor fn) {
  CXCursor def = program_definition(b->t, fn);
  if (!clang_Cursor_isNull(def) && !clang_Location_isInSystemHeader(clang_getCursorLocation(def)))
    return 0;
  char *n = string_and_dispose(clang_getCursorSpelling(fn));
  const libcall_info *li = n ? libcall_find(n) : NULL;
  free(n);
  return !(li && (li->flags & (LIBCALL_ALLOC | LIBCALL_FREE)));
}

int gb_call_indirect(gb *b, gb_frame *f, CXCursor e, gval *ret, CXCursor *lib) {
  *lib = clang_getNullCursor();
  CXCursor key;
  callee_kind kind = callees_kind(e, &key);
  if (kind == CALLEE_DIRECT) return 0;
  *ret = gb_none_val();
  if (kind == CALLEE_POINTER) {
    CXCursor ch[1];
    if (cursor_children(e, ch, 1) < 1) return 0;
    gval fv = gb_eval(b, f, ch[0]);
    CXCursor fn = gb_func_cursor(b, &fv);
    int64_t z;
    if (fv.k == GV_INT && gb_int_value_const(b, &fv, &z) && z == 0) {
      /* a NULL entry point: the call would fault; a guard keeps it from running */
      for (int i = 0; i < clang_Cursor_getNumArguments(e); i++)
        gb_eval(b, f, clang_Cursor_getArgument(e, (unsigned)i));
      return 1;
    }
    if (!clang_Cursor_isNull(fn)) {
      CXCursor def = program_definition(b->t, fn);
      if (gb_is_user_function(b, def)) {
        run_callee(b, f, e, def, NULL, ret);
      } else if (library_by_name(b, fn)) {
        /* a library function through a pointer: a call of it (an op when
         * the model says so), Note [library functions through pointers] */
        *lib = fn;
        return 0;
      } else {
        for (int i = 0; i < clang_Cursor_getNumArguments(e); i++)
          gb_eval(b, f, clang_Cursor_getArgument(e, (unsigned)i));
      }
      return 1;
    }
    /* the value is not known here: the one library function the syntax
     * allows, else the program's candidates */
    if (!b->callees) b->callees = callees_build(b->t);
    CXCursor only;
    if (callees_reach(b->callees, b->t, e, &only) == CALLEE_REACH_LIBRARY &&
        library_by_name(b, only)) {
      *lib = only;
      return 0;
    }
    char *name = clang_Cursor_isNull(key) ? NULL : string_and_dispose(clang_getCursorSpelling(key));
    walk_candidates(b, f, e, NULL,
                    gb_fmt(b, "call through function pointer '%s'",
                           name && *name ? name : gb_text(b, ch[0])));
    free(name);
    return 1;
  }
  /* CALLEE_VIRTUAL: the override of the object's dynamic class */
  const char *obj = gb_method_object(b, f, e);
  gval *dyn = obj ? gb_lookup(b, gb_fmt(b, "%s.@dyn", gb_resolve_alias(b, obj))) : NULL;
  CXCursor cls = gb_func_cursor(b, dyn);
  if (!clang_Cursor_isNull(cls)) {
    CXCursor def = callees_override(b->t, cls, key);
    if (gb_is_user_function(b, def)) {
      run_callee(b, f, e, def, obj, ret);
      return 1;
    }
  }
  char *name = string_and_dispose(clang_getCursorSpelling(key));
  walk_candidates(b, f, e, obj, gb_fmt(b, "virtual call of '%s' on an object whose class is not "
                  "known", name ? name : "?"));
  free(name);
  return 1;
}

/* Note [dispatch loops]: a loop over layers that calls each layer's entry
 * point (`for (i = 0; i < net.n; ++i) { layer l = net.layers[i];
 * l.forward(l, net); net.input = l.output; }`, `for (auto &l : layers)
 * l->step(lr);`) runs a different function in each iteration, and often
 * hands each one the previous one's output.  One structural walk with the
 * index symbolic cannot say which function runs, nor which buffer the
 * previous iteration left behind.  So in the iteration (graph mode) such
 * a loop, when its trip count is a known constant (at most
 * GB_MAX_DISPATCH_UNROLL), is walked once per iteration with its variable
 * at that iteration's value (still written by its name): each iteration a
 * graph loop of one trip (graph_loop.iteration), so that unrolling binds
 * the variable and the rewriter places nothing inside the loop's body
 * that would run in every iteration.  A loop dispatches when its body, or
 * a function it calls (a few levels down), makes an indirect call. */
typedef struct dispatch_scan {
  gb *b;
  int found, depth;
} dispatch_scan;

static enum CXChildVisitResult dispatch_visitor(CXCursor c, CXCursor parent, CXClientData d) {
  (void)parent;
  dispatch_scan *s = d;
  if (clang_getCursorKind(c) == CXCursor_LambdaExpr) return CXChildVisit_Continue;
  if (clang_getCursorKind(c) != CXCursor_CallExpr) return CXChildVisit_Recurse;
  CXCursor key;
  if (callees_kind(c, &key) != CALLEE_DIRECT) {
    s->found = 1;
    return CXChildVisit_Break;
  }
  if (s->depth < 3 && !clang_Cursor_isNull(key)) {
    CXCursor def = program_definition(s->b->t, key);
    if (gb_is_user_function(s->b, def)) {
      s->depth++;
      CXCursor body = cursor_fn_body(def);
      if (!clang_Cursor_isNull(body)) clang_visitChildren(body, dispatch_visitor, s);
      s->depth--;
      if (s->found) return CXChildVisit_Break;
    }
  }
  return CXChildVisit_Recurse;
}

int gb_loop_dispatches(gb *b, CXCursor body) {
  dispatch_scan s = {b, 0, 0};
  /* the body itself may be the call (an unbraced loop body) */
  if (dispatch_visitor(body, body, &s) == CXChildVisit_Recurse)
    clang_visitChildren(body, dispatch_visitor, &s);
  return s.found;
}
