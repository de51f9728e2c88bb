/* kernels.h - what each __global__ function does to its pointer parameters.
 *
 * Access modes come from the body, not the signature.  Extents are counted
 * in elements of the parameter's declared pointee type and are symbolic over
 * the kernel's own parameter names; the op-site layer substitutes the
 * launch's argument expressions. */
#ifndef TIDAL_PASS_KERNELS_H
#define TIDAL_PASS_KERNELS_H

#include "frontend.h"

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
} kernel_info;

typedef struct kernel_table {
  kernel_info *items;
  int n;
} kernel_table;

/* Analyses every __global__ definition in the TU (main file and project
 * headers; not system headers). */
int kernels_analyze(pass_tu *t, kernel_table *out);
/* By USR of the referenced declaration (cursor of a launch's callee). */
const kernel_info *kernels_find(const kernel_table *kt, CXCursor callee);
const kernel_info *kernels_find_name(const kernel_table *kt, const char *name);
void kernels_free(kernel_table *kt);

#endif
