/* graph.h - one training iteration as a dataflow graph: the data model of
 * `tidal graph`, consumed by the emitters, unroll.c (-> trace.h) and
 * `tidal rewrite`.
 *
 * The graph keeps the program's loop structure (a layer loop stays one loop
 * with a symbolic trip count) and symbolic sizes.  Two naming contexts
 * appear throughout:
 *   - "loop" context: expressions over names valid in the training loop's
 *     scope (or file-scope names), with every wrapper's parameters replaced
 *     by the caller's argument expressions, e.g. "acts.fch + l*B*T*4*C".
 *     Induction variables of loops inside called functions also appear here
 *     under their own names; graph_access.loop_text_valid says whether the
 *     C text may be evaluated in the training loop body.
 *   - "local" context: as written at the op site itself (the kernel launch
 *     or library call inside its wrapper), valid just before that statement.
 *
 * Everything is owned by the graph (strings malloc'd, syms in the pass_tu's
 * arena); graph_free releases it.  All main-file byte offsets are into
 * pass_tu.main_source; a range is only meaningful when its `editable` flag
 * is set (in the main file and not produced by a macro expansion).
 *
 * Entry points: graph_build (analysis), bind_* (bind.c), graph_unroll
 * (unroll.c); the emitters are the command line's (cli/emit.h). */
#ifndef TIDAL_PASS_GRAPH_H
#define TIDAL_PASS_GRAPH_H

#include <stdint.h>
#include <stdio.h>
#include "frontend/frontend.h"
#include "analysis/kernels.h"
#include "base/symexpr.h"
#include "graph/trace.h"

#define GRAPH_FORMAT_VERSION 1 /* of the JSON output, docs/graph-format.md */

/* A main-file source range; begin/end are byte offsets, end exclusive. */
typedef struct graph_range {
  unsigned begin;
  unsigned end;
  int editable; /* 1: in one project file (r.file) and not inside a macro expansion */
  int file;     /* the program file (pass_tu.file_index) begin is in; -1 if none (a
                   system header); 0 is the input defining main() */
} graph_range;

typedef enum graph_op_kind {
  GRAPH_OP_LAUNCH = 0,    /* kernel<<<...>>>(...) or cudaLaunchKernel */
  GRAPH_OP_LIBRARY = 1,   /* cuBLAS / cublasLt / cuDNN call */
  GRAPH_OP_MEMCPY = 2,    /* cudaMemcpy[Async] */
  GRAPH_OP_MEMSET = 3,    /* cudaMemset[Async] */
  GRAPH_OP_COLLECTIVE = 4 /* NCCL */
} graph_op_kind;

const char *graph_op_kind_name(graph_op_kind k); /* "launch" "library" ... */

/* One user-function call on the way from the training loop body to an op:
 * calls[0] is the call written in the training loop body (or in a loop
 * nested in it), calls[n-1] the call of the function containing the op. */
typedef struct graph_call {
  char *function;    /* the called function's name ("matmul_forward") */
  char *file;        /* where the call is written */
  unsigned line, col;
  graph_range stmt;  /* the whole call statement (for inserting before/after) */
  int refs;          /* references to `function` by name in the program (calls, address-of;
                        callrefs.c): 1 when this is its only call */
} graph_call;

/* A loop inside one iteration of the training loop (layer loops and the
 * like), in the training loop's function or in a function it calls. */
typedef struct graph_loop {
  int id;            /* index into graph.loops */
  int parent;        /* enclosing graph loop, -1 if directly in the training loop body */
  int call_depth;    /* calls between the training loop body and this loop's function
                        (0: the loop is written in the training loop's own function) */
  char *var;         /* induction variable ("l"), NULL if none was recognised */
  sym *lo;           /* first value of var (loop context) */
  sym *hi;           /* exclusive bound: var runs lo, lo+step, ... while var < hi
                        (step > 0) or var > hi (step < 0) */
  int step;          /* +1, -1, or another constant stride; the direction (+1, -1) when
                        the stride is a symbol (`off += B`) */
  sym *stride;       /* the stride's magnitude, constant or symbolic (loop context);
                        SYM_UNKNOWN if not recognised */
  sym *trip;         /* iterations (loop context); SYM_UNKNOWN if not recognised */
  char *file;
  unsigned line, col;
  graph_range stmt;  /* the for/while statement */
  graph_range body;  /* its body (the compound statement, braces included) */
  int iteration;     /* 1: one iteration of a loop the interpreter walked iteration by
                        iteration (interp_indirect.c, Note [dispatch loops]): lo..hi is that
                        one iteration; var (NULL for a range-for) is bound to lo */
} graph_loop;

