/* interp.h - the interpreter's state and the calls its handlers use
 * (interp*.c).  Internal to the graph stage: `tidal rewrite` and the
 * emitters use graph.h only.
 *
 * The builder is a small abstract interpreter of host code (interp*.c):
 * it walks main() in program order, entering every user function it calls
 * with the caller's argument values bound to the parameters, and keeps a
 * store from lvalue paths ("f0:model.acts.ln1") to abstract values.  Before
 * the training loop it runs the setup code (allocations, arena carving,
 * constant-trip loops unrolled); inside the loop body it keeps loops
 * structural.  It knows nothing of op sites, allocations or graph loops:
 * it hands those to the handlers build.c plugs in (handlers.h), so the
 * files that record them (opsites.c, regions.c, loop.c) call the
 * interpreter and never the other way round. */
#ifndef TIDAL_PASS_GRAPH_IMPL_H
#define TIDAL_PASS_GRAPH_IMPL_H

#include <clang-c/Index.h>
#include "base/cursor.h" /* every graph file reads children and strips casts */
#include "base/diag.h"
#include "graph/graph.h"
#include "graph/handlers.h"

/* Tunables. */
#define GB_MAX_CALL_DEPTH 48          /* deeper user-call chains are not followed */
#define GB_MAX_SETUP_UNROLL 4096      /* setup loops with more iterations are walked once */
#define GB_MAX_STEPS 2000000          /* statements interpreted before giving up (runaway guard) */
#define GB_MAX_DISPATCH_UNROLL 256    /* iterations of a dispatch loop walked one by one
                                         (interp_indirect.c, Note [dispatch loops]) */

typedef enum gval_kind {
  GV_NONE = 0, /* unknown / not tracked */
  GV_INT,      /* an integer: s */
  GV_DEVPTR,   /* a device pointer: alloc, region, base + delta bytes */
  GV_ADDR,     /* the address of a host lvalue: path */
  GV_DESC,     /* a library descriptor (cuDNN tensor, cublasLt layout): s = bytes */
  GV_ALIAS,    /* a struct variable copied from another: path names the original */
  GV_FUNC      /* a function (a pointer to it), or at KEY.@dyn an object's dynamic class:
                  alloc indexes gb.cursors (interp_indirect.c, Note [indirect calls]) */
} gval_kind;

/* The elements of an array read at an index that is not constant
 * (elements.c, Note [element families]): element k is allocation alloc[k]
 * at byte offset off[k] in it, inside region region[k] (-1 if none), and
 * is written name[k] ("bufs.blocks[3].a.data").  Builder-owned. */
typedef struct gb_family {
  int n;
  int *alloc;
  sym **off;
  int *region;
  const char **name;
} gb_family;

typedef struct gval {
  gval_kind k;
  sym *s;            /* GV_INT value; GV_DESC bytes */
  int alloc;         /* GV_DEVPTR: allocation, -1 if of unknown origin */
  int region;        /* GV_DEVPTR: carved region it was derived from, -1 if none */
  sym *base;         /* GV_DEVPTR: offset of the region (or 0) in the allocation */
  sym *delta;        /* GV_DEVPTR: bytes added since (offset = base + delta) */
  const char *path;  /* GV_ADDR: store key of the pointee */
  const char *text;  /* loop-context C text (gb_str memory), NULL if none */
  int text_ok;       /* text is valid in the training loop body */
  int dense;         /* GV_DESC: descriptor without gaps */
  sym *batch;        /* GV_DESC: a 4-d tensor setter's n (its batch), NULL otherwise
                        (opsites.c, Note [batch split ops]) */
  int ind;           /* an induction variable's value: never bound as a constant */
  int prec;          /* precedence of text: 0 atom, 1 multiplicative, 2 additive, 3 other */
  int carried;       /* changed by earlier iterations of an enclosing loop: its entry value
                        is not its value (interp_loop.c, Note [loop-carried values]) */
  int unmanaged;     /* points into memory tidal does not manage (cudaMallocManaged,
                        pinned host): accesses through it are never declared */
  const gb_family *family; /* GV_DEVPTR read from an array (of pointers, or of structs
                              holding them) at an index that is not constant (`act[l + 1]`,
                              `model.h[l].w`): its elements (elements.c); else NULL */
  sym *index;        /* with family: the index; GV_ADDR and GV_ALIAS whose path holds
                        one "[?]": the index that stands for (NULL if not known) */
  int maybe;         /* set on some paths only (an arm of an if whose condition is not
                        known): a descriptor attribute that may not be in effect
                        (interp_branch.c, Note [integers set in an arm]) */
  const struct gval *alt; /* GV_DEVPTR chosen at run time (`c ? x : y`, c unknown): the
                             other pointers it may be, a builder-owned chain (a NULL among
                             them a GV_INT 0); NULL: this one only (interp_select.c,
                             Note [either pointer]) */
} gval;

