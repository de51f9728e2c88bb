/* libcalls_cublaslt.c - what cuBLASLt keeps in its descriptors: batched
 * layouts and a matmul's epilogue pointers (docs/libcalls.md, "cublasLt").
 *
 * Note [cublasLt descriptors]
 * cublasLtMatmul's arguments are not all it touches.  A layout
 * (cublasLtMatrixLayoutCreate) describes one matrix, but
 * cublasLtMatrixLayoutSetAttribute(l, BATCH_COUNT, &n, ..) and
 * (.., STRIDED_BATCH_OFFSET, &s, ..) make it n matrices s elements apart
 * (llm.c's attention: one matmul over B*NH heads); the matmul descriptor
 * carries device pointers set with cublasLtMatmulDescSetAttribute: the
 * bias (BIAS_POINTER: read by the BIAS epilogues, written by the BGRAD
 * ones) and the epilogue's auxiliary buffer (EPILOGUE_AUX_POINTER: written
 * by GELU_AUX/RELU_AUX, the pre-activation saved for backward; read by
 * DGELU/DRELU).  An op that declared only its arguments would leave the
 * bias and the saved pre-activation evictable while the library reads or
 * writes them.  So the walker records each attribute the program sets
 * (libcall_attr_slot says which and where), and at the matmul asks
 * libcall_lt_layout_bytes for the batched extents and libcall_lt_epilogue
 * for the epilogue's accesses.  Unknown values make extents unknown and
 * modes readwrite, never smaller. */
#include <string.h>

#include "analysis/libcalls.h"
#include "analysis/libcalls_table.h"

/* The attributes modelled: enum value (CUDA 13 cublasLt.h), slot name, and
 * whether the value set is a device pointer. */
typedef struct lt_attr {
  const char *name;
  int value;
  const char *slot;
  int pointer;
} lt_attr;

static const lt_attr layout_attrs[] = {
    {"CUBLASLT_MATRIX_LAYOUT_TYPE", 0, "type", 0},
    {"CUBLASLT_MATRIX_LAYOUT_ORDER", 1, "order", 0},
    {"CUBLASLT_MATRIX_LAYOUT_ROWS", 2, "rows", 0},
    {"CUBLASLT_MATRIX_LAYOUT_COLS", 3, "cols", 0},
    {"CUBLASLT_MATRIX_LAYOUT_LD", 4, "ld", 0},
    {"CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT", 5, "batch", 0},
    {"CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET", 6, "stride", 0},
};

static const lt_attr matmul_attrs[] = {
    {"CUBLASLT_MATMUL_DESC_EPILOGUE", 7, "epilogue", 0},
    {"CUBLASLT_MATMUL_DESC_BIAS_POINTER", 8, "bias", 1},
    {"CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE", 10, "bias_stride", 0},
    {"CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER", 11, "aux", 1},
    {"CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD", 12, "aux_ld", 0},
    {"CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE", 13, "aux_stride", 0},
    {"CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE", 22, "aux_type", 0},
    {"CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE", 26, "bias_type", 0},
};

#define N_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))

int libcall_attr_slot(const char *callee, const libcall_arg *attr, const char **slot,
                      int *is_pointer) {
  const libcall_info *li = libcall_find(callee);
  if (!li || !(li->flags & LIBCALL_DESCRIPTOR_ATTR) || !attr) return 0;
  const lt_attr *tab = strstr(callee, "MatrixLayout") ? layout_attrs : matmul_attrs;
  int n = tab == layout_attrs ? N_OF(layout_attrs) : N_OF(matmul_attrs);
  int64_t v = -1;
  int have = attr->value && sym_get_const(attr->value, &v);
  for (int i = 0; i < n; i++)
    if ((have && v == tab[i].value) || (!have && attr->text && !strcmp(attr->text, tab[i].name))) {
      *slot = tab[i].slot;
      *is_pointer = tab[i].pointer;
      return 1;
    }
  return 0;
}

static sym *one(sym_arena *a) { return sym_const(a, 1); }

/* x == y for every value of the names */
static int same(sym_arena *a, sym *x, sym *y) {
  int64_t d;
  return sym_equal(x, y) || (sym_get_const(sym_sub(a, x, y), &d) && d == 0);
}