typedef struct graph_access {
  int tensor;          /* index into graph.tensors; -1 if the pointer was unresolved */
  access_mode mode;
  sym *bytes;          /* byte extent from the pointer, loop context (SYM_UNKNOWN if unknown) */
  sym *bytes_local;    /* the same, local context */
  sym *offset;         /* byte offset of the pointer in its allocation, loop context
                          (SYM_UNKNOWN when unresolved) */
  sym *index;          /* tensor with a family: the element this access reads (its own:
                          two loops may name the same elements by different variables) */
  int exact;           /* 1 if exactly `bytes` bytes are touched (every one, for writes) */
  char *ptr_text;      /* pointer expression as C text, loop context */
  int loop_text_valid; /* 1 if ptr_text and sym_to_c(bytes) are valid in the training loop
                          body (0 when they use a called function's locals) */
  char *ptr_local;     /* pointer argument as written at the op site */
  int arg;             /* argument index at the op site */
  char *param;         /* kernel parameter name or library role ("A", "dst") */
  int unmanaged;       /* 1: the pointer is into memory tidal does not manage
                          (cudaMallocManaged, pinned host, or NULL): never declared to the
                          runtime, not unresolved */
  int split_elem_bytes;/* split ops (graph_op.split): bytes of one element of this argument */
  int null_arg;        /* 1: a null pointer on this call path (an optional argument left
                          out, `fwd(out, in, NULL, n)`): no access at all (unmanaged is set) */
  char *why_local;     /* why bytes_local is unknown where bytes is not (NULL: the model's
                          reason): its names are not in scope at the op (calltext.c,
                          Note [loop-context sizes at the op]) */
  /* The same pointer and extent at each call level k = 0..op.n_calls (arrays
   * of n_calls + 1; calltext.c): level k is the statement op.calls[k].stmt
   * (the op's own stmt at k == n_calls), in the function that statement is
   * written in.  Level n_calls is the op-local text, each level above has
   * the callee's parameters replaced by the call's arguments; level 0
   * falls back to the loop-context text (ptr_text) when that is valid. */
  char **ptr_text_at;      /* pointer as C text at level k, NULL if not expressible */
  char **bytes_text_at;    /* byte extent as C text, NULL if unknown or not expressible */
  int *text_valid_at;      /* 1: both texts use only names in scope at that level's function:
                              its parameters, its locals (see text_span_at), file-scope names */
  graph_range *text_span_at; /* main-file offsets in that function where the texts are valid
                              (after the last local they use is declared, inside its scope);
                              a statement starting in [begin, end) may use them */
} graph_access;

typedef struct graph_op {
  int id;              /* index into graph.ops; program order within one iteration */
  graph_op_kind kind;
  char *callee;        /* kernel or library function ("cublasSgemm") */
  char *label;         /* "matmul_forward -> cublasSgemm" (call path functions, callee) */
  char *file;          /* where the op statement is written */
  unsigned line, col;
  graph_range stmt;    /* the op's full statement */
  int n_calls;         /* call path from the training loop body (0: the op is written there) */
  graph_call *calls;
  int loop;            /* innermost graph loop around the op (any call depth), -1 if none */
  int top_loop;        /* innermost graph loop around calls[0] (or the op when n_calls == 0)
                          in the training loop's own function, -1 if none */
  /* Launches only (NULL / 0 otherwise): configuration and arguments as
   * written, so a recompute closure can capture them by value. */
  char *grid, *block, *shmem, *stream; /* shmem/stream NULL when omitted */
  int n_args;          /* arguments of the call (launches and library calls) */
  char **arg_text;     /* each argument as written */
  char **arg_type;     /* each argument's C type ("float *", "int") */
  unsigned flags;      /* enum kernel_flags; library calls: KERNEL_NONDETERMINISTIC */
  sym *flops;          /* estimated floating-point work (loop context), SYM_UNKNOWN if unknown */
  int phase;           /* enum trace_phase, see liveness.c Note [phases] */
  int maybe;           /* 1: below an indirect call whose callee is one of several
                          candidates (callees.c, Note [indirect calls]): it may not run, so
                          its writes never overwrite anything (unroll.c) */
  int branch;          /* the periodic branch (graph.branches) the op runs under, -1 if
                          it runs every iteration (interp_branch.c, Note [once and periodic]) */
  /* Launches of a kernel_info.split kernel whose pointer arguments are all
   * resolved accesses: the op may run in pieces (kernels.h).  split_count_arg
   * is the argument that bounds the elements; each access's
   * split_elem_bytes its element size. */
  int split;
  int split_count_arg;
  int split_grid_stride;
  sym *split_count;    /* split ops: that argument's value, loop context (SYM_UNKNOWN if
                          not known there; unroll.c then leaves trace_op.split_count 0) */
  /* A cuDNN call of a per-sample routine (LIBCALL_BATCH_SPLIT) whose every
   * tensor is a resolved, exact access: it may run over pieces of its batch
   * (include/tidal/cudnn.h, Note [batch split]); split_count is then the
   * batch size (n of the first tensor's descriptor) and each access's
   * element is one sample, its bytes / n (unroll.c).  split stays 0. */
  int split_batch;
  int n_acc;
  graph_access *acc;
} graph_op;