typedef struct gb_frame gb_frame;
struct gb_frame {
  int id;
  CXCursor fn;        /* the FunctionDecl */
  gb_frame *caller;
  int depth;          /* 0 for the outermost walked function */
  int is_loop_frame;  /* the frame running the training loop's function */
  int call_index;     /* index in gb.path of the call that entered this frame (-1 at top) */
  gval ret;           /* value of the last return statement */
  int keep_names;     /* variables read here stay names (main, the loop's function) */
  unsigned iter;      /* setup-loop iterations run in this frame (call identity, interp_call.c
                         Note [one op per call site]) */
};

/* A call already evaluated in this frame and loop iteration (Note [one op
 * per call site]). */
typedef struct gb_seen_call {
  CXFile file, exp_file;
  unsigned off, exp_off;
  int frame;
  unsigned iter;
} gb_seen_call;

#define GB_SEEN_CALLS 64

typedef struct gb_entry {
  char *key;
  gval v;
  unsigned seq;      /* when last written (carving order when offsets are symbolic) */
} gb_entry;

/* A loop currently being walked structurally (graph mode). */
typedef struct gb_loopctx {
  int id;
  gb_frame *frame;
} gb_loopctx;

typedef enum gb_mode { GB_SETUP = 0, GB_GRAPH = 1, GB_AFTER = 2 } gb_mode;

/* A store entry as it was before a write being logged (store.c). */
typedef struct gb_undo {
  const char *key; /* builder-owned */
  int had;         /* the key existed (else the write created it) */
  gval v;
  unsigned seq;
} gb_undo;

typedef struct gb {
  const gb_handlers *h;   /* op sites, allocations, graph loops (handlers.h) */
  const gb_handlers *quiet; /* the same, recording nothing: the dry walk of interp_loop.c
                               Note [state changed by calls]; NULL: no dry walk */
  const char **dry_keys;  /* keys written during the dry walk (outside once branches) */
  size_t n_dry_keys, cap_dry_keys;
  int dry;                /* walking the training loop's body dry */
  graph *g;
  pass_tu *t;
  sym_arena *a;
  gb_mode mode;
  int64_t steps;           /* expressions and statements interpreted so far */
  int64_t unroll_product;  /* iterations of the setup loops being unrolled, multiplied */
  int next_frame;
  gb_frame *loop_frame;   /* frame running the training loop (graph mode) */
  CXCursor train_loop;    /* the chosen loop statement */
  int reached_loop;
  /* Store. */
  gb_entry *tab;
  size_t tab_cap, tab_n;
  unsigned store_seq;
  gb_undo *undo;          /* writes to take back (gb_undo_begin/end) */
  size_t n_undo, cap_undo;
  int undo_depth;         /* > 0: gb_store logs what it overwrites */
  /* Strings owned by the builder (freed at the end). */
  char **strs;
  size_t n_strs, cap_strs;
  /* The call path from the training loop body to the current point. */
  graph_call path[GB_MAX_CALL_DEPTH];
  int n_path;
  CXCursor path_cursor[GB_MAX_CALL_DEPTH]; /* the call expressions */
  CXCursor path_fn[GB_MAX_CALL_DEPTH];     /* the definitions they ran (an indirect call's
                                              target, not the declaration it names) */
  /* Graph loops being walked, innermost last. */
  gb_loopctx loops[64];
  int n_loops;
  /* Functions currently on the interpreter's stack (recursion guard). */
  CXCursor stack[GB_MAX_CALL_DEPTH];
  int n_stack;
  CXCursor cur_stmt;      /* statement being walked in the innermost function */
  int have_stmt;
  /* Calls evaluated recently (a ring): a macro that evaluates its argument
   * twice must not give two ops or two allocations. */
  gb_seen_call seen[GB_SEEN_CALLS];
  int n_seen;
  /* Once and periodic branches (Note [once and periodic] in interp_branch.c). */
  int cur_branch;         /* periodic branch being walked, -1 if none */
  int in_once;            /* walking a once branch (as setup) */
  int once_sites;         /* op sites met in once branches */
  const char *train_var;  /* the training loop's counter (`step`), NULL if not recognised */
  int64_t train_lo;       /* its first value */
  const char *train_key;  /* a `while` training loop's counter: its store key (interp_loop.c,
                             Note [while counter]), NULL if none; train_lo its first value */
  /* The object of the method or constructor being entered (interp_call.c,
   * Note [C++ objects]); consumed by gb_run_function. */
  const char *this_path;
  /* The source text a `new T`/make_unique result is about to be stored to
   * (`m`), naming the heap object "(*m)" (interp_cxx.c Note [heap objects]). */
  const char *new_name;
  /* Loop variable names of graph loops (to normalise tensor keys). */
  char **loop_vars;
  int n_loop_vars;
  struct ct_cache *ct_cache; /* calltext.c: functions loaded once per build */
  /* The key gb_lvalue returned last and the index of the one "[?]" in it
   * (NULL if none or unknown): read_lvalue resolves elements with it. */
  const char *lv_key;
  sym *lv_index;
  /* Functions and classes GV_FUNC values name (interp_indirect.c). */
  CXCursor *cursors;
  int n_cursors, cap_cursors;
  struct callee_index *callees; /* callees.c: built on the first indirect call */
  struct written_set *written;  /* written.c: built on the first unwritten global read */
  int once_depth;         /* > 0: inside a setup loop walked once for all its iterations
                             (its trip count unknown or too large): a push_back there
                             does not give the vector a known size (interp_container.c) */
  int maybe;              /* > 0: walking one of several candidates of an indirect call
                             (Note [indirect calls]): ops recorded may not run */
} gb;

