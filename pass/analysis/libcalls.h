/* libcalls.h - what library calls (cudart, cuBLAS, cublasLt, cuDNN, NCCL)
 * do to their pointer arguments.
 *
 * One table-driven model (pass/libcalls*.c; docs/libcalls.md): for each
 * modelled routine, which pointer arguments are read or written and how many
 * bytes from each pointer, as symbolic expressions over the call's own
 * argument values.  The op-site walker (graph) evaluates the arguments into
 * syms and hands them in; nothing here touches libclang.
 *
 * All returned syms live in the caller's arena. */
#ifndef TIDAL_PASS_LIBCALLS_H
#define TIDAL_PASS_LIBCALLS_H

#include "base/symexpr.h"
#include "analysis/kernels.h" /* access_mode */

typedef struct libcall_arg {
  sym *value;       /* integer value of the argument (enum constants/literals folded, variables as SYM_VAR); SYM_UNKNOWN if not integral */
  const char *text; /* source text of the argument ("acts.ln1 + l*B*T*C", "CUBLAS_OP_T"); may be NULL */
} libcall_arg;

typedef struct libcall_env { /* provided by the caller (graph engineer) */
  sym_arena *arena;
  /* Bytes of the tensor described by the cuDNN (or cublasLt layout)
     descriptor passed as argument `arg`, from the descriptor setter calls
     the walker saw for that descriptor variable (it calls
     libcall_descriptor_setter below to learn them); NULL -> unknown.  The
     function itself may also be NULL. */
  sym *(*descriptor_bytes)(void *ud, int arg);
  void *ud;
  /* Optional (NULL: every descriptor is taken as dense).  0 if the
     descriptor passed as `arg` has gaps (a strided cudnnSetTensor4dDescriptorEx
     view into a larger buffer, a cublasLt layout with ld > rows), so its bytes
     are an extent, not what is touched; libcall_descriptor_info says which. */
  int (*descriptor_dense)(void *ud, int arg);
  /* Optional (NULL: never).  1 if the host scalar pointed to by argument
     `arg` (a GEMM's or cuDNN call's beta) is known to be 0: the output is
     then written, not read-modify-written. */
  int (*scalar_is_zero)(void *ud, int arg);
} libcall_env;

typedef struct libcall_access {
  int arg;          /* index of the pointer argument */
  access_mode mode; /* read / write / readwrite */
  sym *bytes;       /* symbolic byte extent from that pointer; SYM_UNKNOWN if not computable */
  int exact;        /* 1 if bytes is exactly what is touched (e.g. a GEMM output with ldc==m), 0 if an upper bound */
  const char *role; /* "A", "B", "C", "x", "y", "dst", "src", ... (static string) */
} libcall_access;

enum libcall_family { LIBCALL_CUDART, LIBCALL_CUBLAS, LIBCALL_CUBLASLT, LIBCALL_CUDNN, LIBCALL_NCCL };

typedef struct libcall_info {
  const char *name;
  enum libcall_family family;
  int nargs;       /* arguments in the C signature */
  unsigned flags;  /* LIBCALL_* below */
} libcall_info;

enum {
  LIBCALL_ALLOC = 1,              /* allocates device memory (see libcall_alloc_info) */
  LIBCALL_FREE = 2,               /* frees what an ALLOC returned */
  LIBCALL_DESCRIPTOR_SETTER = 4,  /* fills a tensor/filter/layout descriptor */
  LIBCALL_OP = 8,                 /* touches device memory: an op site */
  LIBCALL_NONDETERMINISTIC = 16,  /* result may differ between runs (reduction order) */
  LIBCALL_HOST_ALLOC = 32,        /* with ALLOC/FREE: host (pinned) memory, not a device tensor */
  LIBCALL_MANAGED = 64,           /* with ALLOC: unified memory (cudaMallocManaged) */
  LIBCALL_DESCRIPTOR_QUERY = 128, /* computes integers from descriptors, written through pointers */
  LIBCALL_DESCRIPTOR_ATTR = 256,  /* sets one attribute of a descriptor from *buf (cublasLt) */
  LIBCALL_HOST_SYNC = 512,        /* with OP: returns to the host only once the device has run it
                                     and the work before it, when one side is host memory
                                     (cudaMemcpy): the host waits (tidal replay's clock) */
  LIBCALL_BATCH_SPLIT = 1024      /* with OP (cuDNN): each output sample depends on the same
                                     sample of the inputs alone, every pointer argument is a
                                     tensor whose descriptor is the argument just before it, so
                                     the call may run over pieces of the batch
                                     (include/tidal/cudnn.h, Note [batch split]) */
};

/* The table row for callee, or NULL if not modelled. */
const libcall_info *libcall_find(const char *callee);

/* Fills out[] (at most max entries) and returns the number of accesses the
 * call makes (which may exceed max: then only max were written), or -1 if
 * callee is not an op, or nargs is too small for the arguments it reads
 * (trailing defaulted parameters such as a C++ stream = 0 may be omitted). */
int libcall_accesses(const char *callee, const libcall_arg *args, int nargs,
                     const libcall_env *env, libcall_access *out, int max);

/* For descriptor setters (cudnnSetTensor4dDescriptor, cudnnSetTensorNdDescriptor,
 * cudnnSetFilter4dDescriptor, cublasLtMatrixLayoutCreate, ...): which argument
 * is the descriptor and the bytes it describes (SYM_UNKNOWN when the sizes are
 * not computable).  Returns 0, or -1 if callee is not a setter. */