/* A branch inside the iteration that does not run every iteration
 * (interp_branch.c, Note [once and periodic]). */
typedef enum graph_branch_kind {
  GRAPH_BRANCH_ONCE = 0,    /* lazy initialisation (`if (p == NULL) { cudaMalloc(&p..) }`,
                               `if (first) { ...; first = 0; }`, `if (step == 0)`):
                               interpreted as setup, its op sites are not ops of the iteration */
  GRAPH_BRANCH_PERIODIC = 1 /* `if (step % N == 0)`: its ops are graph ops in phase periodic */
} graph_branch_kind;

const char *graph_branch_kind_name(graph_branch_kind k); /* "once" "periodic" */

/* Calls that return once everything on the device has run, tidal's copies
 * included (graph.loop_device_syncs): 1 for those the rewrite makes
 * tidal_device_synchronize (cudaDeviceSynchronize, cudaThreadSynchronize),
 * 2 for one it keeps (cuCtxSynchronize), 0 for any other name (Note [the
 * program's sync], rewrite.c). */
int graph_device_sync_call(const char *name);

/* A periodic branch's condition as a postfix program the unroller
 * evaluates per step (interp_schedule.c, Note [periodic schedules]). */
typedef enum graph_cond_op {
  GCOND_VALUE = 0, /* leaf: an integer (value; may use the training loop's counter and
                      names --bind may fix) */
  GCOND_STEP,      /* leaf: a while training loop's counter (Note [while counter]):
                      graph_branch.while_lo at the first step, one more each step */
  GCOND_OPAQUE,    /* leaf: an integer read at run time (text): taken as larger than
                      every replayed step */
  GCOND_ADD, GCOND_SUB, GCOND_MUL, GCOND_DIV, GCOND_REM,
  GCOND_LT, GCOND_GT, GCOND_LE, GCOND_GE, GCOND_EQ, GCOND_NE,
  GCOND_LAND, GCOND_LOR,
  GCOND_NOT, GCOND_NEG /* unary */
} graph_cond_op;

typedef struct graph_cond {
  graph_cond_op op;
  sym *value;          /* GCOND_VALUE */
  char *text;          /* GCOND_OPAQUE: the expression as written */
} graph_cond;

typedef struct graph_branch {
  int id;              /* index into graph.branches */
  graph_branch_kind kind;
  char *cond;          /* the condition as written */
  char *function;      /* the function the if statement is written in */
  char *file;
  unsigned line, col;
  graph_range stmt;    /* the if statement */
  int n_allocs;        /* once: allocations made inside (persistent, as before the loop) */
  int n_sites;         /* once: op sites met inside (run as setup, not ops of the iteration) */
  /* periodic: the condition per step (Note [periodic schedules]); n_sched 0:
   * not modelled (sched_why says why), the branch runs every iteration */
  int n_sched;
  graph_cond *sched;
  char *sched_why;
  int64_t while_lo;    /* GCOND_STEP: the counter's first value */
  int parent;          /* the periodic branch this one is inside, -1 if none */
} graph_branch;

/* A device allocation (cudaMalloc / cudaMallocAsync). */
typedef struct graph_alloc {
  int id;
  char *name;          /* the lvalue the pointer was stored to ("acts_memory", "model.params_memory") */
  sym *bytes;          /* requested size */
  char *file;
  unsigned line, col;
  graph_range stmt;    /* the allocation call statement */
  graph_range call;    /* the call expression alone (the rewriter replaces it) */
  int in_loop;         /* allocated inside the training loop */
  int freed;           /* a matching cudaFree was seen */
  int local_name;      /* name is a local of a helper (`t.data` in a function returning the
                          struct it fills): tensors take the name they are reached by */
  /* relocatable.c (Note [relocatable allocations]): 1 when every use of its addresses
   * the pass sees is an argument of an instrumented op passed through TIDAL_AT, or an
   * escape neutralised by a run-time tidal_home; the rewriter then allocates it with
   * TIDAL_GROUP_RELOCATABLE.  Else home_why says why it stays at home (malloc'd). */
  int relocatable;
  char *home_why;
} graph_alloc;

