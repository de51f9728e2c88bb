/* escapes.c - calls outside every op site that may use or keep a device
 * address (graph_escape in graph.h).  sites.c calls it for each call
 * expression that is neither an op nor an allocation.
 *
 * Note [escapes]
 * A relocatable allocation's bytes may be anywhere: its stable pointer is
 * a name that only TIDAL_AT turns into an address, inside an op.  A call
 * the pass does not instrument and cannot see into - a function with no
 * body in the program (a library routine, an extern declaration), one
 * whose body is in a system header (thrust), or a call through a function
 * pointer or std::function whose target the pass cannot pin to functions
 * of the program or to one library op (escape_pointer_call; callees.c,
 * Note [library functions through pointers]) - may dereference a pointer it
 * is passed, or keep it (cublasSetWorkspace, a cublasLt epilogue's bias
 * pointer set through cublasLtMatmulDescSetAttribute(..., &bias, ...), a
 * __device__ pointer set by cudaMemcpyToSymbol(sym, &p, ...)).  For each
 * such call this file lists the pointer expressions whose allocation must
 * stay at its stable address from then on (`homes`): the rewriter emits
 * tidal_home(p) for each just before the statement, which the runtime
 * makes exact (the allocation p points into, whichever it is at run time).
 * An argument is left out when it cannot be tidal memory: a null constant,
 * a string literal or a std::string's characters (`name.c_str()`), an array
 * variable holding no pointers (host storage), a scalar, a pointer to an opaque record (cublasHandle_t,
 * cudaStream_t: library handles) or to a function, the address of a
 * variable that holds no pointer.  What cannot be caught so - a pointer to
 * pointers (their values escape, and the pass cannot enumerate them), a
 * struct holding pointers passed by value or by address, an argument with
 * side effects (evaluating it once more for tidal_home would repeat them),
 * a call where nothing can be inserted before it (in a condition, a loop
 * header, a macro's body), CUDA graphs (a graph keeps the addresses its
 * nodes were made with) - goes to `why`, and then no allocation is
 * relocatable (relocatable.c).  Functions of the C and C++ libraries
 * (system headers, not CUDA's libraries) never see device memory, and the
 * library calls the model knows as allocations and descriptor setters and
 * queries take none (libcalls.h); both are skipped. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/libcalls.h"
#include "base/cursor.h"
#include "graph/sites.h"

/* 1 for a name of CUDA's libraries (runtime, driver, cuBLAS, cuDNN, NCCL,
 * cuRAND, ...): declared in a system header, yet they take device memory. */
static int cuda_library_name(const char *n) {
  return !strncmp(n, "cu", 2) || !strncmp(n, "nccl", 4);
}

/* 1 when c (a function declaration) is inside namespace thrust or cub. */
static int in_device_namespace(CXCursor c) {
  for (int d = 0; d < 16; d++) {
    c = clang_getCursorSemanticParent(c);
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_TranslationUnit || clang_Cursor_isNull(c) || clang_isInvalid(k)) return 0;
    if (k != CXCursor_Namespace) continue;
    CXString s = clang_getCursorSpelling(c);
    const char *n = clang_getCString(s);
    int hit = n && (!strcmp(n, "thrust") || !strcmp(n, "cub"));
    clang_disposeString(s);
    if (hit) return 1;
  }
  return 0;
}

static int is_graph_api(const char *n) {
  return !strncmp(n, "cudaGraph", 9) || !strncmp(n, "cudaStreamBeginCapture", 22) ||
         !strncmp(n, "cuGraph", 7) || !strncmp(n, "cuStreamBeginCapture", 20);
}

/* Arguments that name a __device__ symbol or receive a value (never tidal
 * memory passed in): the symbol of cudaMemcpyToSymbol / FromSymbol, the
 * destination of FromSymbol, cudaGetSymbolAddress's both. */
static int skip_arg(const char *n, int i) {
  if (!strncmp(n, "cudaMemcpyToSymbol", 18)) return i == 0;
  if (!strncmp(n, "cudaMemcpyFromSymbol", 20)) return i <= 1;
  if (!strncmp(n, "cudaGetSymbol", 13)) return 1;
  return 0;
}

static int null_or_literal(CXCursor a) {
  CXCursor e = cursor_strip_casts(a);
  enum CXCursorKind k = clang_getCursorKind(e);
  if (k == CXCursor_StringLiteral || k == CXCursor_GNUNullExpr || k == CXCursor_CXXNullPtrLiteralExpr)
    return 1;
  int64_t v;
  return k == CXCursor_IntegerLiteral && cursor_eval_int(e, &v) && v == 0;
}

typedef struct esc {
  const pass_tu *t;
  graph_escape e;
  int oom;
} esc;

