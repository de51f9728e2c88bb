/* libcalls_table.h - the row format of the library-call tables (internal to
 * pass/libcalls*.c).
 *
 * A routine is one libcalls_row: its libcall_info, up to LIBCALLS_MAX_ACC
 * pointer accesses, and optionally a FLOP formula, a descriptor-setter
 * formula or allocation argument positions.  Every size is a formula
 * function plus the argument indices it reads (p[]), so a new routine is one
 * row built from the macros below; a new shape of size is one small
 * libcalls_size_* function in libcalls_formulas.c.  See docs/libcalls.md. */
#ifndef TIDAL_PASS_LIBCALLS_TABLE_H
#define TIDAL_PASS_LIBCALLS_TABLE_H

#include "analysis/libcalls.h"

#define LIBCALLS_MAX_ACC 8 /* cudnnBatchNormalization* has eight pointers */
#define LIBCALLS_NP 6      /* argument slots a formula may read */

/* What table an element-type argument's value is looked up in. */
enum libcalls_dtype_table {
  LIBCALLS_DT_NONE = 0, /* element size is the constant .bytes */
  LIBCALLS_DT_CUDA,     /* cudaDataType (library_types.h) */
  LIBCALLS_DT_CUDNN,    /* cudnnDataType_t (cudnn_graph.h) */
  LIBCALLS_DT_NCCL      /* ncclDataType_t (nccl.h) */
};

/* Element size of an access, one int so that it passes through the row
 * macros as a single argument: > 0 constant bytes (1 for byte counts),
 * <= 0 -(table*LIBCALLS_DT_SCALE + arg): the data type is argument `arg`,
 * read through `table` (LC_E / LC_DT build it). */
typedef int libcalls_elem;
#define LIBCALLS_DT_SCALE 1000

/* Evaluation context of one call. */
typedef struct libcalls_ctx {
  const libcall_arg *args;
  int nargs;
  const libcall_env *env; /* NULL outside libcall_accesses */
  sym_arena *a;
} libcalls_ctx;

struct libcalls_acc;
/* Returns the byte extent from the pointer; clears *exact when that extent
 * is only an upper bound (gaps, unknown direction).  Never NULL: unknown is
 * sym_unknown(). */
typedef sym *(*libcalls_size_fn)(const libcalls_ctx *c, const struct libcalls_acc *acc,
                                 int *exact);

/* Access options. */
enum {
  LIBCALLS_OPTIONAL = 1u << 0,   /* the pointer may be NULL (then no access) */
  LIBCALLS_INEXACT = 1u << 1,    /* always an upper bound (workspaces, root-only receives) */
  LIBCALLS_DST_DEVICE = 1u << 2, /* only if the cudaMemcpyKind in .aux has a device destination */
  LIBCALLS_SRC_DEVICE = 1u << 3  /* only if the cudaMemcpyKind in .aux has a device source */
};

typedef struct libcalls_acc {
  const char *role;      /* NULL ends the list */
  int arg;               /* the pointer argument */
  access_mode mode;      /* READWRITE outputs become WRITE when env says beta (.aux) is 0 */
  libcalls_size_fn size; /* byte-extent formula */
  int p[LIBCALLS_NP];    /* argument indices the formula reads (-1: absent) */
  libcalls_elem elem;    /* element size the formula multiplies by */
  unsigned opts;         /* LIBCALLS_OPTIONAL ... */
  int aux;               /* beta argument (READWRITE outputs) or cudaMemcpyKind argument; -1 */
} libcalls_acc;

typedef sym *(*libcalls_flops_fn)(const libcalls_ctx *c, const int *p);
/* Descriptor setters: returns the bytes; sets *dense. */
typedef sym *(*libcalls_setter_fn)(const libcalls_ctx *c, const int *p, libcalls_elem elem,
                                   int *dense);

/* Descriptor queries: out[] from params[i] (np[i] of them) of each
 * descriptor the query reads. */
typedef void (*libcalls_query_fn)(sym_arena *a, sym *const *const *params, const int *np,
                                  sym **out);

typedef struct libcalls_row {
  libcall_info info;
  libcalls_acc acc[LIBCALLS_MAX_ACC + 1]; /* role == NULL terminates */
  libcalls_flops_fn flops;                /* NULL: FLOPs unknown */
  int fp[LIBCALLS_NP];                    /* arguments flops reads */
  libcalls_setter_fn setter;              /* DESCRIPTOR_SETTER rows */
  int sp[LIBCALLS_NP];                    /* arguments setter reads; sp[0] is the descriptor */
  libcalls_elem selem;                    /* element type of the described tensor */
  int alloc_ptr, alloc_size;              /* ALLOC/FREE rows; -1 when absent */
  /* Setters: the parameters kept for queries are arguments
   * dims_first .. dims_first+n_dims-1 (n_dims 0: none).  Queries: the
   * descriptors are arguments sp[0..n_dims-1], the outputs the n_out
   * arguments from out_first. */
  int dims_first, n_dims;
  libcalls_query_fn query;
  int out_first, n_out;
} libcalls_row;