/* A cudaFree / cudaFreeAsync call seen anywhere in the analysed code. */
typedef struct graph_freecall {
  int alloc;           /* allocation freed, -1 if unresolved */
  char *file;
  unsigned line, col;
  graph_range stmt;
  graph_range call;
} graph_freecall;

/* A named region of an allocation: one carved slice of an arena (or the
 * whole allocation).  Tensors point into regions. */
typedef struct graph_region {
  char *name;          /* "acts.ln1" */
  int alloc;
  sym *offset;         /* bytes from the allocation start */
  sym *bytes;          /* up to the next carved pointer (or the allocation end) */
} graph_region;

/* A tensor: what ops access, identified by (allocation, offset).  A
 * per-layer slice is one tensor whose offset uses the loop's variable. */
typedef struct graph_tensor {
  int id;
  char *name;          /* region name, "[l]" appended for per-layer slices; or the pointer text */
  int alloc;           /* -1: unresolved pointer (the tensor stands for the expression) */
  int region;          /* index into graph.regions, -1 if none */
  sym *offset;         /* bytes from the allocation start (loop context) */
  sym *bytes;          /* the largest extent any access uses */
  int n_aliases;       /* other names this tensor was accessed through ("dl_btc") */
  char **aliases;
  /* An element of an array read at a loop index (`act[l + 1]`,
   * `model.h[l].w`; graph/elements.c): element k is allocation family[k]
   * at family_off[k] (offset is then the bytes past the element's start),
   * inside region family_region[k] (-1 if none), named family_name[k];
   * alloc is family[0].  unroll.c picks the element per iteration.
   * n_family 0 otherwise. */
  int n_family;
  int *family;
  sym **family_off;
  int *family_region;
  char **family_name;
  sym *family_index;
} graph_tensor;

/* An eviction candidate: idle long enough between two uses to be worth
 * moving out of device memory. */
typedef struct graph_candidate {
  int tensor;          /* graph tensor */
  char *instance;      /* concrete slice when computed on the unrolled trace ("acts.ln1[l=2]"),
                          else NULL */
  sym *bytes;
  int64_t bytes_value; /* -1 if unbound */
  int last_use_op;     /* graph op of the last use before the gap */
  int next_use_op;     /* graph op of the next use after it */
  int64_t idle_ops;    /* ops executed in between (unrolled when bound, else static count) */
  int dead;            /* 1: the next use overwrites every byte (drop, do not copy) */
} graph_candidate;

/* Something the analysis could not resolve (reported, never fatal). */
typedef struct graph_note {
  char *file;
  unsigned line, col;
  char *message;
} graph_note;

/* ---- every op site and edit point of the program (sites.c) ----
 *
 * The ops above are those one iteration of the training loop runs, one per
 * call path.  `tidal rewrite` instruments more: every op statement in every
 * host function of the program's files (setup, evaluation and helper code
 * the loop never reaches included: a fresh tidal allocation is only mapped
 * once an op declares a write to it), and replaces every cudaMalloc and
 * cudaFree.  sites.c walks each host function once, statement by
 * statement, and records those places; siteacc.c gives each op site its
 * declared accesses and its arguments.  The rewriter reads nothing else of
 * the source (docs/design.md, "One source of op sites").  All offsets are
 * expansion offsets into the site's own program file (pass_tu.main_source
 * of prog->files[file]). */

/* An access declared at an op site (TIDAL_OP_BEGIN's tidal_access list):
 * local context, valid just before the site's statement. */
typedef struct graph_site_access {
  char *ptr;         /* pointer expression as written at the op */
  char *bytes;       /* byte extent as C, NULL when unknown */
  access_mode mode;  /* read, write or readwrite (never none) */
  int exact;         /* 1: a write proven to overwrite every byte of `bytes` on every call path */
  char *why;         /* why the extent is unknown (NULL when known) */
  int call;          /* the statement's op call it belongs to: 0 the first, whose arguments
                        are graph_site.args (a statement rarely holds more than one) */
  int arg;           /* the argument of that call the pointer is (a struct argument holding
                        device pointers has one access per pointer field); -1 when it
                        reaches the op otherwise (cudaLaunchKernel's argument array) */
  int array_param;   /* cudaLaunchKernel: the kernel's pointer parameter whose element of
                        the argument array holds ptr (`*(T **)(args)[i]`), else -1 */
} graph_site_access;