static void add_home(esc *x, CXCursor a) {
  char *s = site_arg_text(x->t, a);
  char **v = s ? realloc(x->e.homes, (size_t)(x->e.n_homes + 1) * sizeof *v) : NULL;
  if (!v) {
    free(s);
    x->oom = 1;
    return;
  }
  x->e.homes = v;
  v[x->e.n_homes++] = s;
}

static void set_why(esc *x, const char *what, CXCursor a) {
  if (x->e.why) return; /* the first reason is enough */
  char *s = site_arg_text(x->t, a);
  size_t n = strlen(what) + (s ? strlen(s) : 1) + strlen(x->e.callee) + 64;
  x->e.why = malloc(n);
  if (x->e.why) snprintf(x->e.why, n, "%s passes '%s', %s", x->e.callee, s ? s : "?", what);
  else x->oom = 1;
  free(s);
}

/* 1 when a is a call of a member of std::basic_string or
 * std::basic_string_view (`name.c_str()`, `s.data()`): a string's own
 * characters, in host memory, never tidal memory.  Only strings: a smart
 * pointer's get() (a system header too) may well hold a device pointer. */
static int string_characters(CXCursor a) {
  CXCursor e = cursor_strip_casts(a);
  if (clang_getCursorKind(e) != CXCursor_CallExpr) return 0;
  CXCursor fn = clang_getCursorReferenced(e);
  if (clang_getCursorKind(fn) != CXCursor_CXXMethod) return 0;
  CXCursor cls = clang_getCursorSemanticParent(fn);
  if (clang_getCursorKind(cls) == CXCursor_ClassTemplate ||
      clang_getCursorKind(cls) == CXCursor_ClassDecl ||
      clang_getCursorKind(cls) == CXCursor_StructDecl) {
    CXString sp = clang_getCursorSpelling(cls);
    const char *n = clang_getCString(sp);
    int hit = n && (!strcmp(n, "basic_string") || !strcmp(n, "basic_string_view"));
    clang_disposeString(sp);
    return hit && clang_Location_isInSystemHeader(clang_getCursorLocation(fn));
  }
  return 0;
}

/* 1 when a names an array variable whose elements hold no pointers (a
 * local `perf[16]` of result structs, a global table): its storage is the
 * host's, never tidal memory, and nothing in it can point there. */
static int host_array(CXCursor a) {
  CXCursor e = cursor_strip_casts(a);
  if (clang_getCursorKind(e) != CXCursor_DeclRefExpr) return 0;
  CXCursor v = clang_getCursorReferenced(e);
  if (clang_getCursorKind(v) != CXCursor_VarDecl) return 0;
  CXType ty = clang_getCanonicalType(clang_getCursorType(v));
  if (ty.kind != CXType_ConstantArray && ty.kind != CXType_IncompleteArray) return 0;
  CXType el = clang_getCanonicalType(clang_getArrayElementType(ty));
  return el.kind != CXType_Pointer && !site_type_holds_ptrs(el);
}

/* One argument a of the call (Note [escapes]). */
static void one_arg(esc *x, CXCursor a) {
  if (null_or_literal(a) || string_characters(a) || host_array(a)) return;
  CXType ty = clang_getCanonicalType(clang_getCursorType(a));
  if (ty.kind == CXType_Record || ty.kind == CXType_ConstantArray) {
    if (site_type_holds_ptrs(ty)) set_why(x, "a value holding pointers the pass cannot follow", a);
    return;
  }
  if (ty.kind != CXType_Pointer || site_opaque_ptr(ty)) return;
  CXCursor v = site_addr_of(a);
  if (!clang_Cursor_isNull(v)) { /* `&X`: X's contents reach the callee */
    CXType xt = clang_getCanonicalType(clang_getCursorType(v));
    if (xt.kind == CXType_Pointer) {
      if (site_opaque_ptr(xt)) return; /* a handle's address: it receives one */
      if (site_points_to_ptrs(xt))
        set_why(x, "the address of pointers to pointers the pass cannot follow", a);
      else if (site_pure(v))
        add_home(x, v);
      else
        set_why(x, "a pointer with side effects (tidal_home would evaluate it again)", a);
    } else if (site_type_holds_ptrs(xt)) {
      set_why(x, "the address of a value holding pointers the pass cannot follow", a);
    }
    return;
  }
  if (site_points_to_ptrs(clang_getCursorType(cursor_strip(a))))
    set_why(x, "pointers to pointers the pass cannot follow", a);
  else if (site_pure(a))
    add_home(x, a);
  else
    set_why(x, "a pointer with side effects (tidal_home would evaluate it again)", a);
}

/* 1 when the library model says a call of li takes no device memory to
 * keep or use: allocations, frees, descriptor setters and queries. */
