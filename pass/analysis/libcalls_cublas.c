/* libcalls_cublas.c - the cuBLAS and cublasLt rows.
 *
 * cuBLAS is column-major: an m x k operand stored untransposed spans
 * lda*(k-1)+m elements from its pointer, transposed lda*(m-1)+k
 * (libcalls_size_matrix).  C is READWRITE with beta as .aux: beta points at
 * a host scalar we cannot see, so C is read-modify-written unless the
 * walker proves beta == 0 (libcall_env.scalar_is_zero).  One macro per
 * routine shape instantiates the S/D/H/C/Z precisions.  cublasLt sizes
 * come from the matrix layouts (cublasLtMatrixLayoutCreate is a descriptor
 * setter).  Signatures: CUDA 13 cublas_api.h, cublasLt.h. */
#include "analysis/libcalls_table.h"

/* cublas<t>gemm(h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc) */
#define GEMM(name, e)                                                              \
  LC_OP_ROW(name, CUBLAS, 14, 0, libcalls_flops_gemm, LC_FP(3, 4, 5, -1),          \
            LC_MAT("A", 7, READ, LC_E(e), 1, 3, 5, 8, -1, -1, -1),                 \
            LC_MAT("B", 9, READ, LC_E(e), 2, 5, 4, 10, -1, -1, -1),                \
            LC_MAT("C", 12, READWRITE, LC_E(e), -1, 3, 4, 13, -1, -1, 11))
/* cublas<t>gemmStridedBatched(h, ta, tb, m, n, k, alpha, A, lda, strideA,
 *   B, ldb, strideB, beta, C, ldc, strideC, batchCount) */
#define GEMM_SB(name, e)                                                           \
  LC_OP_ROW(name, CUBLAS, 18, 0, libcalls_flops_gemm, LC_FP(3, 4, 5, 17),          \
            LC_MAT("A", 7, READ, LC_E(e), 1, 3, 5, 8, 9, 17, -1),                  \
            LC_MAT("B", 10, READ, LC_E(e), 2, 5, 4, 11, 12, 17, -1),               \
            LC_MAT("C", 14, READWRITE, LC_E(e), -1, 3, 4, 15, 16, 17, 13))
/* cublas<t>gemmBatched(h, ta, tb, m, n, k, alpha, Aarray, lda, Barray,
 *   ldb, beta, Carray, ldc, batchCount): the three device arrays of
 *   batchCount pointers.  The matrices behind them are cublas<t>gemm's A, B
 *   and C (the same argument positions), declared by the interpreter when
 *   it knows which host array was copied into each device array
 *   (opsites.c, Note [pointer-array batches]). */
#define GEMM_PB(name)                                                              \
  LC_OP_ROW(name, CUBLAS, 15, 0, libcalls_flops_gemm, LC_FP(3, 4, 5, 14),          \
            LC_CNT("Aarray", 7, READ, LC_E(8), 14, 0),                             \
            LC_CNT("Barray", 9, READ, LC_E(8), 14, 0),                             \
            LC_CNT("Carray", 12, READ, LC_E(8), 14, 0))
/* cublas<t>gemv(h, trans, m, n, alpha, A, lda, x, incx, beta, y, incy) */
#define GEMV(name, e)                                                              \
  LC_OP_ROW(name, CUBLAS, 12, 0, libcalls_flops_mn, LC_FP(2, 3, 2),                \
            LC_MAT("A", 5, READ, LC_E(e), -1, 2, 3, 6, -1, -1, -1),                \
            LC_VECOP("x", 7, READ, LC_E(e), 1, 3, 2, 8, -1),                       \
            LC_VECOP("y", 10, READWRITE, LC_E(e), 1, 2, 3, 11, 9))
/* cublas<t>geam(h, ta, tb, m, n, alpha, A, lda, beta, B, ldb, C, ldc) */
#define GEAM(name, e)                                                              \
  LC_OP_ROW(name, CUBLAS, 13, 0, libcalls_flops_mn, LC_FP(3, 4, 3),                \
            LC_MAT("A", 6, READ, LC_E(e), 1, 3, 4, 7, -1, -1, -1),                 \
            LC_MAT("B", 9, READ, LC_E(e), 2, 3, 4, 10, -1, -1, -1),                \
            LC_MAT("C", 11, WRITE, LC_E(e), -1, 3, 4, 12, -1, -1, -1))