/* One argument of an op site's call, or one <<<...>>> configuration
 * argument of a launch (graph_site.config), as written. */
typedef struct graph_site_arg {
  unsigned begin, end; /* the expression as written (implicit conversions removed), valid
                          when in_file */
  int in_file;         /* 1: begin/end is one range of the site's file (not split across a
                          macro expansion) */
  int whole;           /* 1 (with in_file): a '(', ',' or '<' before it and a ',', ')' or
                          '>' after it: one whole argument, not a piece of a macro's text */
  unsigned spell_begin, spell_end; /* where its characters are written (file locations: inside
                          a macro's argument too, `CHECK(f(p))`'s p), valid when spelled */
  int spelled;         /* 1: spell_begin/spell_end is one range of the site's file */
  char *text;          /* as written at the call: the bytes of its expansion range (a macro
                          argument's macro included), else its tokens */
  char *type;          /* canonical C type: of the argument as passed (after implicit
                          conversions); configuration arguments: of the expression as written */
  int pointer;         /* `type` is a pointer */
  int integer;         /* `type` is an integer or enum type */
  int pointee_bytes;   /* sizeof the element the written expression points to (a pointer or
                          array), -1 if none or unknown */
  int null_const;      /* a pointer written as NULL, nullptr or 0: no access */
  int pure;            /* no call (but a POD copy), assignment or other side effect:
                          evaluating it twice is evaluating it once (of the argument as
                          passed: a grid written as an integer goes through dim3's
                          constructor, not pure) */
  int holds_ptrs;      /* the written expression points to (or is an array of) pointers, or
                          of records holding pointers: the pointer values it reaches escape
                          (Note [relocatable allocations], relocatable.c) */
  int wrappable;       /* TIDAL_AT( ) may be inserted around [wrap_begin, wrap_end): the whole
                          argument (in_file and whole), or where a macro argument spells it */
  unsigned wrap_begin, wrap_end;
  char *home_text;     /* holds_ptrs written `&X` (casts aside) with X a pure pointer: X's
                          text, whose tidal_home neutralises the escape; NULL otherwise */
  int n_acc;           /* the site's accesses through this argument (graph_site.acc indices; a
                          struct argument has one per pointer field) */
  int *acc;
} graph_site_arg;

typedef struct graph_site {
  int file;            /* the program file (pass_tu.file_index) */
  unsigned stmt_begin, stmt_end; /* the statement to wrap (end past its ';'); 0, 0 when skip */
  int braces;          /* 1: wrap in { } (0 for declarations, whose scope must not change) */
  int is_return;       /* the op is in a return statement: 1 not instrumented, 2 instrumented
                          (sites.c, Note [ops in return statements]) */
  unsigned ret_expr_begin; /* is_return 2: where the returned expression starts */
  unsigned line, col;  /* of the (first) op call */
  char *function;      /* the enclosing function */
  char *callee;        /* the first op call's callee (the kernel for a launch) */
  char *label;         /* "function -> callee" */
  graph_op_kind kind;  /* of the first op call */
  int kernel;          /* launches: index into graph.kernels, -1 if the kernel is not analysed */
  int n_calls;         /* op calls written in the statement (the first names the site) */
  int n_ops;           /* graph ops (one per call path) whose statement this is, in op order */
  int *ops;
  int n_acc;           /* the accesses the site declares (siteacc.c) */
  graph_site_access *acc;
  int n_args;          /* the first op call's arguments */
  graph_site_arg *args;
  int n_config;        /* <<<grid, block, shmem, stream>>> launches: the configuration
                          arguments (defaults included), 0 otherwise */
  graph_site_arg *config;
  unsigned call_begin, call_end; /* the first op call's expression, valid when call_in_file */
  int call_in_file;
  int call_spelled;    /* 1: the call is spelled where it expands (not in a macro's body) */
  int call_is_stmt;    /* 1: the statement is that call alone (`k<<<g, b>>>(...);`) */
  unsigned call_spell; /* where the first op call's first token is written (its callee's name
                          for a plain call), valid when call_spell_in_file; inside a macro's
                          argument too (`CHECK(f(p))`'s f) */
  int call_spell_in_file;
  char *skip;          /* not instrumented, and why (NULL: instrumented) */
  /* sitehomes.c (Note [argument arrays], Note [pointer values at a site]) */
  int args_array;      /* the first op call is cudaLaunchKernel: its kernel's arguments are
                          in the array it is passed (args[3]) */
  int array_wrapped;   /* the rewriter passes that call a copy of the array holding the
                          TIDAL_AT address of each pointer declared through it */
  char *array_text;    /* array_wrapped: the array argument as written (pure, no call) */
  int n_homes;         /* pointer values that reach the op through no declared access (a
                          struct's fields outside the loop, ...): tidal_home before the op */
  char **homes;
  char *unnamed;       /* NULL, or pointer values reach the op that neither TIDAL_AT nor
                          tidal_home can name: then no allocation is relocatable */
  unsigned fn_begin;   /* where the enclosing function's definition starts */
  int notes_before;    /* the file's notes (graph_file.notes) met before this statement was
                          done: the rewriter lists its own note on the site there */
} graph_site;