static int modelled_harmless(const libcall_info *li) {
  return li && (li->flags & (LIBCALL_ALLOC | LIBCALL_FREE | LIBCALL_DESCRIPTOR_SETTER |
                             LIBCALL_DESCRIPTOR_QUERY));
}

/* 1 when fn may see device memory: not a function of the C or C++
 * libraries (a system header, not CUDA's libraries, thrust or cub). */
static int may_see_device(CXCursor fn, const char *name) {
  return !clang_Location_isInSystemHeader(clang_getCursorLocation(fn)) ||
         cuda_library_name(name) || in_device_namespace(fn);
}

static int record(const pass_tu *t, graph_file *f, CXCursor call, const char *callee,
                  const char *label, int first, int editable, int braces, unsigned sb,
                  unsigned se);

int escape_call(const pass_tu *t, graph_file *f, CXCursor call, const char *callee,
                const libcall_info *li, int editable, int braces, unsigned sb,
                unsigned se) {
  if (modelled_harmless(li)) return 0;
  CXCursor fn = clang_getCursorReferenced(call);
  enum CXCursorKind fk = clang_getCursorKind(fn);
  if (fk != CXCursor_FunctionDecl && fk != CXCursor_CXXMethod && fk != CXCursor_FunctionTemplate)
    return 0; /* a constructor; calls through pointers: escape_pointer_call */
  CXCursor def = clang_getCursorDefinition(fn);
  if (!clang_Cursor_isNull(def) && !clang_Location_isInSystemHeader(clang_getCursorLocation(def)))
    return 0; /* a function of the program: its op sites are instrumented */
  if (!may_see_device(fn, callee)) return 0;
  return record(t, f, call, callee, callee, 0, editable, braces, sb, se);
}

int escape_pointer_call(const pass_tu *t, graph_file *f, CXCursor call, const char *label,
                        CXCursor target, const libcall_info *li, int first, int editable,
                        int braces, unsigned sb, unsigned se) {
  char *name = NULL;
  if (!clang_Cursor_isNull(target)) {
    name = string_and_dispose(clang_getCursorSpelling(target));
    if (!name) return -1;
    if (modelled_harmless(li) || !may_see_device(target, name)) {
      free(name);
      return 0;
    }
  }
  int rc = record(t, f, call, name ? name : label, label, first, editable, braces, sb, se);
  free(name);
  return rc;
}

/* Records the call's escape (callee: the function's name, for the
 * arguments some calls take that are never tidal memory; label: the
 * annotation's name for the call; first: its first argument passed, 1 for
 * an operator call's object). */
static int record(const pass_tu *t, graph_file *f, CXCursor call, const char *callee,
                  const char *label, int first, int editable, int braces, unsigned sb,
                  unsigned se) {
  esc x = {t, {0}, 0};
  x.e.callee = strdup(label);
  if (!x.e.callee) return -1;
  clang_getExpansionLocation(clang_getCursorLocation(call), NULL, &x.e.line, &x.e.col, NULL);
  if (is_graph_api(callee)) {
    x.e.why = strdup("the program builds or captures CUDA graphs, which keep the addresses "
                     "their nodes were made with");
    if (!x.e.why) x.oom = 1;
  }
  int n = clang_Cursor_getNumArguments(call);
  for (int i = first; i < n && !x.oom; i++)
    if (!skip_arg(callee, i)) one_arg(&x, clang_Cursor_getArgument(call, (unsigned)i));
  if (!x.oom && x.e.n_homes > 0 && !editable && !x.e.why) {
    size_t m = strlen(label) + 128;
    x.e.why = malloc(m);
    if (x.e.why)
      snprintf(x.e.why, m, "%s is passed a device pointer where tidal_home cannot be "
                           "inserted before it (a condition, a loop header or a macro)", label);
    else
      x.oom = 1;
  }
  x.e.editable = editable;
  x.e.braces = braces;
  x.e.stmt_begin = editable ? sb : 0;
  x.e.stmt_end = editable ? se : 0;
  int keep = !x.oom && (x.e.n_homes > 0 || x.e.why);
  /* a check macro evaluating its argument twice repeats the call: once */
  for (int i = 0; keep && i < f->n_escapes; i++)
    if (f->escapes[i].line == x.e.line && f->escapes[i].col == x.e.col) keep = 0;
  graph_escape *v = keep ? realloc(f->escapes, (size_t)(f->n_escapes + 1) * sizeof *v) : NULL;
  if (v) {
    f->escapes = v;
    v[f->n_escapes++] = x.e;
    return 0;
  }
  for (int i = 0; i < x.e.n_homes; i++) free(x.e.homes[i]);
  free(x.e.homes);
  free(x.e.callee);
  free(x.e.why);
  return keep || x.oom ? -1 : 0;
}