/* The family tables (libcalls_<family>.c), each ended by a row whose
 * info.name is NULL. */
extern const libcalls_row libcalls_cudart_rows[];
extern const libcalls_row libcalls_cublas_rows[];
extern const libcalls_row libcalls_cudnn_rows[];
extern const libcalls_row libcalls_nccl_rows[];

/* Size formulas (libcalls.c).  p[] meanings: */
/* Argument i as a constant (1 and *out), or 0; whether it is spelled as a
 * null pointer. */
int libcalls_arg_const(const libcalls_ctx *c, int i, int64_t *out);
int libcalls_arg_is_null(const libcalls_ctx *c, int i);

sym *libcalls_size_arg(const libcalls_ctx *, const libcalls_acc *, int *);     /* p0 bytes (times elem) */
sym *libcalls_size_count(const libcalls_ctx *, const libcalls_acc *, int *);   /* p0 elements */
sym *libcalls_size_vec(const libcalls_ctx *, const libcalls_acc *, int *);     /* p0 n, p1 inc */
sym *libcalls_size_vec_op(const libcalls_ctx *, const libcalls_acc *, int *);  /* p0 trans, p1 n if N, p2 n if T, p3 inc */
sym *libcalls_size_matrix(const libcalls_ctx *, const libcalls_acc *, int *);  /* p0 trans (-1: N), p1 rows, p2 cols (as stored when N), p3 ld, p4 stride, p5 batch */
sym *libcalls_size_pitched(const libcalls_ctx *, const libcalls_acc *, int *); /* p0 pitch, p1 width bytes, p2 height */
sym *libcalls_size_desc(const libcalls_ctx *, const libcalls_acc *, int *);    /* p0 descriptor argument */
sym *libcalls_size_unknown(const libcalls_ctx *, const libcalls_acc *, int *); /* e.g. NCCL counts times nranks */

/* FLOP formulas (libcalls.c). */
sym *libcalls_flops_zero(const libcalls_ctx *, const int *);
sym *libcalls_flops_gemm(const libcalls_ctx *, const int *); /* 2*m*n*k*batch: p0 m, p1 n, p2 k, p3 batch (-1: 1) */
sym *libcalls_flops_mn(const libcalls_ctx *, const int *);   /* p2*m*n: p0 m, p1 n, p2 = constant factor (not an arg) */
sym *libcalls_flops_n(const libcalls_ctx *, const int *);    /* p1*n: p0 n, p1 = constant factor (not an arg) */

/* Descriptor-setter formulas (libcalls.c). */
sym *libcalls_setter_dims(const libcalls_ctx *, const int *, libcalls_elem, int *);     /* sp[1..4] dims, product (-1 ends) */
sym *libcalls_setter_strided4d(const libcalls_ctx *, const int *, libcalls_elem, int *);/* sp[1] first of n,c,h,w then nS,cS,hS,wS */
sym *libcalls_setter_layout(const libcalls_ctx *, const int *, libcalls_elem, int *);   /* sp[1] rows, sp[2] cols, sp[3] ld */
sym *libcalls_setter_unknown(const libcalls_ctx *, const int *, libcalls_elem, int *);  /* Nd descriptors: dims in an array */

/* Query formulas (libcalls_formulas.c). */
void libcalls_query_conv2d_fwd_dims(sym_arena *, sym *const *const *, const int *, sym **); /* conv, x, w -> n, c, h, w */
void libcalls_query_conv2d_workspace(sym_arena *, sym *const *const *, const int *, sym **); /* conv, x, w, y -> bytes */

/* ---- Row-building macros (keep tables one line per access) ---- */
#define LC_E(b) (b)                                               /* constant element bytes */
#define LC_DT(arg, tab) (-(LIBCALLS_DT_##tab * LIBCALLS_DT_SCALE + (arg))) /* type from an argument */
#define LC_NOP {-1, -1, -1, -1, -1, -1}
#define LC_FP(...) {__VA_ARGS__} /* arguments a FLOP formula reads */

