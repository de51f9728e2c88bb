/* libcalls_formulas.c - what the library-call rows (libcalls_<family>.c)
 * point at: reading integer arguments (a folded value, else a known enum
 * spelling, else the source text parsed as an expression), the element-size
 * tables of cudaDataType / cudnnDataType_t / ncclDataType_t, and the size,
 * FLOP and descriptor formulas.  Design decisions: libcalls.c's header. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/libcalls_table.h"

/* ---- enum spellings ----
 * The walker folds enum constants into args[i].value; these catch the
 * cases it cannot (a stub header without the enum, a macro it did not
 * expand).  Values from CUDA 13's cublas_api.h, driver_types.h,
 * library_types.h, cudnn_graph.h and nccl.h. */
typedef struct named_value {
  const char *name;
  int value;
} named_value;

static const named_value known_enums[] = {
    {"CUBLAS_OP_N", 0}, {"CUBLAS_OP_T", 1}, {"CUBLAS_OP_C", 2}, {"CUBLAS_OP_HERMITAN", 2},
    {"CUBLAS_OP_CONJG", 3}, {"CUBLAS_SIDE_LEFT", 0}, {"CUBLAS_SIDE_RIGHT", 1},
    {"cudaMemcpyHostToHost", 0}, {"cudaMemcpyHostToDevice", 1}, {"cudaMemcpyDeviceToHost", 2},
    {"cudaMemcpyDeviceToDevice", 3}, {"cudaMemcpyDefault", 4},
    {"CUDA_R_16F", 2}, {"CUDA_C_16F", 6}, {"CUDA_R_16BF", 14}, {"CUDA_C_16BF", 15},
    {"CUDA_R_32F", 0}, {"CUDA_C_32F", 4}, {"CUDA_R_64F", 1}, {"CUDA_C_64F", 5},
    {"CUDA_R_8I", 3}, {"CUDA_C_8I", 7}, {"CUDA_R_8U", 8}, {"CUDA_C_8U", 9},
    {"CUDA_R_16I", 20}, {"CUDA_C_16I", 21}, {"CUDA_R_16U", 22}, {"CUDA_C_16U", 23},
    {"CUDA_R_32I", 10}, {"CUDA_C_32I", 11}, {"CUDA_R_32U", 12}, {"CUDA_C_32U", 13},
    {"CUDA_R_64I", 24}, {"CUDA_C_64I", 25}, {"CUDA_R_64U", 26}, {"CUDA_C_64U", 27},
    {"CUDA_R_8F_E4M3", 28}, {"CUDA_R_8F_UE4M3", 28}, {"CUDA_R_8F_E5M2", 29},
    {"CUDA_R_8F_UE8M0", 30},
    {"CUDNN_DATA_FLOAT", 0}, {"CUDNN_DATA_DOUBLE", 1}, {"CUDNN_DATA_HALF", 2},
    {"CUDNN_DATA_INT8", 3}, {"CUDNN_DATA_INT32", 4}, {"CUDNN_DATA_INT8x4", 5},
    {"CUDNN_DATA_UINT8", 6}, {"CUDNN_DATA_UINT8x4", 7}, {"CUDNN_DATA_INT8x32", 8},
    {"CUDNN_DATA_BFLOAT16", 9}, {"CUDNN_DATA_INT64", 10}, {"CUDNN_DATA_BOOLEAN", 11},
    {"CUDNN_DATA_FP8_E4M3", 12}, {"CUDNN_DATA_FP8_E5M2", 13},
    {"CUDNN_DATA_FAST_FLOAT_FOR_FP8", 14}, {"CUDNN_DATA_FP8_E8M0", 15},
    {"CUDNN_DATA_UINT32", 19}, {"CUDNN_DATA_COMPLEX_FP32", 20}, {"CUDNN_DATA_COMPLEX_FP64", 21},
    {"CUDNN_TENSOR_NCHW", 0}, {"CUDNN_TENSOR_NHWC", 1}, {"CUDNN_TENSOR_NCHW_VECT_C", 2},
    {"ncclInt8", 0}, {"ncclChar", 0}, {"ncclUint8", 1}, {"ncclInt32", 2}, {"ncclInt", 2},
    {"ncclUint32", 3}, {"ncclInt64", 4}, {"ncclUint64", 5}, {"ncclFloat16", 6}, {"ncclHalf", 6},
    {"ncclFloat32", 7}, {"ncclFloat", 7}, {"ncclFloat64", 8}, {"ncclDouble", 8},
    {"ncclBfloat16", 9}, {"ncclFloat8e4m3", 10}, {"ncclFloat8e5m2", 11},
};

