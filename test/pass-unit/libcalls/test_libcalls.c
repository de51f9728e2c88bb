/* test_libcalls.c - unit tests of the library-call model (pass/libcalls*.c).
 *
 * Each case feeds a call's arguments the way the op-site walker does (a
 * folded value where it has one, the source text always) and checks the
 * access list: roles, modes, exactness, byte expressions as printed by
 * sym_to_string, and their values under name bindings.  The last case
 * checks every table row against its own signature, so a mistyped argument
 * index in a new row fails here. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/libcalls.h"
#include "analysis/libcalls_table.h"

static int failures;
static int checks;

#define CHECK(cond, ...)                                         \
  do {                                                           \
    checks++;                                                    \
    if (!(cond)) {                                               \
      failures++;                                                \
      fprintf(stderr, "%s:%d: FAILED: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                              \
      fputc('\n', stderr);                                       \
    }                                                            \
  } while (0)

static sym_arena *A;

/* ---- building arguments ---- */

#define MAXARGS 32
static libcall_arg args[MAXARGS];
static int nargs;

/* Arguments from their source texts; the value is what sym_parse makes of
 * the text (a name stays a SYM_VAR, as the walker leaves unfoldable enum
 * spellings), NULL-text entries are pointers with no integer value. */
static void set_args(int n, ...) {
  va_list ap;
  va_start(ap, n);
  nargs = n;
  for (int i = 0; i < n; i++) {
    const char *t = va_arg(ap, const char *);
    args[i].text = t;
    sym *v = t ? sym_parse(A, t) : NULL;
    args[i].value = v ? v : sym_unknown(A);
  }
  va_end(ap);
}

/* The walker folded argument i to the constant v (text kept as written). */
static void fold(int i, int64_t v) { args[i].value = sym_const(A, v); }

/* ---- bindings for evaluation ---- */

typedef struct binding {
  const char *name;
  int64_t value;
} binding;
static const binding *cur_bind;
static int n_bind;

static int bind_value(void *ud, const char *name, int64_t *out) {
  for (int i = 0; i < n_bind; i++)
    if (strcmp(cur_bind[i].name, name) == 0) {
      *out = cur_bind[i].value;
      return 1;
    }
  return 0;
}
#define BIND(...)                                                      \
  do {                                                                 \
    static const binding b_[] = {__VA_ARGS__};                        \
    cur_bind = b_;                                                     \
    n_bind = (int)(sizeof b_ / sizeof b_[0]);                          \
  } while (0)

static int64_t eval(const sym *s) {
  int64_t v = -12345;
  if (sym_eval(s, bind_value, NULL, &v) < 0) return -1;
  return v;
}

static int str_is(const sym *s, const char *want) {
  char *got = sym_to_string(s);
  int ok = got && strcmp(got, want) == 0;
  if (!ok) fprintf(stderr, "    got \"%s\", want \"%s\"\n", got ? got : "(null)", want);
  free(got);
  return ok;
}

/* ---- environment ---- */

/* Descriptor bytes by argument index (NULL: unknown); dense[] 0 = gaps. */
static sym *desc_table[MAXARGS];
static int desc_sparse[MAXARGS];
static int zero_beta_arg = -1;

static sym *env_desc_bytes(void *ud, int arg) {
  return arg >= 0 && arg < MAXARGS ? desc_table[arg] : NULL;
}
static int env_desc_dense(void *ud, int arg) { return !(arg >= 0 && arg < MAXARGS && desc_sparse[arg]); }
static int env_zero(void *ud, int arg) { return arg == zero_beta_arg; }

static libcall_env env;

static void reset_env(void) {
  memset(desc_table, 0, sizeof desc_table);
  memset(desc_sparse, 0, sizeof desc_sparse);
  zero_beta_arg = -1;
  env.arena = A;
  env.descriptor_bytes = env_desc_bytes;
  env.descriptor_dense = env_desc_dense;
  env.scalar_is_zero = env_zero;
  env.ud = NULL;
}

static libcall_access acc[16];

static int run(const char *callee) { return libcall_accesses(callee, args, nargs, &env, acc, 16); }

static const libcall_access *find(int n, const char *role) {
  for (int i = 0; i < n; i++)
    if (strcmp(acc[i].role, role) == 0) return &acc[i];
  return NULL;
}

/* One access: present, on argument arg, with this mode and exactness; its
 * bytes print as str (if non-NULL) and evaluate to value (-1: unknown). */