/* cublas<t>axpy(h, n, alpha, x, incx, y, incy) */
#define AXPY(name, e)                                                              \
  LC_OP_ROW(name, CUBLAS, 7, 0, libcalls_flops_n, LC_FP(1, 2),                     \
            LC_VEC("x", 3, READ, LC_E(e), 1, 4, -1),                               \
            LC_VEC("y", 5, READWRITE, LC_E(e), 1, 6, -1))
/* cublas<t>scal(h, n, alpha, x, incx) */
#define SCAL(name, e)                                                              \
  LC_OP_ROW(name, CUBLAS, 5, 0, libcalls_flops_n, LC_FP(1, 1),                     \
            LC_VEC("x", 3, READWRITE, LC_E(e), 1, 4, -1))
/* cublas<t>copy(h, n, x, incx, y, incy) */
#define COPY(name, e)                                                              \
  LC_OP_ROW(name, CUBLAS, 6, 0, libcalls_flops_zero, LC_NOP,                       \
            LC_VEC("x", 2, READ, LC_E(e), 1, 3, -1),                               \
            LC_VEC("y", 4, WRITE, LC_E(e), 1, 5, -1))
/* cublas<t>dot(h, n, x, incx, y, incy, result): result is a host pointer
 * in the default CUBLAS_POINTER_MODE_HOST and is not modelled. */
#define DOT(name, e)                                                               \
  LC_OP_ROW(name, CUBLAS, 7, 0, libcalls_flops_n, LC_FP(1, 2),                     \
            LC_VEC("x", 2, READ, LC_E(e), 1, 3, -1),                               \
            LC_VEC("y", 4, READ, LC_E(e), 1, 5, -1))