/* Element bytes by enum value; 0 = unknown or sub-byte (4/6-bit types have
 * no whole-byte size per element: their extents stay unknown). */
static const int cuda_dtype_bytes[] = {
    [0] = 4,   [1] = 8,   [2] = 2,   [3] = 1,   [4] = 8,   [5] = 16,  [6] = 4,
    [7] = 2,   [8] = 1,   [9] = 2,   [10] = 4,  [11] = 8,  [12] = 4,  [13] = 8,
    [14] = 2,  [15] = 4,  [16] = 0,  [17] = 0,  [18] = 0,  [19] = 0,  [20] = 2,
    [21] = 4,  [22] = 2,  [23] = 4,  [24] = 8,  [25] = 16, [26] = 8,  [27] = 16,
    [28] = 1,  [29] = 1,  [30] = 1,  [31] = 0,  [32] = 0,  [33] = 0,
};
/* INT8x4 / UINT8x4 count a vector of four as one element; INT8x32 32. */
static const int cudnn_dtype_bytes[] = {
    [0] = 4, [1] = 8, [2] = 2, [3] = 1,  [4] = 4,  [5] = 4,  [6] = 1,  [7] = 4,
    [8] = 32, [9] = 2, [10] = 8, [11] = 1, [12] = 1, [13] = 1, [14] = 0, [15] = 1,
    [16] = 0, [17] = 0, [18] = 0, [19] = 4, [20] = 8, [21] = 16,
};
static const int nccl_dtype_bytes[] = {
    [0] = 1, [1] = 1, [2] = 4, [3] = 4, [4] = 8, [5] = 8, [6] = 2, [7] = 4, [8] = 8,
    [9] = 2, [10] = 1, [11] = 1,
};

#define COUNT_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* ---- reading arguments ---- */

/* s without surrounding blanks and redundant outer parentheses, into buf. */
static const char *trimmed(const char *s, char *buf, size_t cap) {
  while (*s == ' ' || *s == '\t' || *s == '\n') s++;
  size_t n = strlen(s);
  while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n')) n--;
  if (n >= cap) n = cap - 1;
  memcpy(buf, s, n);
  buf[n] = '\0';
  while (n >= 2 && buf[0] == '(' && buf[n - 1] == ')') {
    /* only strip when the parentheses enclose everything: "(a)*(b)" stays */
    int depth = 0, encloses = 1;
    for (size_t i = 0; i < n - 1; i++) {
      depth += buf[i] == '(' ? 1 : buf[i] == ')' ? -1 : 0;
      if (depth == 0) { encloses = 0; break; }
    }
    if (!encloses) break;
    memmove(buf, buf + 1, n - 2);
    buf[n -= 2] = '\0';
  }
  return buf;
}

static int lookup_enum(const char *text, int64_t *out) {
  for (int i = 0; i < COUNT_OF(known_enums); i++)
    if (strcmp(known_enums[i].name, text) == 0) {
      *out = known_enums[i].value;
      return 1;
    }
  return 0;
}

/* The integer value of argument i as a sym (unknown if absent). */
static sym *arg_sym(const libcalls_ctx *c, int i) {
  if (i < 0 || i >= c->nargs) return sym_unknown(c->a);
  const libcall_arg *g = &c->args[i];
  int64_t v;
  if (g->value && sym_get_kind(g->value) == SYM_CONST) return g->value;
  if (g->text) {
    char buf[256];
    const char *t = trimmed(g->text, buf, sizeof buf);
    if (lookup_enum(t, &v)) return sym_const(c->a, v);
    /* The walker passes a SYM_VAR named after the enum when it could not
       fold it: that name is in the table too. */
  }
  if (g->value && sym_get_kind(g->value) == SYM_VAR && lookup_enum(sym_var_name(g->value), &v))
    return sym_const(c->a, v);
  if (g->value) return g->value;
  if (g->text) {
    sym *s = sym_parse(c->a, g->text);
    if (s) return s;
  }
  return sym_unknown(c->a);
}