static void expect(int n, const char *role, int arg, access_mode mode, int exact, const char *str,
                   int64_t value, int line) {
  const libcall_access *x = find(n, role);
  CHECK(x != NULL, "line %d: no access with role %s", line, role);
  if (!x) return;
  CHECK(x->arg == arg, "line %d: %s on arg %d, want %d", line, role, x->arg, arg);
  CHECK(x->mode == mode, "line %d: %s mode %d, want %d", line, role, (int)x->mode, (int)mode);
  CHECK(x->exact == exact, "line %d: %s exact %d, want %d", line, role, x->exact, exact);
  if (str) CHECK(str_is(x->bytes, str), "line %d: %s bytes", line, role);
  int64_t v = eval(x->bytes);
  CHECK(v == value, "line %d: %s evaluates to %lld, want %lld", line, role, (long long)v,
        (long long)value);
}
#define EXPECT(n, role, arg, mode, exact, str, value) \
  expect(n, role, arg, ACCESS_##mode, exact, str, value, __LINE__)

/* ---- cuBLAS ---- */

static void test_sgemm(void) {
  reset_env();
  /* llm.c's matmul_forward: out(OC x B*T) = weight^T(OC x C) * inp(C x B*T) */
  set_args(14, "handle", "CUBLAS_OP_T", "CUBLAS_OP_N", "OC", "B*T", "C", "&one", NULL, "C", NULL,
           "C", "&zero", NULL, "OC");
  fold(1, 1), fold(2, 0); /* the walker folds the enums */
  BIND({"OC", 768}, {"B", 4}, {"T", 64}, {"C", 256});
  int n = run("cublasSgemm_v2");
  CHECK(n == 3, "sgemm: %d accesses", n);
  /* A stored C x OC (transposed), lda == C: dense */
  EXPECT(n, "A", 7, READ, 1, "4*C*OC", 256 * 768 * 4);
  EXPECT(n, "B", 9, READ, 1, "4*C*B*T", 256 * 4 * 64 * 4);
  EXPECT(n, "C", 12, READWRITE, 1, "4*OC*B*T", 768 * 4 * 64 * 4);

  /* beta proven zero: C is only written */
  zero_beta_arg = 11;
  n = run("cublasSgemm");
  EXPECT(n, "C", 12, WRITE, 1, NULL, 768 * 4 * 64 * 4);

  /* Unfolded enum spellings are read from the text. */
  set_args(14, "handle", "CUBLAS_OP_N", "CUBLAS_OP_T", "M", "N", "K", "&one", NULL, "M", NULL,
           "N", "&zero", NULL, "M");
  BIND({"M", 3}, {"N", 5}, {"K", 7});
  n = run("cublasSgemm");
  EXPECT(n, "A", 7, READ, 1, NULL, 3 * 7 * 4); /* M x K */
  EXPECT(n, "B", 9, READ, 1, NULL, 5 * 7 * 4); /* op T: stored N x K */
}

static void test_sgemm_ld_and_unknown_trans(void) {
  reset_env();
  /* lda > m leaves gaps: extent lda*(k-1)+m, not exact */
  set_args(14, "h", "CUBLAS_OP_N", "CUBLAS_OP_N", "4", "2", "3", "&a", NULL, "10", NULL, "3", "&b",
           NULL, "4");
  BIND({"x", 0});
  int n = run("cublasSgemm");
  EXPECT(n, "A", 7, READ, 0, "96", (10 * 2 + 4) * 4);
  EXPECT(n, "B", 9, READ, 1, "24", 3 * 2 * 4);
  EXPECT(n, "C", 12, READWRITE, 1, "32", 4 * 2 * 4);

  /* transa in a variable: the larger of both readings, not exact */
  set_args(14, "h", "ta", "CUBLAS_OP_N", "M", "N", "K", "&a", NULL, "lda", NULL, "K", "&b", NULL,
           "M");
  BIND({"M", 8}, {"N", 2}, {"K", 3}, {"lda", 8});
  n = run("cublasDgemm");
  /* N reading: 8*(3-1)+8 = 24; T reading: 8*(8-1)+3 = 59 elements of 8 bytes */
  EXPECT(n, "A", 7, READ, 0, NULL, 59 * 8);
  EXPECT(n, "C", 12, READWRITE, 1, "8*M*N", 8 * 2 * 8);
}

static void test_strided_batched(void) {
  reset_env();
  /* attention scores: preatt(T x T) = key^T * query per (b, head) */
  set_args(18, "h", "CUBLAS_OP_T", "CUBLAS_OP_N", "T", "T", "HS", "&one", NULL, "HS", "T*HS", NULL,
           "HS", "T*HS", "&zero", NULL, "T", "T*T", "B*NH");
  BIND({"T", 64}, {"HS", 32}, {"B", 2}, {"NH", 4});
  int n = run("cublasSgemmStridedBatched");
  CHECK(n == 3, "strided batched: %d", n);
  EXPECT(n, "A", 7, READ, 1, "4*HS*T*B*NH", 32 * 64 * 8 * 4);
  EXPECT(n, "B", 10, READ, 1, "4*HS*T*B*NH", 32 * 64 * 8 * 4);
  EXPECT(n, "C", 14, READWRITE, 1, "4*T*T*B*NH", 64 * 64 * 8 * 4);

  /* q/k/v interleaved: stride 3*T*HS leaves gaps; the extent reaches the
     last matrix: stride*(batch-1) + HS*T */
  args[9] = (libcall_arg){sym_parse(A, "3*T*HS"), "3*T*HS"};
  n = run("cublasSgemmStridedBatched");
  EXPECT(n, "A", 7, READ, 0, NULL, (3 * 64 * 32 * 7 + 32 * 64) * 4);

  /* stride 0 broadcasts one matrix: the extent is one matrix, not exact */
  args[12] = (libcall_arg){sym_const(A, 0), "0"};
  n = run("cublasSgemmStridedBatched");
  EXPECT(n, "B", 10, READ, 0, "4*HS*T", 32 * 64 * 4);

  /* a batch of one is a plain GEMM */
  args[17] = (libcall_arg){sym_const(A, 1), "1"};
  n = run("cublasSgemmStridedBatched");
  EXPECT(n, "C", 14, READWRITE, 1, "4*T*T", 64 * 64 * 4);

  CHECK(str_is(libcall_flops("cublasSgemmStridedBatched", args, nargs, A), "2*T*T*HS"),
        "flops of batch 1");
}

static void test_pointer_array_batched(void) {
  reset_env();
  /* the row declares the three device arrays of batchCount pointers; the
   * matrices behind them are the interpreter's (opsites.c) */
  set_args(15, "h", "CUBLAS_OP_N", "CUBLAS_OP_N", "M", "M", "M", "&one", NULL, "M", NULL, "M",
           "&zero", NULL, "M", "NB");
  BIND({"M", 32}, {"NB", 3});
  int n = run("cublasSgemmBatched");
  CHECK(n == 3, "pointer-array batched: %d", n);
  EXPECT(n, "Aarray", 7, READ, 1, "8*NB", 3 * 8);
  EXPECT(n, "Barray", 9, READ, 1, "8*NB", 3 * 8);
  EXPECT(n, "Carray", 12, READ, 1, "8*NB", 3 * 8);
  CHECK(str_is(libcall_flops("cublasSgemmBatched", args, nargs, A), "2*M*M*M*NB"),
        "flops of a pointer-array batch");
}

static void test_gemmex_dtypes(void) {
  reset_env();
  /* bf16 inputs, fp32 output; computeType and algo are not sizes */
  set_args(19, "h", "CUBLAS_OP_N", "CUBLAS_OP_N", "M", "N", "K", "&a", NULL, "CUDA_R_16BF", "M",
           NULL, "CUDA_R_16BF", "K", "&b", NULL, "CUDA_R_32F", "M", "CUBLAS_COMPUTE_32F",
           "CUBLAS_GEMM_DEFAULT");
  BIND({"M", 16}, {"N", 8}, {"K", 4});
  int n = run("cublasGemmEx");
  EXPECT(n, "A", 7, READ, 1, "2*M*K", 16 * 4 * 2);
  EXPECT(n, "B", 10, READ, 1, "2*K*N", 4 * 8 * 2);
  EXPECT(n, "C", 14, READWRITE, 1, "4*M*N", 16 * 8 * 4);

  /* folded values without a recognisable spelling: fp16 (2), double (1) */
  args[8] = (libcall_arg){sym_const(A, 2), "atype"};
  args[15] = (libcall_arg){sym_const(A, 1), "ctype"};
  n = run("cublasGemmEx");
  EXPECT(n, "A", 7, READ, 1, NULL, 16 * 4 * 2);
  EXPECT(n, "C", 14, READWRITE, 1, NULL, 16 * 8 * 8);

  /* int8 and complex float */
  args[8] = (libcall_arg){sym_var(A, "CUDA_R_8I"), "CUDA_R_8I"};
  args[15] = (libcall_arg){sym_var(A, "CUDA_C_32F"), "CUDA_C_32F"};
  n = run("cublasGemmEx");
  EXPECT(n, "A", 7, READ, 1, NULL, 16 * 4 * 1);
  EXPECT(n, "C", 14, READWRITE, 1, NULL, 16 * 8 * 8);

  /* a type held in a variable: element size unknown, so bytes unknown */
  args[11] = (libcall_arg){sym_var(A, "btype"), "btype"};
  n = run("cublasGemmEx");
  EXPECT(n, "B", 10, READ, 0, "unknown", -1);

  /* strided batched Ex: fp16 everywhere, batch L */
  set_args(23, "h", "CUBLAS_OP_T", "CUBLAS_OP_N", "M", "N", "K", "&a", NULL, "CUDA_R_16F", "K",
           "M*K", NULL, "CUDA_R_16F", "K", "K*N", "&b", NULL, "CUDA_R_16F", "M", "M*N", "L",
           "CUBLAS_COMPUTE_32F", "CUBLAS_GEMM_DEFAULT");
  BIND({"M", 16}, {"N", 8}, {"K", 4}, {"L", 3});
  n = run("cublasGemmStridedBatchedEx");
  EXPECT(n, "A", 7, READ, 1, NULL, 16 * 4 * 3 * 2);
  EXPECT(n, "B", 11, READ, 1, NULL, 4 * 8 * 3 * 2);
  EXPECT(n, "C", 16, READWRITE, 1, NULL, 16 * 8 * 3 * 2);
  CHECK(eval(libcall_flops("cublasGemmStridedBatchedEx", args, nargs, A)) == 2 * 16 * 8 * 4 * 3,
        "gemm flops with batch");
}

static void test_level12(void) {
  reset_env();
  /* y(m) = A(m x n) x(n), incx 2 */
  set_args(12, "h", "CUBLAS_OP_N", "M", "N", "&a", NULL, "M", NULL, "2", "&b", NULL, "1");
  BIND({"M", 10}, {"N", 6});
  int n = run("cublasSgemv");
  EXPECT(n, "A", 5, READ, 1, "4*M*N", 10 * 6 * 4);
  EXPECT(n, "x", 7, READ, 0, NULL, (1 + (6 - 1) * 2) * 4);
  EXPECT(n, "y", 10, READWRITE, 1, "4*M", 10 * 4);
  /* transposed: x has m entries, y n */
  args[1] = (libcall_arg){sym_const(A, 1), "CUBLAS_OP_T"};
  n = run("cublasSgemv");
  EXPECT(n, "x", 7, READ, 0, NULL, (1 + (10 - 1) * 2) * 4);
  EXPECT(n, "y", 10, READWRITE, 1, "4*N", 6 * 4);
  CHECK(eval(libcall_flops("cublasSgemv", args, nargs, A)) == 2 * 10 * 6, "gemv flops");

  /* axpy with a negative constant increment and a symbolic one */
  set_args(7, "h", "n", "&a", NULL, "-1", NULL, "incy");
  BIND({"n", 5}, {"incy", -3});
  n = run("cublasSaxpy");
  EXPECT(n, "x", 3, READ, 1, "4*n", 5 * 4);
  EXPECT(n, "y", 5, READWRITE, 0, NULL, (1 + 4 * 3) * 4);

  set_args(5, "h", "n", "&a", NULL, "1");
  n = run("cublasDscal_v2");
  EXPECT(n, "x", 3, READWRITE, 1, "8*n", 5 * 8);

  set_args(6, "h", "n", NULL, "1", NULL, "1");
  n = run("cublasScopy");
  EXPECT(n, "x", 2, READ, 1, NULL, 20);
  EXPECT(n, "y", 4, WRITE, 1, NULL, 20);

  /* geam: C = op(A) + op(B), C written without being read */
  set_args(13, "h", "CUBLAS_OP_T", "CUBLAS_OP_N", "M", "N", "&a", NULL, "N", "&b", NULL, "M", NULL,
           "M");
  BIND({"M", 3}, {"N", 7});
  n = run("cublasSgeam");
  EXPECT(n, "A", 6, READ, 1, "4*N*M", 84);
  EXPECT(n, "C", 11, WRITE, 1, NULL, 84);

  /* dgmm: x's length follows the side (the docs' example row) */
  set_args(10, "h", "CUBLAS_SIDE_RIGHT", "M", "N", NULL, "M", NULL, "1", NULL, "ldc");
  BIND({"M", 3}, {"N", 7}, {"ldc", 4});
  n = run("cublasSdgmm");
  EXPECT(n, "x", 6, READ, 1, "4*N", 28);
  EXPECT(n, "C", 8, WRITE, 0, NULL, (4 * 6 + 3) * 4);
  args[1] = (libcall_arg){sym_var(A, "CUBLAS_SIDE_LEFT"), "CUBLAS_SIDE_LEFT"};
  n = run("cublasSdgmm");
  EXPECT(n, "x", 6, READ, 1, "4*M", 12);
}

static void test_cublaslt(void) {
  reset_env();
  set_args(5, "&layout", "CUDA_R_16F", "M", "N", "M");
  BIND({"M", 64}, {"N", 32});
  int d = -1, dense = -1;
  sym *b = NULL;
  CHECK(libcall_descriptor_info("cublasLtMatrixLayoutCreate", args, nargs, A, &d, &b, &dense) == 0,
        "layout setter");
  CHECK(d == 0 && dense == 1 && str_is(b, "2*M*N"), "layout: arg %d dense %d", d, dense);
  args[4] = (libcall_arg){sym_var(A, "ld"), "ld"};
  libcall_descriptor_info("cublasLtMatrixLayoutCreate", args, nargs, A, &d, &b, &dense);
  CHECK(dense == 0 && str_is(b, "2*ld*N + 2*M - 2*ld") , "gapped layout dense %d", dense);

  /* matmul: A, B, C from their layouts, D written, workspace an upper bound */
  set_args(16, "lt", "op", "&a", NULL, "Ad", NULL, "Bd", "&b", NULL, "Cd", NULL, "Dd", "&algo",
           NULL, "ws_bytes", "stream");
  desc_table[4] = sym_parse(A, "2*M*K");
  desc_table[6] = sym_parse(A, "2*K*N");
  desc_table[9] = sym_parse(A, "2*M*N");
  desc_table[11] = sym_parse(A, "2*M*N");
  BIND({"M", 4}, {"N", 5}, {"K", 6}, {"ws_bytes", 4096});
  int n = run("cublasLtMatmul");
  CHECK(n == 5, "ltmatmul %d", n);
  EXPECT(n, "A", 3, READ, 1, "2*M*K", 48);
  EXPECT(n, "C", 8, READ, 1, NULL, 40);
  EXPECT(n, "D", 10, WRITE, 1, NULL, 40);
  /* scratch: clobbered, never read, so an exact write (LC_SCRATCH) */
  EXPECT(n, "workspace", 13, WRITE, 1, "ws_bytes", 4096);
  /* a gapped output layout makes D an upper bound; an unseen one unknown */
  desc_sparse[11] = 1;
  desc_table[6] = NULL;
  n = run("cublasLtMatmul");
  EXPECT(n, "D", 10, WRITE, 0, NULL, 40);
  EXPECT(n, "B", 5, READ, 0, "unknown", -1);
  /* no workspace: nothing to access */
  args[13] = (libcall_arg){sym_unknown(A), "NULL"};
  n = run("cublasLtMatmul");
  CHECK(n == 4 && find(n, "workspace") == NULL, "NULL workspace skipped (%d)", n);
  CHECK(libcall_find("cublasLtMatmul")->family == LIBCALL_CUBLASLT, "lt family");
  /* beta proven 0: C only blends into D, so it is not read */
  zero_beta_arg = 7;
  n = run("cublasLtMatmul");
  CHECK(find(n, "C") == NULL && find(n, "D") != NULL, "beta 0: C not read");
}

/* Note [cublasLt descriptors] (libcalls_cublaslt.c) */
static void test_cublaslt_descriptors(void) {
  reset_env();
  /* the layout setter keeps type, rows, cols, ld */
  set_args(5, "&l", "CUDA_R_16BF", "M", "N", "M");
  args[1].value = sym_const(A, 14);
  sym *kept[8];
  CHECK(libcall_descriptor_params("cublasLtMatrixLayoutCreate", args, nargs, kept, 8) == 4 &&
            str_is(kept[1], "M") && str_is(kept[3], "M"),
        "layout keeps type, rows, cols, ld");
  /* attribute slots, by value or by name */
  const char *slot = NULL;
  int ptr = -1;
  libcall_arg a5 = {sym_const(A, 5), "CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT"};
  CHECK(libcall_attr_slot("cublasLtMatrixLayoutSetAttribute", &a5, &slot, &ptr) == 1 &&
            !strcmp(slot, "batch") && ptr == 0,
        "batch count slot");
  libcall_arg a8 = {sym_unknown(A), "CUBLASLT_MATMUL_DESC_BIAS_POINTER"};
  CHECK(libcall_attr_slot("cublasLtMatmulDescSetAttribute", &a8, &slot, &ptr) == 1 &&
            !strcmp(slot, "bias") && ptr == 1,
        "bias pointer slot by name");
  libcall_arg a3 = {sym_const(A, 3), "CUBLASLT_MATMUL_DESC_TRANSA"};
  CHECK(libcall_attr_slot("cublasLtMatmulDescSetAttribute", &a3, &slot, &ptr) == 0,
        "transpose: not a memory attribute");
  CHECK(libcall_find("cublasLtMatmulDescSetAttribute")->flags == LIBCALL_DESCRIPTOR_ATTR,
        "attribute setter row");
  /* a batched layout: batch matrices stride elements apart */
  BIND({"M", 8}, {"N", 4}, {"H", 3});
  libcall_lt_layout l = {sym_const(A, 14), sym_var(A, "M"), sym_var(A, "N"), sym_var(A, "M"),
                         sym_var(A, "H"), sym_parse(A, "M*N")};
  sym *bytes = NULL;
  int dense = -1;
  CHECK(libcall_lt_layout_bytes(A, &l, &bytes, &dense) == 0 && eval(bytes) == 2 * 8 * 4 * 3 &&
            dense == 1,
        "packed batch: %lld dense %d", (long long)eval(bytes), dense);
  l.stride = NULL; /* cuBLASLt's default stride 0: every matrix the first, never dense */
  libcall_lt_layout_bytes(A, &l, &bytes, &dense);
  CHECK(eval(bytes) == 2 * 8 * 4 && dense == 0, "stride 0: %lld", (long long)eval(bytes));
  l.type = sym_unknown(A);
  CHECK(libcall_lt_layout_bytes(A, &l, &bytes, &dense) != 0, "unknown type: no extent");
  /* epilogues: GELU_AUX_BIAS reads m of bias, writes the aux (ld m) exactly */
  libcall_lt_epi e = {sym_const(A, 164), NULL, NULL, sym_var(A, "M"), NULL, NULL,
                      sym_var(A, "M"), sym_var(A, "N"), sym_const(A, 14), NULL, 1, 1};
  libcall_access ea[2];
  int n = libcall_lt_epilogue(A, &e, ea);
  CHECK(n == 2 && !strcmp(ea[0].role, "bias") && ea[0].mode == ACCESS_READ &&
            eval(ea[0].bytes) == 16 && !strcmp(ea[1].role, "aux") && ea[1].mode == ACCESS_WRITE &&
            ea[1].exact == 1 && eval(ea[1].bytes) == 2 * 8 * 4,
        "gelu aux bias");
  /* DGELU reads the aux; BGRADB writes n of bias */
  e.epilogue = sym_const(A, 192);
  e.has_bias = 0;
  n = libcall_lt_epilogue(A, &e, ea);
  CHECK(n == 1 && ea[0].mode == ACCESS_READ && ea[0].exact == 0, "dgelu reads aux");
  e.epilogue = sym_const(A, 512);
  e.has_bias = 1;
  e.has_aux = 0;
  n = libcall_lt_epilogue(A, &e, ea);
  CHECK(n == 1 && ea[0].mode == ACCESS_WRITE && eval(ea[0].bytes) == 8, "bgradb writes n");
  /* BIAS only: the aux pointer, if set, is not touched */
  e.epilogue = sym_const(A, 4);
  e.has_aux = 1;
  n = libcall_lt_epilogue(A, &e, ea);
  CHECK(n == 1 && !strcmp(ea[0].role, "bias"), "bias epilogue leaves aux alone");
  /* an epilogue not known: both read and written */
  e.epilogue = sym_unknown(A);
  n = libcall_lt_epilogue(A, &e, ea);
  CHECK(n == 2 && ea[0].mode == ACCESS_READWRITE && ea[1].mode == ACCESS_READWRITE &&
            !ea[0].exact && !ea[1].exact,
        "unknown epilogue");
}

/* ---- cuDNN ---- */

static void test_cudnn_setters(void) {
  int d = -1, dense = -1;
  sym *b = NULL;
  set_args(7, "xdesc", "CUDNN_TENSOR_NCHW", "CUDNN_DATA_HALF", "N", "C", "H", "W");
  BIND({"N", 2}, {"C", 3}, {"H", 5}, {"W", 7});
  CHECK(libcall_descriptor_setter("cudnnSetTensor4dDescriptor", args, nargs, A, &d, &b) == 0,
        "4d setter");
  CHECK(d == 0 && str_is(b, "2*N*C*H*W") && eval(b) == 2 * 3 * 5 * 7 * 2, "4d bytes");

  set_args(7, "wdesc", "CUDNN_DATA_FLOAT", "CUDNN_TENSOR_NCHW", "K", "C", "R", "S");
  BIND({"K", 8}, {"C", 3}, {"R", 3}, {"S", 3});
  CHECK(libcall_descriptor_info("cudnnSetFilter4dDescriptor", args, nargs, A, &d, &b, &dense) == 0,
        "filter setter");
  CHECK(d == 0 && dense == 1 && eval(b) == 8 * 27 * 4, "filter bytes %lld", (long long)eval(b));

  /* Ex with packed NCHW strides is dense */
  set_args(10, "desc", "CUDNN_DATA_FLOAT", "N", "C", "H", "W", "C*H*W", "H*W", "W", "1");
  BIND({"N", 2}, {"C", 3}, {"H", 5}, {"W", 7});
  libcall_descriptor_info("cudnnSetTensor4dDescriptorEx", args, nargs, A, &d, &b, &dense);
  CHECK(dense == 1 && eval(b) == 2 * 3 * 5 * 7 * 4, "Ex packed");
  /* NHWC packing too */
  set_args(10, "desc", "CUDNN_DATA_FLOAT", "N", "C", "H", "W", "H*W*C", "1", "W*C", "C");
  libcall_descriptor_info("cudnnSetTensor4dDescriptorEx", args, nargs, A, &d, &b, &dense);
  CHECK(dense == 1 && eval(b) == 2 * 3 * 5 * 7 * 4, "Ex NHWC packed");
  /* a channel slice of a 2C-channel buffer: gaps, extent to the last element */
  set_args(10, "desc", "CUDNN_DATA_FLOAT", "N", "C", "H", "W", "2*C*H*W", "H*W", "W", "1");
  libcall_descriptor_info("cudnnSetTensor4dDescriptorEx", args, nargs, A, &d, &b, &dense);
  CHECK(dense == 0 && eval(b) == ((2 - 1) * 2 * 3 * 35 + 2 * 35 + 4 * 7 + 6 + 1) * 4,
        "Ex gapped: dense %d bytes %lld", dense, (long long)eval(b));

  /* Nd: dims live in an array: known setter, unknown bytes */
  set_args(5, "desc", "CUDNN_DATA_FLOAT", "3", "dims", "strides");
  CHECK(libcall_descriptor_info("cudnnSetTensorNdDescriptor", args, nargs, A, &d, &b, &dense) == 0,
        "Nd setter");
  CHECK(d == 0 && sym_is_unknown(b) && dense == 0, "Nd unknown");

  CHECK(libcall_descriptor_setter("cudnnConvolutionForward", args, nargs, A, &d, &b) == -1,
        "an op is not a setter");
}

/* Setters keep their parameters; cudnnGetConvolution2dForwardOutputDim
 * computes the output shape from the three descriptors' parameters. */
static void test_cudnn_conv_output_dims(void) {
  /* kept: a tensor's (dataType, n, c, h, w), a filter's (dataType, format,
   * k, c, h, w) */
  sym *x[5], *w[6], *cv[6];
  set_args(7, "xdesc", "CUDNN_TENSOR_NCHW", "0", "N", "C", "H", "W");
  CHECK(libcall_descriptor_params("cudnnSetTensor4dDescriptor", args, nargs, x, 5) == 5,
        "tensor params");
  set_args(7, "wdesc", "0", "CUDNN_TENSOR_NCHW", "K", "C", "R", "S");
  CHECK(libcall_descriptor_params("cudnnSetFilter4dDescriptor", args, nargs, w, 6) == 6,
        "filter params");
  set_args(9, "cdesc", "P", "Q", "U", "V", "DH", "DW", "CUDNN_CROSS_CORRELATION",
           "CUDNN_DATA_FLOAT");
  CHECK(libcall_descriptor_params("cudnnSetConvolution2dDescriptor", args, nargs, cv, 6) == 6,
        "conv params");
  set_args(5, "desc", "CUDNN_DATA_FLOAT", "3", "dims", "strides");
  sym *none[4];
  CHECK(libcall_descriptor_params("cudnnSetTensorNdDescriptor", args, nargs, none, 4) == 0,
        "Nd: no parameters kept");
  CHECK(libcall_descriptor_params("cudnnConvolutionForward", args, nargs, none, 4) == -1,
        "not a setter");

  int da[LIBCALL_QUERY_MAX], oa[LIBCALL_QUERY_MAX], nd = 0, no = 0;
  CHECK(libcall_query_args("cudnnGetConvolution2dForwardOutputDim", da, &nd, oa, &no) == 0 &&
            nd == 3 && da[0] == 0 && da[1] == 1 && da[2] == 2 && no == 4 && oa[0] == 3 &&
            oa[3] == 6,
        "query arguments");
  sym *const *params[3] = {cv, x, w};
  int np[3] = {6, 5, 6};
  sym *out[4];
  CHECK(libcall_query_eval("cudnnGetConvolution2dForwardOutputDim", params, np, A, out) == 0,
        "query eval");
  /* 28x28 input, 5x5 filter, pad 0, stride 1: 24x24; pad 2, stride 2,
   * dilation 2 on 28 with 3x3: 1 + (28 + 4 - 5) / 2 = 14 */
  BIND({"N", 64}, {"C", 1}, {"H", 28}, {"W", 28}, {"K", 20}, {"R", 5}, {"S", 5}, {"P", 0},
       {"Q", 0}, {"U", 1}, {"V", 1}, {"DH", 1}, {"DW", 1});
  CHECK(eval(out[0]) == 64 && eval(out[1]) == 20 && eval(out[2]) == 24 && eval(out[3]) == 24,
        "lenet conv1 shape %lld %lld %lld %lld", (long long)eval(out[0]), (long long)eval(out[1]),
        (long long)eval(out[2]), (long long)eval(out[3]));
  BIND({"N", 1}, {"C", 1}, {"H", 28}, {"W", 30}, {"K", 8}, {"R", 3}, {"S", 3}, {"P", 2},
       {"Q", 2}, {"U", 2}, {"V", 2}, {"DH", 2}, {"DW", 1});
  CHECK(eval(out[2]) == 14 && eval(out[3]) == 1 + (30 + 4 - 3) / 2, "padded strided dilated");
  /* a descriptor whose parameters are not known: unknown outputs */
  int np_none[3] = {6, 0, 6};
  CHECK(libcall_query_eval("cudnnGetConvolution2dForwardOutputDim", params, np_none, A, out) == 0 &&
            sym_is_unknown(out[0]) && sym_is_unknown(out[2]) && !sym_is_unknown(out[1]),
        "unknown input descriptor");

  /* Note [workspace sizes]: the three workspace queries read (conv, x,
   * filter, y) whatever their own argument order, and answer the GEMM
   * algorithm's im2col buffer: n*oh*ow rows by c*r*s columns of x's type */
  CHECK(libcall_query_args("cudnnGetConvolutionForwardWorkspaceSize", da, &nd, oa, &no) == 0 &&
            nd == 4 && da[0] == 3 && da[1] == 1 && da[2] == 2 && da[3] == 4 && no == 1 &&
            oa[0] == 6,
        "forward workspace query arguments");
  CHECK(libcall_query_args("cudnnGetConvolutionBackwardFilterWorkspaceSize", da, &nd, oa, &no) ==
                0 && nd == 4 && da[0] == 3 && da[1] == 1 && da[2] == 4 && da[3] == 2,
        "backward filter workspace query arguments");
  CHECK(libcall_query_args("cudnnGetConvolutionBackwardDataWorkspaceSize", da, &nd, oa, &no) ==
                0 && nd == 4 && da[0] == 3 && da[1] == 4 && da[2] == 1 && da[3] == 2,
        "backward data workspace query arguments");
  sym *y[5];
  set_args(7, "ydesc", "CUDNN_TENSOR_NCHW", "0", "N", "K", "OH", "OW");
  libcall_descriptor_params("cudnnSetTensor4dDescriptor", args, nargs, y, 5);
  sym *const *wsp[4] = {cv, x, w, y};
  int wnp[4] = {6, 5, 6, 5};
  CHECK(libcall_query_eval("cudnnGetConvolutionForwardWorkspaceSize", wsp, wnp, A, out) == 0,
        "workspace eval");
  BIND({"N", 64}, {"C", 1}, {"H", 28}, {"W", 28}, {"K", 20}, {"R", 5}, {"S", 5}, {"OH", 24},
       {"OW", 24});
  CHECK(eval(out[0]) == 4LL * 64 * 24 * 24 * 1 * 5 * 5, "lenet conv1 workspace %lld",
        (long long)eval(out[0]));
  /* half precision: 2 bytes an element; an unknown type: no answer */
  set_args(7, "xdesc", "CUDNN_TENSOR_NCHW", "2", "N", "C", "H", "W");
  libcall_descriptor_params("cudnnSetTensor4dDescriptor", args, nargs, x, 5);
  libcall_query_eval("cudnnGetConvolutionForwardWorkspaceSize", wsp, wnp, A, out);
  CHECK(eval(out[0]) == 2LL * 64 * 24 * 24 * 1 * 5 * 5, "half workspace %lld",
        (long long)eval(out[0]));
  set_args(7, "xdesc", "CUDNN_TENSOR_NCHW", "dtype", "N", "C", "H", "W");
  libcall_descriptor_params("cudnnSetTensor4dDescriptor", args, nargs, x, 5);
  libcall_query_eval("cudnnGetConvolutionForwardWorkspaceSize", wsp, wnp, A, out);
  CHECK(sym_is_unknown(out[0]), "a data type the model does not know: unknown");
}

static void test_cudnn_ops(void) {
  reset_env();
  set_args(13, "h", "&one", "xd", NULL, "wd", NULL, "convd", "algo", NULL, "ws_size", "&zero",
           "yd", NULL);
  desc_table[2] = sym_parse(A, "4*N*C*H*W");
  desc_table[4] = sym_parse(A, "K*C*R*S*4");
  desc_table[11] = sym_parse(A, "N*K*P*Q*4");
  BIND({"N", 2}, {"C", 3}, {"H", 8}, {"W", 8}, {"K", 4}, {"R", 3}, {"S", 3}, {"P", 6}, {"Q", 6},
       {"ws_size", 1000});
  int n = run("cudnnConvolutionForward");
  CHECK(n == 4, "conv fwd %d", n);
  EXPECT(n, "x", 3, READ, 1, "4*N*C*H*W", 2 * 3 * 64 * 4);
  EXPECT(n, "w", 5, READ, 1, NULL, 4 * 3 * 9 * 4);
  EXPECT(n, "workspace", 8, WRITE, 1, "ws_size", 1000);
  EXPECT(n, "y", 12, READWRITE, 1, NULL, 2 * 4 * 36 * 4);
  zero_beta_arg = 10;
  n = run("cudnnConvolutionForward");
  EXPECT(n, "y", 12, WRITE, 1, NULL, 2 * 4 * 36 * 4);
  CHECK(sym_is_unknown(libcall_flops("cudnnConvolutionForward", args, nargs, A)),
        "conv flops unknown");
  /* without a descriptor callback nothing is known */
  env.descriptor_bytes = NULL;
  n = run("cudnnConvolutionForward");
  EXPECT(n, "x", 3, READ, 0, "unknown", -1);

  reset_env();
  /* backward filter: dw blended with beta; flagged nondeterministic */
  set_args(13, "h", "&one", "xd", NULL, "dyd", NULL, "convd", "algo", NULL, "0", "&one", "dwd", NULL);
  desc_table[11] = sym_parse(A, "4*K");
  BIND({"K", 9});
  n = run("cudnnConvolutionBackwardFilter");
  EXPECT(n, "dw", 12, READWRITE, 1, "4*K", 36);
  CHECK(libcall_find("cudnnConvolutionBackwardFilter")->flags & LIBCALL_NONDETERMINISTIC,
        "bwd filter nondeterministic");
  CHECK(!(libcall_find("cudnnConvolutionForward")->flags & LIBCALL_NONDETERMINISTIC),
        "fwd conv deterministic");

  /* batch norm forward training with the saved statistics omitted */
  set_args(17, "h", "CUDNN_BATCHNORM_SPATIAL", "&one", "&zero", "xd", NULL, "yd", NULL, "bnd", NULL,
           NULL, "0.1", NULL, NULL, "1e-5", "NULL", "nullptr");
  desc_table[4] = desc_table[6] = sym_parse(A, "N*C*4");
  desc_table[8] = sym_parse(A, "4*C");
  BIND({"N", 10}, {"C", 3});
  n = run("cudnnBatchNormalizationForwardTraining");
  CHECK(n == 6, "bn fwd with NULL saves: %d", n);
  EXPECT(n, "running_mean", 12, READWRITE, 1, "4*C", 12);
  EXPECT(n, "y", 7, READWRITE, 1, NULL, 120);
  CHECK(find(n, "save_mean") == NULL, "NULL saved mean skipped");
  args[15] = (libcall_arg){sym_unknown(A), "save_mean"};
  n = run("cudnnBatchNormalizationForwardTraining");
  EXPECT(n, "save_mean", 15, WRITE, 1, NULL, 12);

  /* add tensor: C = alpha*A + beta*C */
  set_args(7, "h", "&one", "ad", NULL, "&one", "cd", NULL);
  desc_table[2] = sym_parse(A, "4*C");
  desc_table[5] = sym_parse(A, "N*C*4");
  n = run("cudnnAddTensor");
  EXPECT(n, "A", 3, READ, 1, NULL, 12);
  EXPECT(n, "C", 6, READWRITE, 1, NULL, 120);

  /* softmax and activation backward read three tensors */
  set_args(12, "h", "act", "&one", "yd", NULL, "dyd", NULL, "xd", NULL, "&zero", "dxd", NULL);
  desc_table[3] = desc_table[5] = desc_table[7] = desc_table[10] = sym_parse(A, "N*C*4");
  n = run("cudnnActivationBackward");
  CHECK(n == 4, "act bwd %d", n);
  EXPECT(n, "x", 8, READ, 1, NULL, 120);
  EXPECT(n, "dx", 11, READWRITE, 1, NULL, 120);
}

/* ---- NCCL ---- */

static void test_nccl(void) {
  reset_env();
  set_args(7, "grads", "grads", "count", "ncclFloat", "ncclSum", "comm", "stream");
  BIND({"count", 1000});
  int n = run("ncclAllReduce");
  CHECK(n == 2, "allreduce %d", n);
  EXPECT(n, "send", 0, READ, 1, "4*count", 4000);
  EXPECT(n, "recv", 1, WRITE, 1, "4*count", 4000);
  CHECK(libcall_find("ncclAllReduce")->flags & LIBCALL_NONDETERMINISTIC, "allreduce nondet");
  CHECK(libcall_find("ncclAllReduce")->family == LIBCALL_NCCL, "nccl family");
  CHECK(eval(libcall_flops("ncclAllReduce", args, nargs, A)) == 0, "nccl flops 0");

  args[3] = (libcall_arg){sym_const(A, 9), "ncclBfloat16"};
  n = run("ncclAllReduce");
  EXPECT(n, "recv", 1, WRITE, 1, NULL, 2000);

  /* all-gather: the receive holds count*nranks, which the call does not say */
  set_args(6, "shard", "full", "count", "ncclHalf", "comm", "stream");
  n = run("ncclAllGather");
  EXPECT(n, "send", 0, READ, 1, NULL, 2000);
  EXPECT(n, "recv", 1, WRITE, 0, "unknown", -1);

  set_args(7, "full", "shard", "count", "ncclDouble", "ncclSum", "comm", "stream");
  n = run("ncclReduceScatter");
  EXPECT(n, "send", 0, READ, 0, "unknown", -1);
  EXPECT(n, "recv", 1, WRITE, 1, NULL, 8000);

  set_args(6, "buf", "count", "ncclInt64", "peer", "comm", "stream");
  n = run("ncclRecv");
  EXPECT(n, "recv", 0, WRITE, 1, NULL, 8000);
  /* a data type the model cannot read */
  set_args(6, "buf", "count", "dt", "peer", "comm", "stream");
  n = run("ncclSend");
  EXPECT(n, "send", 0, READ, 0, "unknown", -1);
}

/* ---- cudart ---- */

static void test_memcpy_kinds(void) {
  reset_env();
  BIND({"n", 256});
  set_args(4, "d_x", "h_x", "n*sizeof(float)", "cudaMemcpyHostToDevice");
  args[2].value = sym_parse(A, "4*n"); /* the walker folds sizeof */
  int n = run("cudaMemcpy");
  CHECK(n == 1, "H2D: one device access, got %d", n);
  EXPECT(n, "dst", 0, WRITE, 1, "4*n", 1024);

  args[3] = (libcall_arg){sym_const(A, 2), "cudaMemcpyDeviceToHost"};
  n = run("cudaMemcpy");
  CHECK(n == 1, "D2H: %d", n);
  EXPECT(n, "src", 1, READ, 1, NULL, 1024);

  set_args(5, "d_y", "d_x", "4*n", "cudaMemcpyDeviceToDevice", "stream");
  n = run("cudaMemcpyAsync");
  CHECK(n == 2, "D2D: %d", n);
  EXPECT(n, "dst", 0, WRITE, 1, NULL, 1024);
  EXPECT(n, "src", 1, READ, 1, NULL, 1024);

  /* Default (UVA) and an unreadable kind: both sides maybe, not exact */
  args[3] = (libcall_arg){sym_var(A, "cudaMemcpyDefault"), "cudaMemcpyDefault"};
  n = run("cudaMemcpyAsync");
  CHECK(n == 2, "Default: %d", n);
  EXPECT(n, "dst", 0, WRITE, 0, NULL, 1024);
  EXPECT(n, "src", 1, READ, 0, NULL, 1024);
  args[3] = (libcall_arg){sym_var(A, "kind"), "kind"};
  n = run("cudaMemcpyAsync");
  EXPECT(n, "dst", 0, WRITE, 0, NULL, 1024);

  set_args(4, "h_y", "h_x", "n", "cudaMemcpyHostToHost");
  CHECK(run("cudaMemcpy") == 0, "H2H: no device access");

  /* 2-D: 5 rows of 100 bytes, destination pitch 128 */
  set_args(7, "d", "128", "h", "100", "100", "5", "cudaMemcpyHostToDevice");
  n = run("cudaMemcpy2D");
  CHECK(n == 1, "2D H2D: %d", n);
  EXPECT(n, "dst", 0, WRITE, 0, NULL, 128 * 4 + 100);
}

static void test_memset_and_allocs(void) {
  reset_env();
  set_args(3, "d_grad", "0", "P*sizeof(float)");
  args[2].value = sym_parse(A, "4*P");
  BIND({"P", 10});
  int n = run("cudaMemset");
  CHECK(n == 1, "memset %d", n);
  EXPECT(n, "dst", 0, WRITE, 1, "4*P", 40);
  set_args(4, "d_grad", "0", "bytes", "stream");
  n = run("cudaMemsetAsync");
  EXPECT(n, "dst", 0, WRITE, 1, "bytes", -1);
  /* C++ default stream argument omitted by the walker: still modelled */
  nargs = 3;
  CHECK(run("cudaMemsetAsync") == 1, "defaulted trailing argument");
  nargs = 2;
  CHECK(run("cudaMemsetAsync") == -1, "count missing");

  int p = -2, s = -2;
  CHECK(libcall_alloc_info("cudaMalloc", &p, &s) == 0 && p == 0 && s == 1, "cudaMalloc");
  CHECK(libcall_alloc_info("cudaMallocAsync", &p, &s) == 0 && p == 0 && s == 1, "cudaMallocAsync");
  CHECK(libcall_alloc_info("cudaFree", &p, &s) == 0 && p == 0 && s == -1, "cudaFree");
  CHECK(libcall_alloc_info("cudaFreeAsync", &p, &s) == 0 && p == 0, "cudaFreeAsync");
  CHECK(libcall_alloc_info("cudaMemcpy", &p, &s) == -1, "memcpy is no allocation");
  const libcall_info *i = libcall_find("cudaMallocHost");
  CHECK(i && (i->flags & LIBCALL_ALLOC) && (i->flags & LIBCALL_HOST_ALLOC), "pinned host alloc");
  i = libcall_find("cudaHostAlloc");
  CHECK(i && (i->flags & LIBCALL_HOST_ALLOC), "cudaHostAlloc host");
  i = libcall_find("cudaMalloc");
  CHECK(i && !(i->flags & LIBCALL_HOST_ALLOC) && !(i->flags & LIBCALL_OP), "device alloc");
  i = libcall_find("cudaMallocManaged");
  CHECK(i && (i->flags & LIBCALL_MANAGED), "managed");
  set_args(2, "&p", "n");
  CHECK(run("cudaMalloc") == -1, "allocations are not ops");
}

static void test_api_edges(void) {
  reset_env();
  CHECK(libcall_find("myKernelWrapper") == NULL, "unmodelled");
  CHECK(libcall_find(NULL) == NULL, "NULL callee");
  set_args(3, "a", "b", "c");
  CHECK(run("printf") == -1, "unmodelled call is not an op");
  CHECK(run("cublasSgemm") == -1, "too few arguments");
  CHECK(libcall_flops("printf", args, nargs, A) == NULL, "flops of unmodelled");
  /* suffix forms share a row */
  CHECK(libcall_find("cublasSgemm_v2_64") == libcall_find("cublasSgemm"), "_v2_64");
  CHECK(libcall_find("cublasSgemm_v2") == libcall_find("cublasSgemm"), "_v2");
  CHECK(strcmp(libcall_family_name(LIBCALL_CUDNN), "cudnn") == 0, "family name");
  /* max smaller than the access count: count returned, max written */
  set_args(14, "h", "CUBLAS_OP_N", "CUBLAS_OP_N", "2", "2", "2", "&a", NULL, "2", NULL, "2", "&b",
           NULL, "2");
  libcall_access one_acc[1];
  CHECK(libcall_accesses("cublasSgemm", args, nargs, &env, one_acc, 1) == 3, "count beyond max");
  CHECK(strcmp(one_acc[0].role, "A") == 0, "first access written");
}

/* Every row: argument indices inside the signature, unique names, the
 * flags consistent with what the row carries. */
static void test_tables_consistent(void) {
  const libcalls_row *tables[] = {libcalls_cudart_rows, libcalls_cublas_rows, libcalls_cudnn_rows,
                                  libcalls_nccl_rows};
  int rows = 0;
  for (int t = 0; t < 4; t++)
    for (const libcalls_row *r = tables[t]; r->info.name; r++) {
      rows++;
      const char *nm = r->info.name;
      int na = r->info.nargs;
      CHECK(libcall_find(nm) == &r->info, "%s: lookup finds another row (duplicate name?)", nm);
      unsigned f = r->info.flags;
      CHECK(!!(f & LIBCALL_OP) + !!(f & (LIBCALL_ALLOC | LIBCALL_FREE)) +
                    !!(f & LIBCALL_DESCRIPTOR_SETTER) + !!(f & LIBCALL_DESCRIPTOR_QUERY) +
                    !!(f & LIBCALL_DESCRIPTOR_ATTR) == 1,
            "%s: exactly one of op/alloc/setter/query/attribute", nm);
      if (f & LIBCALL_DESCRIPTOR_SETTER)
        CHECK(r->n_dims == 0 || (r->dims_first > r->sp[0] && r->dims_first + r->n_dims <= na),
              "%s: kept parameters %d..+%d", nm, r->dims_first, r->n_dims);
      if (f & LIBCALL_DESCRIPTOR_QUERY) {
        CHECK(r->query && r->n_dims > 0 && r->n_dims <= LIBCALL_QUERY_MAX && r->n_out > 0 &&
                  r->n_out <= LIBCALL_QUERY_MAX && r->out_first >= 0 &&
                  r->out_first + r->n_out <= na,
              "%s: query arguments", nm);
        for (int k = 0; k < r->n_dims; k++)
          CHECK(r->sp[k] >= 0 && r->sp[k] < na, "%s: query descriptor %d", nm, k);
      }
      if (f & LIBCALL_OP) CHECK(r->acc[0].role != NULL, "%s: an op with no access", nm);
      for (const libcalls_acc *x = r->acc; x->role; x++) {
        CHECK(x->arg >= 0 && x->arg < na, "%s/%s: pointer arg %d of %d", nm, x->role, x->arg, na);
        CHECK(x->aux < na, "%s/%s: aux %d", nm, x->role, x->aux);
        CHECK(x->size != NULL, "%s/%s: no size formula", nm, x->role);
        for (int k = 0; k < LIBCALLS_NP; k++)
          CHECK(x->p[k] < na, "%s/%s: p[%d] = %d", nm, x->role, k, x->p[k]);
        if (x->elem <= 0) CHECK(-x->elem % LIBCALLS_DT_SCALE < na, "%s/%s: dtype arg", nm, x->role);
        for (const libcalls_acc *y = r->acc; y != x; y++)
          CHECK(strcmp(x->role, y->role) != 0 || x->arg != y->arg, "%s: duplicate %s", nm, x->role);
      }
      if (f & LIBCALL_DESCRIPTOR_SETTER)
        CHECK(r->setter && r->sp[0] >= 0 && r->sp[0] < na, "%s: setter descriptor arg", nm);
      if (f & (LIBCALL_ALLOC | LIBCALL_FREE))
        CHECK(r->alloc_ptr >= 0 && r->alloc_ptr < na && r->alloc_size < na, "%s: alloc args", nm);
      if (f & LIBCALL_FREE) CHECK(r->alloc_size == -1, "%s: a free has no size", nm);
    }
  CHECK(rows > 80, "only %d rows", rows);
}

int main(void) {
  A = sym_arena_create();
  test_sgemm();
  test_sgemm_ld_and_unknown_trans();
  test_strided_batched();
  test_pointer_array_batched();
  test_gemmex_dtypes();
  test_level12();
  test_cublaslt();
  test_cublaslt_descriptors();
  test_cudnn_setters();
  test_cudnn_conv_output_dims();
  test_cudnn_ops();
  test_nccl();
  test_memcpy_kinds();
  test_memset_and_allocs();
  test_api_edges();
  test_tables_consistent();
  sym_arena_destroy(A);
  printf("%d checks, %d failures\n", checks, failures);
  return failures ? 1 : 0;
}