/* A cudaMalloc/cudaMallocAsync/cudaFree/cudaFreeAsync call the rewriter
 * replaces (one per call written, wherever it runs), or a
 * cudaDeviceSynchronize/cudaThreadSynchronize (Note [the program's sync]). */
typedef struct graph_memcall {
  unsigned begin, end; /* the call expression */
  char *callee;
  int n_args;
  char **args;         /* argument texts */
  unsigned line, col;
  int dependent;       /* a cudaFree in a template: its pointer may not be tidal's */
} graph_memcall;

typedef enum graph_span_kind {
  GRAPH_SPAN_RETURN = 0,
  GRAPH_SPAN_CONTINUE = 1,
  GRAPH_SPAN_BREAK = 2,
  GRAPH_SPAN_GOTO = 3
} graph_span_kind;

/* A statement (end past its ';'): a return of main, or a jump leaving an
 * iteration of the training loop. */
typedef struct graph_span {
  unsigned begin, end;
  graph_span_kind kind;
  unsigned line, col;
} graph_span;

/* A call outside every op site that may use or keep a device address
 * (sites.c, Note [escapes]): a function of no program file (a library,
 * an extern declaration) passed a pointer that may be device memory.  The
 * rewriter emits tidal_home(p) for each of `homes` just before the
 * statement; `why` (when not NULL) says what it cannot neutralise, and
 * then every allocation stays at home (relocatable.c). */
typedef struct graph_escape {
  unsigned stmt_begin, stmt_end; /* the statement (end past its ';'), valid when editable */
  int editable;        /* the homes can be inserted before the statement */
  int braces;          /* 1: wrap them and the statement in { } (it may be an unbraced body;
                          0 for a declaration, whose scope must not change) */
  unsigned line, col;  /* of the call */
  char *callee;
  int n_homes;
  char **homes;        /* pointer expressions as written, valid before the statement */
  char *why;           /* NULL, or what escapes that tidal_home cannot catch */
} graph_escape;

/* What one program file holds for the rewriter (graph.files[file]). */
typedef struct graph_file {
  int first_site, n_sites; /* its op sites: graph.sites[first_site .. first_site + n_sites) */
  int n_mems;
  graph_memcall *mems;
  int n_fns;
  graph_range *fns;        /* every host function body walked ('{' to one past '}'), in order */
  int have_main;           /* main() is defined here with an editable body */
  unsigned main_body_begin, main_body_end; /* '{' and one past '}' */
  int main_ends_in_return; /* main's last statement is a return */
  int n_main_returns;
  graph_span *main_returns;
  int have_loop;           /* the training loop's statement is in this file */
  int n_loop_exits;
  graph_span *loop_exits;  /* continue/break/return/goto leaving an iteration */
  int n_notes;
  graph_note *notes;       /* what the rewriter cannot instrument here (its header lists them) */
  int n_escapes;
  graph_escape *escapes;   /* calls outside op sites that may keep or use a device address */
} graph_file;

/* Names bound to integers: --bind, and compile-time constants found in the
 * source (file-scope static const, #define, enum constants, const locals). */
/* BIND_DEVICE: a property of the card tidal models (interp_device.c, Note
 * [device properties]), not a constant of the program. */
typedef enum bind_source {
  BIND_USER = 0, BIND_CONST = 1, BIND_MACRO = 2, BIND_ENUM = 3, BIND_DEVICE = 4
} bind_source;

typedef struct graph_binding {
  char *name;
  int64_t value;
  bind_source source;
  int looked_up;      /* the analysis asked for its value (a branch, a setup loop, a size):
                         set by bind_lookup through a const table, a record, not state */
} graph_binding;