/* store.c: builder-owned memory and the store. */
char *gb_str(gb *b, const char *s);                 /* builder-owned copy */
char *gb_fmt(gb *b, const char *fmt, ...) TIDAL_PRINTF(2, 3);
void *gb_own(gb *b, void *p);                       /* builder takes a malloc'd block */
gval *gb_lookup(gb *b, const char *key);
void gb_store(gb *b, const char *key, gval v);
const char *gb_resolve_alias(gb *b, const char *key); /* GV_ALIAS entries on the whole key */
const char *gb_canon(gb *b, const char *key);       /* ... and on every prefix */
size_t gb_undo_begin(gb *b);                        /* from here, writes are logged */
void gb_undo_end(gb *b, size_t mark);               /* ... and taken back */
/* A copy of the store, put back after the dry walk (interp_loop.c Note [state
 * changed by calls]). */
typedef struct gb_store_copy {
  gb_entry *tab;
  size_t cap, n;
  unsigned seq;
} gb_store_copy;
int gb_store_save(gb *b, gb_store_copy *c);          /* 0, or -1 out of memory */
const gval *gb_store_copy_lookup(const gb_store_copy *c, const char *key);
void gb_store_restore(gb *b, gb_store_copy *c);      /* c is consumed */

/* elements.c: arrays read at an index that is not constant. */
int gb_element_read(gb *b, const char *key, sym *index, int is_ptr, gval *out);
int gb_element_select(gb *b, sym *var, sym *k, const gval *x, const gval *y, gval *out);

/* interp*.c: the interpreter (interp_impl.h lists the pieces). */
gval gb_eval(gb *b, gb_frame *f, CXCursor e);      /* rvalue, loop context */
sym *gb_eval_local(gb *b, CXCursor e);              /* integer, local context */
const char *gb_lvalue(gb *b, gb_frame *f, CXCursor e, const char **text, int *text_ok);
int gb_run_function(gb *b, CXCursor fn, gb_frame *caller, CXCursor call, const gval *args,
                    int nargs, gval *ret);
void gb_walk_stmt(gb *b, gb_frame *f, CXCursor s);
void gb_init_globals(gb *b); /* file-scope struct initialisers of every input */
gval gb_int(gb *b, sym *s, const char *text, int ok);
char *gb_text(gb *b, CXCursor c);                   /* source text, builder-owned */
int gb_plain_lvalue(CXCursor e); /* a variable or a field chain: its key needs no call evaluated */
graph_range gb_range(gb *b, CXCursor c, int stmt);  /* stmt: extend over a trailing ';' */
void gb_location(gb *b, CXCursor c, char **file, unsigned *line, unsigned *col);
CXCursor gb_callee_decl(CXCursor call);             /* referenced function, or null cursor */
char *gb_callee_name(CXCursor call);                /* malloc'd, NULL if none */
void gb_note(gb *b, CXCursor at, const char *fmt, ...) TIDAL_PRINTF(3, 4);

#endif
