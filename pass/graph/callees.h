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
  CALLEE_POINTER = 1, /* through a function pointer (a field, a variable, a parameter) */
  CALLEE_VIRTUAL = 2  /* a virtual method through a pointer or reference */
} callee_kind;

/* The kind of call e, and the declaration it is keyed by: the function,
 * the pointer's field or variable declaration, or the virtual method. */
callee_kind callees_kind(CXCursor call, CXCursor *key);

/* The definitions an indirect call may run (malloc'd into *out, in the
 * program's order, each once); the count, 0 when none is known.  For
 * CALLEE_POINTER, every function the program assigns to the field or
 * variable (`l.forward = fwd_conv`, `fn_t f = relu;`, a struct
 * initialiser's element); for CALLEE_VIRTUAL, the method's own definition
 * (if it has one) and every override in the program. */
int callees_candidates(callee_index *ix, pass_tu *t, CXCursor call, CXCursor **out);

/* A function designated by expression e (`fwd`, `&fwd`, `(fn_t)fwd`), or
 * a null cursor. */
CXCursor callees_function_ref(CXCursor e);

/* The override of virtual method m that an object of dynamic class cls
 * runs: the most derived one from cls up through its bases (a definition
 * in any input); a null cursor if there is none with a body. */
CXCursor callees_override(pass_tu *t, CXCursor cls, CXCursor m);

#endif