int libcall_lt_layout_bytes(sym_arena *a, const libcall_lt_layout *l, sym **bytes, int *dense) {
  sym *elem = libcalls_cuda_type_bytes(a, l->type);
  if (!l->rows || !l->cols || !l->ld || sym_is_unknown(elem)) return -1;
  int64_t r, ld;
  *dense = sym_get_const(l->rows, &r) && sym_get_const(l->ld, &ld) ? r == ld : same(a, l->rows, l->ld);
  /* one column-major matrix: ld*(cols-1) + rows elements */
  sym *m = sym_add(a, sym_mul(a, l->ld, sym_sub(a, l->cols, one(a))), l->rows);
  if (l->batch) {
    int64_t bc;
    if (!(sym_get_const(l->batch, &bc) && bc == 1)) {
      /* stride unset: 0, every matrix the same one (cuBLASLt's default) */
      sym *st = l->stride ? l->stride : sym_const(a, 0);
      m = sym_add(a, m, sym_mul(a, st, sym_sub(a, l->batch, one(a))));
      sym *packed = sym_mul(a, l->ld, l->cols);
      if (!l->stride || !same(a, st, packed)) *dense = 0;
    }
  }
  *bytes = sym_mul(a, m, elem);
  if (sym_is_unknown(*bytes)) *dense = 0;
  return 0;
}

/* Epilogue bits (CUDA 13 cublasLt.h cublasLtEpilogue_t). */
enum { EP_RELU = 2, EP_BIAS = 4, EP_DRELU = 8, EP_BGRAD = 16, EP_GELU = 32, EP_DGELU = 64,
       EP_AUX = 128, EP_BGRADA = 256, EP_BGRADB = 512 };

int libcall_lt_epilogue(sym_arena *a, const libcall_lt_epi *e, libcall_access *out) {
  int n = 0;
  int64_t ep = 0;
  int known = e->epilogue && sym_get_const(e->epilogue, &ep);
  sym *m = e->m ? e->m : sym_unknown(a), *cols = e->n ? e->n : sym_unknown(a);
  sym *batch = e->batch ? e->batch : one(a);
  if (e->has_bias) {
    /* BIAS: a vector of m added to each column; BGRADA / the fused
     * backward BGRADs write m; BGRADB writes n */
    int reads = known && (ep & EP_BIAS);
    int writes = known && (ep & (EP_BGRAD | EP_BGRADA | EP_BGRADB));
    if (!known || reads || writes) {
      sym *len = !known ? sym_max(a, m, cols) : (ep & EP_BGRADB) ? cols : m;
      sym *el = libcalls_cuda_type_bytes(a, e->bias_type ? e->bias_type : e->d_type);
      sym *b = sym_mul(a, len, el);
      int64_t bc;
      int batched = !(sym_get_const(batch, &bc) && bc == 1);
      if (batched && e->bias_stride)
        b = sym_add(a, b, sym_mul(a, sym_mul(a, e->bias_stride, sym_sub(a, batch, one(a))), el));
      out[n].arg = -1;
      out[n].role = "bias";
      out[n].mode = !known ? ACCESS_READWRITE : writes ? ACCESS_WRITE : ACCESS_READ;
      out[n].bytes = b;
      /* a written bias gradient covers its vector; batched ones may not */
      out[n].exact = known && writes && !batched && !sym_is_unknown(b);
      n++;
    }
  }
  if (e->has_aux) {
    int aux = known && (ep & EP_AUX);
    if (!known || aux) {
      /* the pre-activation as D is laid out: ld*(n-1) + m of the aux type
       * (RELU_AUX keeps a bit mask, smaller: an upper bound) */
      sym *ld = e->aux_ld ? e->aux_ld : sym_unknown(a);
      sym *el = libcalls_cuda_type_bytes(a, e->aux_type ? e->aux_type : e->d_type);
      sym *x = sym_add(a, sym_mul(a, ld, sym_sub(a, cols, one(a))), m);
      int64_t bc;
      int batched = !(sym_get_const(batch, &bc) && bc == 1);
      if (batched)
        x = e->aux_stride ? sym_add(a, x, sym_mul(a, e->aux_stride, sym_sub(a, batch, one(a))))
                          : x;
      int backward = known && (ep & (EP_DRELU | EP_DGELU));
      out[n].arg = -1;
      out[n].role = "aux";
      out[n].mode = !known ? ACCESS_READWRITE : backward ? ACCESS_READ : ACCESS_WRITE;
      out[n].bytes = sym_mul(a, x, el);
      /* GELU_AUX stores every pre-activation element: exact when the
       * columns are packed (ld == m) */
      out[n].exact = known && !backward && !batched && (ep & EP_GELU) && e->aux_ld &&
                     same(a, ld, m) && !sym_is_unknown(out[n].bytes);
      n++;
    }
  }
  return n;
}