int libcalls_arg_const(const libcalls_ctx *c, int i, int64_t *out) {
  return sym_get_const(arg_sym(c, i), out);
}

/* 1 if argument i is spelled as a null pointer. */
int libcalls_arg_is_null(const libcalls_ctx *c, int i) {
  static const char *const nulls[] = {"NULL", "nullptr", "0", "0L", "(void*)0", "(void *)0", "__null"};
  if (i < 0 || i >= c->nargs || !c->args[i].text) return 0;
  char buf[64];
  const char *t = trimmed(c->args[i].text, buf, sizeof buf);
  for (int k = 0; k < COUNT_OF(nulls); k++)
    if (strcmp(t, nulls[k]) == 0) return 1;
  return 0;
}

/* Element size in bytes as a constant sym, or unknown. */
static sym *elem_sym(const libcalls_ctx *c, libcalls_elem e) {
  if (e > 0) return sym_const(c->a, e);
  int table = -e / LIBCALLS_DT_SCALE, arg = -e % LIBCALLS_DT_SCALE;
  int64_t v;
  if (!libcalls_arg_const(c, arg, &v) || v < 0) return sym_unknown(c->a);
  const int *tab;
  int n;
  switch (table) {
  case LIBCALLS_DT_CUDA: tab = cuda_dtype_bytes; n = COUNT_OF(cuda_dtype_bytes); break;
  case LIBCALLS_DT_CUDNN: tab = cudnn_dtype_bytes; n = COUNT_OF(cudnn_dtype_bytes); break;
  case LIBCALLS_DT_NCCL: tab = nccl_dtype_bytes; n = COUNT_OF(nccl_dtype_bytes); break;
  default: return sym_unknown(c->a);
  }
  if (v >= n || tab[v] == 0) return sym_unknown(c->a);
  return sym_const(c->a, tab[v]);
}

sym *libcalls_cuda_type_bytes(sym_arena *a, sym *type) {
  int64_t v;
  if (!type || !sym_get_const(type, &v) || v < 0 || v >= COUNT_OF(cuda_dtype_bytes) ||
      cuda_dtype_bytes[v] == 0)
    return sym_unknown(a);
  return sym_const(a, cuda_dtype_bytes[v]);
}

/* ---- size formulas ---- */

static sym *one(const libcalls_ctx *c) { return sym_const(c->a, 1); }

/* |x|, folded when x is constant. */
static sym *abs_sym(const libcalls_ctx *c, sym *x) {
  int64_t v;
  if (sym_get_const(x, &v)) return sym_const(c->a, v < 0 ? -v : v);
  return sym_max(c->a, x, sym_sub(c->a, sym_const(c->a, 0), x));
}

static int is_const(const sym *s, int64_t v) {
  int64_t k;
  return sym_get_const(s, &k) && k == v;
}

sym *libcalls_size_unknown(const libcalls_ctx *c, const libcalls_acc *acc, int *exact) {
  *exact = 0;
  return sym_unknown(c->a);
}

sym *libcalls_size_arg(const libcalls_ctx *c, const libcalls_acc *acc, int *exact) {
  return sym_mul(c->a, arg_sym(c, acc->p[0]), elem_sym(c, acc->elem));
}

sym *libcalls_size_count(const libcalls_ctx *c, const libcalls_acc *acc, int *exact) {
  return sym_mul(c->a, arg_sym(c, acc->p[0]), elem_sym(c, acc->elem));
}

