/* kernels.h - what each __global__ function does to its pointer parameters.
 *
 * Access modes come from the body, not the signature.  Extents are counted
 * in elements of the parameter's declared pointee type and are symbolic over
 * the kernel's own parameter names; the op-site layer substitutes the
 * launch's argument expressions. */
#ifndef TIDAL_PASS_KERNELS_H
#define TIDAL_PASS_KERNELS_H

#include "frontend/frontend.h"

typedef enum access_mode {
  ACCESS_NONE = 0,
  ACCESS_READ = 1,
  ACCESS_WRITE = 2,
  ACCESS_READWRITE = 3
} access_mode;

const char *access_mode_name(access_mode m); /* "none" "read" "write" "readwrite" */

enum kernel_flags {
  KERNEL_ATOMICS = 1u << 0,  /* uses atomic read-modify-write */
  KERNEL_RNG = 1u << 1,      /* uses curand state (not safe to re-run) */
  KERNEL_INPLACE = 1u << 2,  /* one parameter is both read and written */
  KERNEL_NONDETERMINISTIC = 1u << 3 /* float atomics: result order-dependent */
};

typedef struct kernel_param {
  char *name;
  int is_pointer;
  access_mode mode;   /* ACCESS_NONE for non-pointers */
  sym *extent;        /* elements of elem_type touched, from the pointer; SYM_UNKNOWN if unbounded */
  int elem_bytes;     /* sizeof the declared pointee type, 0 if unknown (void*) */
  char *elem_type;    /* "float", "float4", ... */
  char *why;          /* short reason when the extent is unknown, else NULL */
  /* Note [dense] in kernels.c: 1 only if the analysis proves that a launch
   * meeting the conditions below writes every element of [0, extent). */
  int dense;
  sym *threads_needed; /* dense needs grid.x*block.x >= this (over parameter names); NULL: no
                          thread-count condition */
  sym *blocks_needed;  /* dense needs grid.x >= this; NULL: no block-count condition */
} kernel_param;

typedef struct kernel_info {
  char *name;
  char *usr;          /* clang USR, to match launches to definitions */
  char *file;
  unsigned line;
  int n_params;
  kernel_param *params;
  unsigned flags;     /* enum kernel_flags */
  int has_body;       /* 0 for declarations without a definition here */
  /* Note [elementwise split] in split.c: 1 when thread i touches only
   * element i of each pointer parameter (i the global x thread index, or a
   * grid-stride loop over it) for i < params[split_count_param], so a launch
   * over [0, n) may run as launches over [o, o + l) with every pointer
   * advanced by o and the count replaced by l (runtime: tidal_split_elements).
   * split_grid_stride: any grid covers the count; 0: the launch needs
   * grid.x * block.x >= count.  split_why: why not (NULL when split). */
  int split;
  int split_count_param;
  int split_grid_stride;
  char *split_why;
} kernel_info;

typedef struct kernel_table {
  kernel_info *items;
  int n;
} kernel_table;

/* Analyses every __global__ definition in the TU (main file and project
 * headers; not system headers). */
int kernels_analyze(pass_tu *t, kernel_table *out);
/* By USR of the referenced declaration (cursor of a launch's callee); a
 * call clang left unresolved in a template's body by the candidate it
 * names (kernels_dependent_callee). */
const kernel_info *kernels_find(const kernel_table *kt, CXCursor callee);
/* For a call clang left unresolved in a function template's body (its
 * arguments depend on the template's parameters: no spelling, no
 * referenced declaration), the declaration its callee expression names
 * (the first of its overload set); a null cursor otherwise.  Note
 * [launches in templates] in kernels.c. */
CXCursor kernels_dependent_callee(CXCursor call);
const kernel_info *kernels_find_name(const kernel_table *kt, const char *name);
void kernels_free(kernel_table *kt);

/* The x components of a launch's grid and block as written: for
 * k<<<g, b>>>(...) the expressions converted to dim3 (the integer inside
 * dim3(x, ...) or the integer itself), for cudaLaunchKernel(f, g, b, ...)
 * its second and third arguments.  A null cursor where the x component is
 * not an integer expression the caller can evaluate (a dim3 variable). */
void kernels_launch_dims(CXCursor call, CXCursor *grid_x, CXCursor *block_x);

/* An extent may name the launch's dimensions (kernels_value.c Note [launch
 * bounds]): "gridDim.x", "blockDim.x", and the y and z components.  For a
 * name in an extent, the value to substitute at a launch: grid_x or
 * block_x for the x components when known (non-NULL, not unknown), unknown
 * otherwise; NULL when name is not a launch dimension (a parameter). */
sym *kernels_launch_dim(sym_arena *a, const char *name, sym *grid_x, sym *block_x);

/* The grid and block arguments of a launch as written (k<<<g, b>>>(..):
 * g and b, of type dim3 or an integer; cudaLaunchKernel(f, g, b, ..)),
 * null cursors when absent: the graph evaluates all three components
 * (a dim3 variable, dim3(x, y), an integer). */
void kernels_launch_config(CXCursor call, CXCursor *grid, CXCursor *block);

/* kernels_launch_dim with every component: grid[i], block[i] the x, y, z
 * values (NULL or unknown when not known). */
sym *kernels_launch_dim3(sym_arena *a, const char *name, sym *const grid[3],
                         sym *const block[3]);

/* 1 if a launch of k with grid.x = grid_x and block.x = block_x (syms in
 * one naming context; args[i] is the value of k's parameter i in that
 * context, NULL when unknown) provably meets p's dense conditions, so that
 * the launch writes every element of p's extent.  Proven symbolically for
 * the ceil-division forms (grid (N + b - 1) / b with block b) and simple
 * identities, else numerically when value() binds every name.  0 when p is
 * not dense. */
int kernels_launch_covers(sym_arena *a, const kernel_info *k, const kernel_param *p,
                          sym *const *args, sym *grid_x, sym *block_x, sym_value_fn value,
                          void *ud);

#endif