/* A constant integer table (`static const int dims[] = {784, 256, 10};`):
 * a size written `dims[l + 1]` is a name that evaluates through it once
 * the index does (unroll.c). */
typedef struct graph_table {
  char *name;
  int n;
  int64_t *values;
} graph_table;

typedef struct graph_bindings {
  int n, cap;
  graph_binding *items;
  int n_tables;
  graph_table *tables;
} graph_bindings;

typedef struct graph {
  pass_tu *tu;               /* not owned */
  kernel_table kernels;      /* owned: every __global__ analysed */
  /* The training loop. */
  char *loop_file;
  unsigned loop_line, loop_col;
  char *loop_reason;         /* "pragma at train.cu:120", "heuristic: 37 op sites, ...", "--loop" */
  graph_range loop_stmt;     /* the for/while statement */
  graph_range loop_body;     /* its body */
  char *loop_function;       /* function containing it ("main") */
  /* The training loop's own counter, when its header is recognised
   * (`for (int b = 0; b < n; b++)`): an access whose offset uses it moves
   * with the step (unroll.c, Note [stepped accesses]).  NULL otherwise. */
  char *train_var;
  sym *train_lo;             /* its first value (loop context) */
  sym *train_hi;             /* exclusive bound, as graph_loop.hi */
  int train_step;            /* its constant stride */
  /* Calls that wait for the whole device (cudaDeviceSynchronize,
   * cudaThreadSynchronize, cuCtxSynchronize) met in one iteration of the
   * training loop, in its body or a function it calls, outside periodic
   * branches: tidal replay's host waits for every op and copy at each
   * iteration's end when there is one (Note [device sync], backend_sim.c). */
  int loop_device_syncs;
  int loop_device_syncs_kept; /* of them, calls the rewrite keeps as written (cuCtxSynchronize) */
  int n_ops;
  graph_op *ops;
  int n_loops;
  graph_loop *loops;
  int n_branches;
  graph_branch *branches;    /* once and periodic branches, in walk order */
  int n_allocs;
  graph_alloc *allocs;
  int n_frees;
  graph_freecall *frees;
  int n_regions;
  graph_region *regions;
  int n_tensors;
  graph_tensor *tensors;
  int n_candidates;
  graph_candidate *candidates;
  graph_bindings binds;      /* user binds first, then constants found */
  int n_notes;
  graph_note *notes;
  int n_sites;               /* every op site of the program, file by file (sites.c) */
  graph_site *sites;
  int n_files;               /* per program file: its sites and edit points (sites.c) */
  graph_file *files;
  int64_t unrolled_ops;      /* ops in one unrolled iteration, -1 if not fully bound */
  int64_t max_unrolled_ops;  /* unrolling stops with an error beyond this (graph_options) */
  int no_split;              /* graph_options.no_split: no op is a split op */
  /* relocatable.c: why no allocation is relocatable (an unneutralised escape of
   * a pointer the pass cannot trace), NULL when none; and how many are. */
  char *home_all_why;
  /* NULL, or why the program's cudaDeviceSynchronize calls stay as written
   * rather than TIDAL_CUDA_DEVICE_SYNCHRONIZE (Note [the program's sync],
   * rewrite.c): it creates streams that may not block on the legacy one. */
  char *sync_keep_why;
  int n_relocatable;
} graph;

typedef struct graph_options {
  const char *loop_file;     /* --loop FILE:LINE, or NULL */
  unsigned loop_line;
  int n_binds;               /* --bind NAME=VALUE */
  const char *const *bind_names;
  const int64_t *bind_values;
  int64_t max_unrolled_ops;  /* --max-ops; 0: GRAPH_MAX_UNROLLED_OPS */
  int no_split;              /* --no-split: every op runs whole (graph_op.split stays 0) */
} graph_options;

/* Unrolling one iteration past this many ops (and loop iterations) is an
 * error, not minutes and gigabytes: 25 nested 2-trip loops make 33 M ops. */
#define GRAPH_MAX_UNROLLED_OPS 2000000

/* Builds the graph of t.  Returns TIDAL_EXIT_OK, or prints a clang-style
 * error ("no training loop found", a bad --loop) and returns
 * TIDAL_EXIT_BAD_INPUT (TIDAL_EXIT_INTERNAL on internal failure).  g is
 * zeroed first and may be passed to graph_free in every case. */
int graph_build(pass_tu *t, const graph_options *opt, graph *g);
void graph_free(graph *g); /* NULL is a no-op */