/* Elements from x to the last one touched: 1 + (n-1)*|inc|. */
static sym *vec_elems(const libcalls_ctx *c, sym *n, sym *inc, int *exact) {
  sym *step = abs_sym(c, inc);
  if (!is_const(step, 1)) *exact = 0;
  if (is_const(step, 1)) return n;
  return sym_add(c->a, one(c), sym_mul(c->a, sym_sub(c->a, n, one(c)), step));
}

sym *libcalls_size_vec(const libcalls_ctx *c, const libcalls_acc *acc, int *exact) {
  sym *n = vec_elems(c, arg_sym(c, acc->p[0]), arg_sym(c, acc->p[1]), exact);
  return sym_mul(c->a, n, elem_sym(c, acc->elem));
}

sym *libcalls_size_vec_op(const libcalls_ctx *c, const libcalls_acc *acc, int *exact) {
  int64_t t;
  sym *inc = arg_sym(c, acc->p[3]), *n;
  if (libcalls_arg_const(c, acc->p[0], &t)) {
    n = vec_elems(c, arg_sym(c, acc->p[t == 0 ? 1 : 2]), inc, exact);
  } else { /* direction unknown: the longer reading, an upper bound */
    n = sym_max(c->a, vec_elems(c, arg_sym(c, acc->p[1]), inc, exact),
                vec_elems(c, arg_sym(c, acc->p[2]), inc, exact));
    *exact = 0;
  }
  return sym_mul(c->a, n, elem_sym(c, acc->elem));
}

/* Elements of one column-major rows x cols matrix with leading dimension
 * ld: the last column needs only `rows` entries.  Dense (no gaps) iff
 * ld == rows, and then written as rows*cols. */
static sym *matrix_elems(const libcalls_ctx *c, sym *rows, sym *cols, sym *ld, int *dense) {
  if (sym_equal(ld, rows)) {
    *dense = 1;
    return sym_mul(c->a, rows, cols);
  }
  *dense = 0;
  return sym_add(c->a, sym_mul(c->a, ld, sym_sub(c->a, cols, one(c))), rows);
}

sym *libcalls_size_matrix(const libcalls_ctx *c, const libcalls_acc *acc, int *exact) {
  sym *rows = arg_sym(c, acc->p[1]), *cols = arg_sym(c, acc->p[2]), *ld = arg_sym(c, acc->p[3]);
  int64_t t = 0;
  int dense = 0;
  sym *elems;
  if (acc->p[0] < 0 || libcalls_arg_const(c, acc->p[0], &t)) {
    /* CUBLAS_OP_N (0) and the unsupported CONJG (3) keep the stored shape */
    if (t == 0 || t == 3) elems = matrix_elems(c, rows, cols, ld, &dense);
    else elems = matrix_elems(c, cols, rows, ld, &dense);
  } else {
    int d1, d2;
    elems = sym_max(c->a, matrix_elems(c, rows, cols, ld, &d1),
                    matrix_elems(c, cols, rows, ld, &d2));
    dense = 0;
  }
  if (acc->p[5] >= 0) {
    sym *batch = arg_sym(c, acc->p[5]), *stride = arg_sym(c, acc->p[4]);
    if (!is_const(batch, 1)) {
      /* matrices laid end to end are dense; a stride of 0 (a broadcast
         operand) or anything else is an extent with gaps or overlap */
      if (dense && sym_equal(stride, elems)) {
        elems = sym_mul(c->a, elems, batch);
      } else {
        dense = 0;
        elems = sym_add(c->a, sym_mul(c->a, stride, sym_sub(c->a, batch, one(c))), elems);
      }
    }
  }
  if (!dense) *exact = 0;
  return sym_mul(c->a, elems, elem_sym(c, acc->elem));
}

/* cudaMemcpy2D / cudaMemset2D: height rows of width bytes, pitch apart. */
sym *libcalls_size_pitched(const libcalls_ctx *c, const libcalls_acc *acc, int *exact) {
  int dense;
  sym *b = matrix_elems(c, arg_sym(c, acc->p[1]), arg_sym(c, acc->p[2]), arg_sym(c, acc->p[0]),
                        &dense);
  if (!dense) *exact = 0; /* pitch > width: the padding is not touched */
  return b;
}

