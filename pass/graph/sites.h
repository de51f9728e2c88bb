/* sites.h - every op site and edit point of the program (sites.c), and
 * what one op site declares and passes (siteacc.c); graph.h has the data. */
#ifndef TIDAL_PASS_SITES_H
#define TIDAL_PASS_SITES_H

#include "analysis/libcalls.h"
#include "graph/callees.h"
#include "graph/graph.h"

/* ---- siteacc.c ---- */

/* Offset of loc in t's main file; expand: the expansion location
 * (statements), else the file location (for a macro argument, where it is
 * spelled).  1 if it is in that file. */
int site_offset(const pass_tu *t, CXSourceLocation loc, int expand, unsigned *off);
/* The exact text of an expression when its file locations are one piece of
 * t's main file (b and e, which may be NULL, receive the range), else NULL. */
char *site_expr_text(const pass_tu *t, CXCursor c, unsigned *b, unsigned *e);
/* An argument's text: site_expr_text, else its tokens. */
char *site_arg_text(const pass_tu *t, CXCursor a);
/* The text of expression a where it is written inside site's statement
 * (plainly or in a macro's argument), which code inserted just before the
 * statement may evaluate; NULL when it is not (a macro's body: its names
 * are the expansion's, perhaps declared inside the macro). */
char *site_stmt_text(const pass_tu *t, const graph_site *site, CXCursor a);
/* Appends a note at cursor `at` to f's notes.  0, or -1 (out of memory). */
int site_note(const pass_tu *t, graph_file *f, CXCursor at, const char *text);

enum {
  SITEACC_DEPENDENT = 1, /* a call in a template, unresolved (sites.c, Note [op calls in
                            templates]): accesses from the call's own texts only */
  SITEACC_ARGS_ARRAY = 2 /* cudaLaunchKernel: ki's arguments are in its `void *args[]` */
};

/* Adds the accesses of op call `call` (the statement's op call number
 * call_index) to site: from the graph ops ops[0..n_ops) at the statement
 * first, then from the call's own argument texts for every argument they
 * leave out (Note [accesses at a site]).  ki: the launched kernel, or NULL
 * for a library call; flags: SITEACC_*.  Notes go to f.  Returns 0, or -1
 * (out of memory). */
int siteacc_add(pass_tu *t, const graph *g, graph_site *site, int call_index, CXCursor call,
                const char *callee, const kernel_info *ki, const int *ops, int n_ops,
                unsigned flags, graph_file *f);
/* Fills site->args (and site->config for a <<<...>>> launch) from its first
 * op call, the call's range and shape against the statement stmt, and links
 * each argument to the accesses through it.  Returns 0, or -1 (out of
 * memory). */
int siteacc_args(pass_tu *t, graph_site *site, CXCursor stmt, CXCursor call);

/* Pointer values an argument carries (Note [relocatable allocations]):
 * 1 if a value of type ty is or holds a pointer (not to a function); 1 if
 * what ty (a pointer or array) points to does; 1 if ty is a pointer to an
 * opaque (incomplete) record or a function (a library handle, a callback:
 * never tidal memory).  site_addr_of: X when a is written `&X` (casts
 * aside), else a null cursor. */
int site_type_holds_ptrs(CXType ty);
int site_points_to_ptrs(CXType ty);
int site_opaque_ptr(CXType ty);
CXCursor site_addr_of(CXCursor a);
/* 1 if e has no call (but a POD copy), assignment or other side effect. */
int site_pure(CXCursor e);

/* ---- sitehomes.c ---- */

/* After siteacc_add (and, for the first call, siteacc_args): the pointer
 * values op call `call` (number call_index of the site's statement; ki its
 * kernel, NULL for a library call) passes that no access declares, as
 * site->homes, or site->unnamed when they cannot be named; for
 * cudaLaunchKernel site->args_array and array_wrapped (Note [pointer values
 * at a site], Note [argument arrays]).  Returns 0, or -1 (out of memory). */
int sitehomes_add(pass_tu *t, graph_site *site, int call_index, CXCursor call,
                  const kernel_info *ki, unsigned flags);

/* ---- escapes.c ---- */

/* Records in f->escapes what the call (neither an op nor an allocation;
 * li: its library-model row or NULL) may do with device addresses, when it
 * may (Note [escapes]); editable: tidal_home may be inserted before the
 * statement [sb, se).  Returns 0, or -1 (out of memory). */
int escape_call(const pass_tu *t, graph_file *f, CXCursor call, const char *callee,
                const libcall_info *li, int editable, int braces, unsigned sb,
                unsigned se);
/* The same for a call through a function pointer that is not an op site
 * (callees.c, Note [library functions through pointers]): target is the one
 * library function it runs (li: its model row or NULL), or a null cursor
 * when the pass cannot tell what it runs (then it always is an escape);
 * label names the call in the annotation and the reasons; first: the first
 * argument passed to the target (1 for a std::function's operator() call,
 * whose argument 0 is the object). */
int escape_pointer_call(const pass_tu *t, graph_file *f, CXCursor call, const char *label,
                        CXCursor target, const libcall_info *li, int first, int editable,
                        int braces, unsigned sb, unsigned se);

/* ---- callrefs.c ---- */

/* Sets graph_call.refs of every op's call path.  Returns 0, or -1 (out of
 * memory). */
int callrefs_count(graph *g);

/* ---- sites.c ---- */

/* Walks every host function of every file of g's program (registering the
 * project headers the inputs include first) and fills g->sites and
 * g->files.  Runs after the interpreter: each site lists the graph ops at
 * its statement.  *callees: the program's index of indirect calls
 * (callees.h), built here if NULL and still the caller's to free.  Returns
 * 0, or -1 (out of memory). */
int sites_build(graph *g, callee_index **callees);

#endif
