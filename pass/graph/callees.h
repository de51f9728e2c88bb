/* callees.h - the functions an indirect call may run, from the program's
 * syntax alone (callees.c): the functions it assigns to a function-pointer
 * field or variable, the overrides of a virtual method.  The interpreter
 * narrows them with values (interp_indirect.c); the loop choice counts
 * their op sites (loop.c). */
#ifndef TIDAL_PASS_GRAPH_CALLEES_H
#define TIDAL_PASS_GRAPH_CALLEES_H

#include <clang-c/Index.h>
#include "frontend/frontend.h"

typedef struct callee_index callee_index;

/* The index of the program t belongs to (every input and the project
 * headers they include), built on first use; freed by callees_free. */
callee_index *callees_build(pass_tu *t);
void callees_free(callee_index *ix); /* NULL is a no-op */

/* How a call names what it runs. */
typedef enum callee_kind {
  CALLEE_DIRECT = 0,  /* a function or a non-virtual method: its declaration */
  CALLEE_POINTER = 1, /* through a function pointer (a field, a variable, a parameter, an
                         element of an array of them), or a function value no declaration
                         holds (`get_op(k)(x)`, `(c ? f : g)(x)`: no key) */
  CALLEE_VIRTUAL = 2  /* a virtual method through a pointer or reference */
} callee_kind;

/* The kind of call e, and the declaration it is keyed by: the function,
 * the pointer's field, variable, parameter or array declaration, or the
 * virtual method; a null cursor for a function value no declaration holds. */
callee_kind callees_kind(CXCursor call, CXCursor *key);

/* The definitions an indirect call may run (malloc'd into *out, in the
 * program's order, each once); the count, 0 when none is known.  For
 * CALLEE_POINTER, every function of the program stored to the pointer
 * (`l.forward = fwd_conv`, `fn_t f = relu;`, a struct or array
 * initialiser's element, an argument for a parameter, either arm of `c ?
 * f : g`) or to a pointer it is copied from; for CALLEE_VIRTUAL, the
 * method's own definition (if it has one) and every override in the
 * program. */
int callees_candidates(callee_index *ix, pass_tu *t, CXCursor call, CXCursor **out);

/* What a call may run, as far as the program's syntax tells (Note
 * [library functions through pointers] in callees.c). */
typedef enum callee_reach {
  CALLEE_REACH_USER = 0,    /* only host functions of the program (or nothing: a null
                               pointer), or not a call through a pointer at all */
  CALLEE_REACH_LIBRARY = 1, /* exactly one function with no body in the program: *lib */
  CALLEE_REACH_UNKNOWN = 2, /* a value the syntax does not name may be there (dlsym, a call's
                               result, a pointer whose address is taken, one nothing is stored
                               to), several library functions, library and user functions
                               both, or device code beside others */
  CALLEE_REACH_DEVICE = 3   /* exactly one kernel (a launch through a pointer): *lib */
} callee_reach;

/* For a call through a function pointer (CALLEE_POINTER), what it may run;
 * *lib is the function for CALLEE_REACH_LIBRARY and _DEVICE, else null. */
callee_reach callees_reach(callee_index *ix, pass_tu *t, CXCursor call, CXCursor *lib);

/* A function designated by expression e (`fwd`, `&fwd`, `(fn_t)fwd`), or
 * a null cursor. */
CXCursor callees_function_ref(CXCursor e);

/* The override of virtual method m that an object of dynamic class cls
 * runs: the most derived one from cls up through its bases (a definition
 * in any input); a null cursor if there is none with a body. */
CXCursor callees_override(pass_tu *t, CXCursor cls, CXCursor m);

#endif