sym *libcalls_size_desc(const libcalls_ctx *c, const libcalls_acc *acc, int *exact) {
  const libcall_env *env = c->env;
  sym *b = NULL;
  if (env && env->descriptor_bytes) b = env->descriptor_bytes(env->ud, acc->p[0]);
  if (!b || sym_is_unknown(b)) {
    *exact = 0;
    return sym_unknown(c->a);
  }
  if (env->descriptor_dense && !env->descriptor_dense(env->ud, acc->p[0])) *exact = 0;
  return b;
}

/* ---- FLOP formulas ---- */

sym *libcalls_flops_zero(const libcalls_ctx *c, const int *p) { return sym_const(c->a, 0); }

sym *libcalls_flops_gemm(const libcalls_ctx *c, const int *p) {
  sym *f = sym_mul(c->a, sym_const(c->a, 2),
                   sym_mul(c->a, arg_sym(c, p[0]), sym_mul(c->a, arg_sym(c, p[1]), arg_sym(c, p[2]))));
  return p[3] >= 0 ? sym_mul(c->a, f, arg_sym(c, p[3])) : f;
}

sym *libcalls_flops_mn(const libcalls_ctx *c, const int *p) {
  return sym_mul(c->a, sym_const(c->a, p[2]), sym_mul(c->a, arg_sym(c, p[0]), arg_sym(c, p[1])));
}

sym *libcalls_flops_n(const libcalls_ctx *c, const int *p) {
  return sym_mul(c->a, sym_const(c->a, p[1]), arg_sym(c, p[0]));
}

/* ---- descriptor-setter formulas ---- */

sym *libcalls_setter_unknown(const libcalls_ctx *c, const int *p, libcalls_elem e, int *dense) {
  *dense = 0;
  return sym_unknown(c->a);
}

/* Packed n*c*h*w (or k*c*h*w) elements. */
sym *libcalls_setter_dims(const libcalls_ctx *c, const int *p, libcalls_elem e, int *dense) {
  sym *n = arg_sym(c, p[1]);
  for (int i = 2; i <= 4; i++) n = sym_mul(c->a, n, arg_sym(c, p[i]));
  *dense = 1;
  return sym_mul(c->a, n, elem_sym(c, e));
}

/* n,c,h,w then nStride,cStride,hStride,wStride, from argument p[1]. */
sym *libcalls_setter_strided4d(const libcalls_ctx *c, const int *p, libcalls_elem e, int *dense) {
  sym *d[4], *s[4];
  for (int i = 0; i < 4; i++) {
    d[i] = arg_sym(c, p[1] + i);
    s[i] = arg_sym(c, p[1] + 4 + i);
  }
  sym *hw = sym_mul(c->a, d[2], d[3]);
  /* NCHW-packed: w 1, h w, c h*w, n c*h*w; NHWC-packed: c 1, w c, h w*c, n h*w*c */
  int nchw = is_const(s[3], 1) && sym_equal(s[2], d[3]) && sym_equal(s[1], hw) &&
             sym_equal(s[0], sym_mul(c->a, d[1], hw));
  int nhwc = is_const(s[1], 1) && sym_equal(s[3], d[1]) &&
             sym_equal(s[2], sym_mul(c->a, d[3], d[1])) &&
             sym_equal(s[0], sym_mul(c->a, hw, d[1]));
  if (nchw || nhwc) {
    *dense = 1;
    return sym_mul(c->a, sym_mul(c->a, sym_mul(c->a, d[0], d[1]), hw), elem_sym(c, e));
  }
  *dense = 0;
  sym *last = one(c); /* index of the last element, plus one */
  for (int i = 0; i < 4; i++)
    last = sym_add(c->a, last, sym_mul(c->a, sym_sub(c->a, d[i], one(c)), s[i]));
  return sym_mul(c->a, last, elem_sym(c, e));
}

/* cublasLtMatrixLayoutCreate(&l, type, rows, cols, ld): column-major (the
 * default order; a CUBLASLT_ORDER_ROW attribute set later is not seen). */