#define LC_ACC(role_, arg_, mode_, fn, e, opts_, aux_, ...) \
  {(role_), (arg_), ACCESS_##mode_, (fn), {__VA_ARGS__}, e, (opts_), (aux_)}

/* A GEMM-style column-major matrix operand. */
#define LC_MAT(role, arg, mode, e, trans, rows, cols, ld, stride, batch, beta) \
  LC_ACC(role, arg, mode, libcalls_size_matrix, e, 0, beta, trans, rows, cols, ld, stride, batch)
/* A strided vector: n elements, increment inc. */
#define LC_VEC(role, arg, mode, e, n, inc, beta) \
  LC_ACC(role, arg, mode, libcalls_size_vec, e, 0, beta, n, inc, -1, -1, -1, -1)
/* A vector whose length depends on a transpose argument. */
#define LC_VECOP(role, arg, mode, e, trans, nN, nT, inc, beta) \
  LC_ACC(role, arg, mode, libcalls_size_vec_op, e, 0, beta, trans, nN, nT, inc, -1, -1)
/* count elements of e. */
#define LC_CNT(role, arg, mode, e, count, opts) \
  LC_ACC(role, arg, mode, libcalls_size_count, e, opts, -1, count, -1, -1, -1, -1, -1)
/* A tensor described by a descriptor argument. */
#define LC_DESC(role, arg, mode, desc, beta, opts) \
  LC_ACC(role, arg, mode, libcalls_size_desc, LC_E(1), opts, beta, desc, -1, -1, -1, -1, -1)
/* bytes given by an argument (workspaces, reserve spaces): an upper bound. */
#define LC_WS(role, arg, mode, bytesarg) \
  LC_ACC(role, arg, mode, libcalls_size_arg, LC_E(1), LIBCALLS_INEXACT | LIBCALLS_OPTIONAL, -1, \
         bytesarg, -1, -1, -1, -1, -1)
/* Scratch (cuDNN convolution and cublasLt workspaces): the library may
 * clobber every byte of the size argument and never reads what was there,
 * so the old contents are dead before the call and the new ones after it:
 * an exact write (the runtime maps it fresh, the planner never keeps it). */
#define LC_SCRATCH(role, arg, bytesarg) \
  LC_ACC(role, arg, WRITE, libcalls_size_arg, LC_E(1), LIBCALLS_OPTIONAL, -1, bytesarg, -1, -1, \
         -1, -1, -1)
#define LC_UNK(role, arg, mode) \
  LC_ACC(role, arg, mode, libcalls_size_unknown, LC_E(1), LIBCALLS_INEXACT, -1, -1, -1, -1, -1, -1, -1)
#define LC_END {NULL, 0, ACCESS_NONE, NULL, LC_NOP, LC_E(0), 0, -1}

/* Rows.  NAME is the routine as declared (suffixes _v2/_64 are stripped
 * before lookup). */
#define LC_OP_ROW(name, fam, nargs, flags, flopsfn, fps, ...) \
  {{(name), LIBCALL_##fam, (nargs), LIBCALL_OP | (flags)}, {__VA_ARGS__, LC_END}, (flopsfn), fps, \
   NULL, LC_NOP, LC_E(0), -1, -1, 0, 0, NULL, -1, 0}
#define LC_ALLOC_ROW(name, fam, nargs, flags, ptrarg, sizearg) \
  {{(name), LIBCALL_##fam, (nargs), (flags)}, {LC_END}, NULL, LC_NOP, NULL, LC_NOP, LC_E(0), \
   (ptrarg), (sizearg), 0, 0, NULL, -1, 0}
#define LC_SETTER_ROW(name, fam, nargs, setterfn, e, ...) \
  {{(name), LIBCALL_##fam, (nargs), LIBCALL_DESCRIPTOR_SETTER}, {LC_END}, NULL, LC_NOP, \
   (setterfn), {__VA_ARGS__}, e, -1, -1, 0, 0, NULL, -1, 0}
/* A setter whose parameters n_dims arguments from dims_first are kept. */
#define LC_SETTER_DIMS_ROW(name, fam, nargs, setterfn, e, dfirst, ndims, ...) \
  {{(name), LIBCALL_##fam, (nargs), LIBCALL_DESCRIPTOR_SETTER}, {LC_END}, NULL, LC_NOP, \
   (setterfn), {__VA_ARGS__}, e, -1, -1, (dfirst), (ndims), NULL, -1, 0}
/* A query reading ndesc descriptors (arguments listed) and writing nout
 * integers through the arguments from ofirst on. */
#define LC_QUERY_ROW(name, fam, nargs, queryfn, ndesc, ofirst, nout, ...) \
  {{(name), LIBCALL_##fam, (nargs), LIBCALL_DESCRIPTOR_QUERY}, {LC_END}, NULL, LC_NOP, NULL, \
   {__VA_ARGS__}, LC_E(0), -1, -1, 0, (ndesc), (queryfn), (ofirst), (nout)}
/* An attribute setter `set(desc, attr, buf, size)` (libcalls_cublaslt.c). */
#define LC_ATTR_ROW(name, fam, nargs) \
  {{(name), LIBCALL_##fam, (nargs), LIBCALL_DESCRIPTOR_ATTR}, {LC_END}, NULL, LC_NOP, NULL, \
   LC_NOP, LC_E(0), -1, -1, 0, 0, NULL, -1, 0}
#define LC_TABLE_END \
  {{NULL, 0, 0, 0}, {LC_END}, NULL, LC_NOP, NULL, LC_NOP, LC_E(0), -1, -1, 0, 0, NULL, -1, 0}

#endif