const libcalls_row libcalls_cublas_rows[] = {
    GEMM("cublasSgemm", 4), GEMM("cublasDgemm", 8), GEMM("cublasHgemm", 2),
    GEMM("cublasCgemm", 8), GEMM("cublasZgemm", 16),
    GEMM_SB("cublasSgemmStridedBatched", 4), GEMM_SB("cublasDgemmStridedBatched", 8),
    GEMM_SB("cublasHgemmStridedBatched", 2), GEMM_SB("cublasCgemmStridedBatched", 8),
    GEMM_SB("cublasZgemmStridedBatched", 16),
    GEMM_PB("cublasSgemmBatched"), GEMM_PB("cublasDgemmBatched"), GEMM_PB("cublasHgemmBatched"),
    GEMM_PB("cublasCgemmBatched"), GEMM_PB("cublasZgemmBatched"),
    /* cublasSgemmEx(h, ta, tb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb,
     *   beta, C, Ctype, ldc) */
    LC_OP_ROW("cublasSgemmEx", CUBLAS, 17, 0, libcalls_flops_gemm, LC_FP(3, 4, 5, -1),
              LC_MAT("A", 7, READ, LC_DT(8, CUDA), 1, 3, 5, 9, -1, -1, -1),
              LC_MAT("B", 10, READ, LC_DT(11, CUDA), 2, 5, 4, 12, -1, -1, -1),
              LC_MAT("C", 14, READWRITE, LC_DT(15, CUDA), -1, 3, 4, 16, -1, -1, 13)),
    /* cublasGemmEx(... the same ..., computeType, algo) */
    LC_OP_ROW("cublasGemmEx", CUBLAS, 19, 0, libcalls_flops_gemm, LC_FP(3, 4, 5, -1),
              LC_MAT("A", 7, READ, LC_DT(8, CUDA), 1, 3, 5, 9, -1, -1, -1),
              LC_MAT("B", 10, READ, LC_DT(11, CUDA), 2, 5, 4, 12, -1, -1, -1),
              LC_MAT("C", 14, READWRITE, LC_DT(15, CUDA), -1, 3, 4, 16, -1, -1, 13)),
    /* cublasGemmStridedBatchedEx(h, ta, tb, m, n, k, alpha, A, Atype, lda,
     *   strideA, B, Btype, ldb, strideB, beta, C, Ctype, ldc, strideC,
     *   batchCount, computeType, algo) */
    LC_OP_ROW("cublasGemmStridedBatchedEx", CUBLAS, 23, 0, libcalls_flops_gemm,
              LC_FP(3, 4, 5, 20),
              LC_MAT("A", 7, READ, LC_DT(8, CUDA), 1, 3, 5, 9, 10, 20, -1),
              LC_MAT("B", 11, READ, LC_DT(12, CUDA), 2, 5, 4, 13, 14, 20, -1),
              LC_MAT("C", 16, READWRITE, LC_DT(17, CUDA), -1, 3, 4, 18, 19, 20, 15)),
    GEMV("cublasSgemv", 4), GEMV("cublasDgemv", 8), GEMV("cublasCgemv", 8),
    GEMV("cublasZgemv", 16),
    GEAM("cublasSgeam", 4), GEAM("cublasDgeam", 8), GEAM("cublasCgeam", 8),
    GEAM("cublasZgeam", 16),
    AXPY("cublasSaxpy", 4), AXPY("cublasDaxpy", 8), AXPY("cublasCaxpy", 8),
    AXPY("cublasZaxpy", 16),
    SCAL("cublasSscal", 4), SCAL("cublasDscal", 8), SCAL("cublasCscal", 8),
    SCAL("cublasZscal", 16), SCAL("cublasCsscal", 8), SCAL("cublasZdscal", 16),
    COPY("cublasScopy", 4), COPY("cublasDcopy", 8), COPY("cublasCcopy", 8),
    COPY("cublasZcopy", 16),
    DOT("cublasSdot", 4), DOT("cublasDdot", 8),
    /* cublasSdgmm(h, mode, m, n, A, lda, x, incx, C, ldc): C = A*diag(x)
     * (CUBLAS_SIDE_RIGHT, x has n entries) or diag(x)*A (LEFT, m entries) */
    LC_OP_ROW("cublasSdgmm", CUBLAS, 10, 0, libcalls_flops_mn, LC_FP(2, 3, 1),
              LC_MAT("A", 4, READ, LC_E(4), -1, 2, 3, 5, -1, -1, -1),
              LC_VECOP("x", 6, READ, LC_E(4), 1, 2, 3, 7, -1),
              LC_MAT("C", 8, WRITE, LC_E(4), -1, 2, 3, 9, -1, -1, -1)),

    /* cublasLtMatmul(h, computeDesc, alpha, A, Adesc, B, Bdesc, beta, C,
     *   Cdesc, D, Ddesc, algo, workspace, workspaceSize, stream).  The
     *   epilogue's pointers (bias, aux), set on computeDesc, are added by
     *   the walker (libcalls_cublaslt.c, Note [cublasLt descriptors]). */
    LC_OP_ROW("cublasLtMatmul", CUBLASLT, 16, 0, NULL, LC_NOP,
              LC_DESC("A", 3, READ, 4, -1, 0), LC_DESC("B", 5, READ, 6, -1, 0),
              LC_DESC("C", 8, READ, 9, 7, LIBCALLS_OPTIONAL),
              LC_DESC("D", 10, WRITE, 11, -1, 0),
              LC_SCRATCH("workspace", 13, 14)),
    /* cublasLtMatrixLayoutCreate(&layout, type, rows, cols, ld): type, rows,
     *   cols and ld kept (a batch set later changes the extent) */
    LC_SETTER_DIMS_ROW("cublasLtMatrixLayoutCreate", CUBLASLT, 5, libcalls_setter_layout,
                       LC_DT(1, CUDA), 1, 4, 0, 2, 3, 4),
    /* cublas<Lt>...SetAttribute(desc, attr, buf, sizeInBytes): *buf kept
     *   under the attribute's slot (libcall_attr_slot) */
    LC_ATTR_ROW("cublasLtMatrixLayoutSetAttribute", CUBLASLT, 4),
    LC_ATTR_ROW("cublasLtMatmulDescSetAttribute", CUBLASLT, 4),
    LC_TABLE_END,
};