sym *libcalls_setter_layout(const libcalls_ctx *c, const int *p, libcalls_elem e, int *dense) {
  sym *el = matrix_elems(c, arg_sym(c, p[1]), arg_sym(c, p[2]), arg_sym(c, p[3]), dense);
  return sym_mul(c->a, el, elem_sym(c, e));
}


/* ---- descriptor queries ---- */

static sym *param(sym_arena *a, sym *const *const *params, const int *np, int d, int i) {
  return params[d] && np[d] > i && params[d][i] ? params[d][i] : sym_unknown(a);
}

/* cudnnGetConvolution2dForwardOutputDim: params[0] the convolution (pad_h,
 * pad_w, stride_h, stride_w, dilation_h, dilation_w), params[1] the input
 * (n, c, h, w), params[2] the filter (k, c, r, s).  cuDNN's formula:
 * out = 1 + (in + 2*pad - ((filter - 1)*dilation + 1)) / stride; n is the
 * input's, c the filter's k. */
void libcalls_query_conv2d_fwd_dims(sym_arena *a, sym *const *const *params, const int *np,
                                    sym **out) {
  /* the input's kept parameters are (dataType, n, c, h, w), the filter's
   * (dataType, format, k, c, h, w) */
  out[0] = param(a, params, np, 1, 1);
  out[1] = param(a, params, np, 2, 2);
  for (int d = 0; d < 2; d++) {
    sym *in = param(a, params, np, 1, 3 + d), *f = param(a, params, np, 2, 4 + d);
    sym *pad = param(a, params, np, 0, d), *stride = param(a, params, np, 0, 2 + d);
    sym *dil = param(a, params, np, 0, 4 + d);
    sym *span = sym_add(a, sym_mul(a, sym_sub(a, f, sym_const(a, 1)), dil), sym_const(a, 1));
    sym *num = sym_sub(a, sym_add(a, in, sym_mul(a, sym_const(a, 2), pad)), span);
    out[2 + d] = sym_add(a, sym_const(a, 1), sym_div(a, num, stride));
  }
}

/* Note [workspace sizes]
 * cudnnGetConvolution*WorkspaceSize answers at run time for the algorithm
 * cuDNN chose; a program passes the answer to the convolution and usually
 * allocates it (`cudaMalloc(&ws, max(fwd, bwd_data, bwd_filter))`).  The
 * model answers with the workspace of the GEMM algorithm, the lowering of
 * the convolution to one matrix product: the unrolled input ("im2col"),
 * one row per output position (n * out_h * out_w) and one column per
 * filter tap (c * r * s), of the input's element type - the same matrix for
 * the forward pass and the filter gradient, and the column buffer the data
 * gradient scatters back.  cuDNN's fastest algorithm may need less
 * (implicit GEMM needs none) or more (FFT); what the program really
 * allocates at run time is its own variable, which the rewritten program
 * declares (the model only sizes the plan and the replay), and a --bind
 * still decides a name the program reads elsewhere.  The descriptors come
 * as (conv, x, filter, y): y is the output of the forward convolution (the
 * gradient dy for the backward ones). */
void libcalls_query_conv2d_workspace(sym_arena *a, sym *const *const *params, const int *np,
                                     sym **out) {
  sym *n = param(a, params, np, 3, 1), *oh = param(a, params, np, 3, 3);
  sym *ow = param(a, params, np, 3, 4), *c = param(a, params, np, 2, 3);
  sym *r = param(a, params, np, 2, 4), *s = param(a, params, np, 2, 5);
  sym *dt = param(a, params, np, 1, 0);
  int64_t t;
  int eb = sym_get_const(dt, &t) && t >= 0 && t < COUNT_OF(cudnn_dtype_bytes) ? cudnn_dtype_bytes[t]
                                                                              : 0;
  if (!eb) { /* an element type the model does not know: no answer */
    out[0] = sym_unknown(a);
    return;
  }
  sym *rows = sym_mul(a, sym_mul(a, n, oh), ow), *cols = sym_mul(a, sym_mul(a, c, r), s);
  out[0] = sym_mul(a, sym_const(a, eb), sym_mul(a, rows, cols));
}