/* Evaluates s under g's bindings; 0 and *out, or -1 if something is unbound. */
int graph_eval(const graph *g, const sym *s, int64_t *out);

/* graph.c: growing the arrays (a zeroed element; its index, -1 when out of
 * memory), main()'s definition in the main file (a null cursor if none),
 * and freeing an access's per-call-level texts (calltext.c fills them). */
int graph_add_op(graph *g);
int graph_add_tensor(graph *g);
int graph_add_alloc(graph *g);
int graph_add_region(graph *g);
int graph_add_loop(graph *g);
int graph_add_branch(graph *g);
CXCursor graph_find_main(pass_tu *t);
void graph_access_free_texts(graph_access *a, int n_levels);

/* bind.c: a binding table (names are copied). */
void bind_set(graph_bindings *b, const char *name, int64_t value, bind_source src);
int bind_lookup(const graph_bindings *b, const char *name, int64_t *out);
/* Records a constant table (values copied). */
void bind_set_table(graph_bindings *b, const char *name, const int64_t *values, int n);
/* name is `T[INDEX]` for a recorded table T: its base's table, and in
 * *index the INDEX text (into name); NULL otherwise. */
const graph_table *bind_table_ref(const graph_bindings *b, const char *name, const char **index,
                                  size_t *index_len);
/* Drops name's binding unless the user gave it (a variable found constant
 * at loop entry that the loop changes: interp_loop.c). */
void bind_forget_const(graph_bindings *b, const char *name);
void bind_free(graph_bindings *b);
/* Drops the constants found in the source that no size, offset, loop bound
 * or flop count of g uses (setup noise: RNG state, flags); --bind stays. */
void bind_prune_unused(graph *g);
/* A sym_value_fn over a graph_bindings (ud): nonzero when bound. */
int bind_value_fn(void *ud, const char *name, int64_t *out);
/* The first name in s that b leaves unbound (malloc'd), or NULL. */
char *bind_first_unbound(const graph_bindings *b, const sym *s);
/* Every name g's sizes, offsets and loop bounds use that nothing binds,
 * loop variables aside, in order of first use, in one message: "'batch',
 * 'din' and 'dh' are unbound (use --bind batch=VALUE --bind din=VALUE
 * --bind dh=VALUE)" (malloc'd), or NULL when there is none. */
char *bind_unbound_message(const graph *g);
/* The same, leaving out the trip counts of loops flagged in skip_trip (one
 * flag per graph loop; NULL: none): loops the unroller does without. */
char *bind_unbound_message_skip(const graph *g, const char *skip_trip);
/* The user's --bind names g never uses (a typo, or a size the program does
 * not have), each with the closest name it does use, if any: calls fn once
 * per such bind. */
void bind_each_unused(const graph *g, void (*fn)(void *ud, const char *name, const char *close),
                      void *ud);

/* unroll.c: one iteration, every loop unrolled and every size concrete.
 * Returns 0, or prints "file:line:col: error: ... 'NAME' is unbound (use
 * --bind NAME=VALUE)" and returns TIDAL_EXIT_BAD_INPUT.  extra_vars/values
 * (may be 0/NULL) bind further names for this call only. */
int graph_unroll(const graph *g, tidal_trace *out);
/* bind_unbound_message without the trip counts the unroller does without
 * (a periodic branch's loop, micro-steps: unroll.c); malloc'd or NULL. */
char *graph_unbound_message(const graph *g);

/* sites.c: a malloc'd array of g->n_allocs flags, 1 where a cudaMalloc
 * call the rewriter replaces with tidal_malloc (graph_file.mems) made the
 * allocation: in program file `file`, or in any file when file is -1 (a
 * rewrite of every file, -o DIR/).  NULL when out of memory. */
unsigned char *graph_allocs_replaced(const graph *g, int file);

/* relocatable.c (Note [relocatable allocations]) */
/* 1 when argument i of site s's first op call is passed as TIDAL_AT(arg):
 * a pointer into memory the site declares, editable where it is written. */
int graph_site_arg_wrapped(const graph_site *s, int i);
/* 1 when access i of site s reaches the op through a wrapped argument; 0:
 * the rewriter emits tidal_home(ptr) before the op instead. */
int graph_site_acc_wrapped(const graph_site *s, int i);
/* Decides graph_alloc.relocatable/home_why for a rewrite of program file
 * `file` (-1: every file), and g->home_all_why, g->n_relocatable.
 * Returns 0, or -1 when memory ran out. */
int graph_relocatable(graph *g, int file);


#endif