int libcall_descriptor_setter(const char *callee, const libcall_arg *args, int nargs,
                              sym_arena *a, int *desc_arg, sym **bytes);
/* The same, plus *dense: 1 if every byte of that extent belongs to the
 * tensor (packed strides), 0 if it may have gaps.  dense may be NULL. */
int libcall_descriptor_info(const char *callee, const libcall_arg *args, int nargs,
                            sym_arena *a, int *desc_arg, sym **bytes, int *dense);

/* The integer parameters a descriptor setter gives its descriptor, in
 * argument order, so that a later query can compute from them:
 * cudnnSetTensor4dDescriptor[Ex] n, c, h, w; cudnnSetFilter4dDescriptor k,
 * c, h, w; cudnnSetConvolution2dDescriptor pad_h, pad_w, stride_h,
 * stride_w, dilation_h, dilation_w.  Writes at most max syms to out[] and
 * returns how many the setter has (0: none recorded, e.g. the Nd forms;
 * -1: callee is not a setter). */
int libcall_descriptor_params(const char *callee, const libcall_arg *args, int nargs,
                              sym **out, int max);

#define LIBCALL_QUERY_MAX 4 /* descriptors read / integers written by one query */

/* A descriptor query (LIBCALL_DESCRIPTOR_QUERY):
 * cudnnGetConvolution2dForwardOutputDim(conv, x, w, &n, &c, &h, &w).
 * libcall_query_args: the descriptor arguments it reads (desc_args[], *n_desc)
 * and the pointer arguments it writes an integer through (out_args[],
 * *n_out).  libcall_query_eval: given each descriptor's parameters (as
 * libcall_descriptor_params returned them; params[i] NULL or np[i] too
 * small: unknown), the integers written, in out_args order; unknown ones
 * are SYM_UNKNOWN.  Both return 0, or -1 if callee is not a query. */
int libcall_query_args(const char *callee, int *desc_args, int *n_desc, int *out_args,
                       int *n_out);
int libcall_query_eval(const char *callee, sym *const *const *params, const int *np,
                       sym_arena *a, sym **out);

/* Why the extent of pointer argument `arg` of callee can be unknown, when
 * the reason is particular to its formula (a descriptor whose sizes were
 * not seen), for the rewriter's annotation; NULL otherwise. */
const char *libcall_unknown_why(const char *callee, int arg);

/* For allocations: which arg receives the pointer (cudaMalloc(&p, n) -> 0)
 * and which is the size (1); for frees the pointer arg (size_arg -1).
 * Returns 0, or -1 if callee neither allocates nor frees.  Check
 * libcall_find(callee)->flags & LIBCALL_HOST_ALLOC for host memory. */
int libcall_alloc_info(const char *callee, int *ptr_arg, int *size_arg);

/* Estimated FLOPs of the call (GEMMs: 2*m*n*k*batch; convolutions unknown;
 * others 0), used by the planner's cost model.  NULL if callee is not
 * modelled. */
sym *libcall_flops(const char *callee, const libcall_arg *args, int nargs, sym_arena *a);

/* Printable family name ("cudart", "cublas", "cublasLt", "cudnn", "nccl"). */
const char *libcall_family_name(enum libcall_family f);

/* cuBLASLt descriptors (libcalls_cublaslt.c, Note [cublasLt descriptors]).
 * An attribute setter `set(desc, attr, buf, size)` (LIBCALL_DESCRIPTOR_ATTR):
 * 1 when attr (argument 1) is one the model keeps, with the slot to keep
 * *buf under ("batch", "stride", "epilogue", "bias", "aux", "aux_ld", ...)
 * and whether *buf is a device pointer; 0 otherwise. */
int libcall_attr_slot(const char *callee, const libcall_arg *attr, const char **slot,
                      int *is_pointer);

/* A cublasLt layout: the setter's type, rows, cols, ld and the batch
 * attributes (NULL: not set). */
typedef struct libcall_lt_layout {
  sym *type, *rows, *cols, *ld, *batch, *stride;
} libcall_lt_layout;
/* Bytes from the pointer of the matrices a layout describes (stride*(batch
 * - 1) elements past the first matrix); dense when without gaps.  -1 when a
 * dimension or the type is not known. */
int libcall_lt_layout_bytes(sym_arena *a, const libcall_lt_layout *l, sym **bytes, int *dense);

/* A matmul's epilogue: the descriptor's attributes (NULL: not set), D's
 * rows m, cols n, type and batch, and which pointers were set (non-NULL). */
typedef struct libcall_lt_epi {
  sym *epilogue, *bias_type, *aux_type, *aux_ld, *bias_stride, *aux_stride;
  sym *m, *n, *d_type, *batch;
  int has_bias, has_aux;
} libcall_lt_epi;
/* The bias and aux accesses (role "bias", "aux"; arg -1) of out[0..1];
 * returns how many.  An unknown epilogue reads and writes both. */
int libcall_lt_epilogue(sym_arena *a, const libcall_lt_epi *e, libcall_access *out);

/* Bytes of a cudaDataType (library_types.h) given as a constant, or unknown. */
sym *libcalls_cuda_type_bytes(sym_arena *a, sym *type);

#endif
