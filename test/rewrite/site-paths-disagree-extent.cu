// One op site reached by call paths that give its accesses different
// extents: llm.c's bf16 matmul_cublaslt, called for one matrix and for a
// batch of them (attention: B*NH heads, strided).  The site declares the
// largest, tidal_size_max(one path's, the other's), and the modes joined;
// declaring the first path's alone let the batched call write B*NH times
// past what it declared (on an H200, CUresult 700).  The output compiles
// with nvcc (nvcc-compiles-rewrite-inputs).
// RUN: sed -e 's@// *CHECK[-A-Z]*:.*@//@' %s > %t.in.cu
// RUN: %tidal rewrite %t.in.cu -o %t.cu -- %stubflags
// RUN: FileCheck %s < %t.cu
// CHECK: tidal_site {{.*}}"mm -> cublasLtMatmul"
// CHECK: {(const void *)(a), tidal_size_max(((size_t)2*(size_t)(k)*(size_t)(m)), ((size_t)2*(size_t)(k)*(size_t)(m) + (size_t)2*(size_t)(sa)*(size_t)(batch) - (size_t)2*(size_t)(sa))), TIDAL_READ},
// CHECK: {(const void *)(d), tidal_size_max(((size_t)2*(size_t)(m)*(size_t)(n)), ((size_t)2*(size_t)(m)*(size_t)(n) + (size_t)2*(size_t)(sd)*(size_t)(batch) - (size_t)2*(size_t)(sd))), TIDAL_READWRITE},
#include <stddef.h>
#include <cublasLt.h>
typedef unsigned short bf16;
cublasLtHandle_t lt;
void mm(bf16 *d, const bf16 *a, const bf16 *b, int m, int n, int k, int batch = 0, size_t sa = 0,
        size_t sb = 0, size_t sd = 0) {
  cublasLtMatmulDesc_t desc;
  cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F);
  cublasLtMatrixLayout_t al, bl, dl;
  cublasLtMatrixLayoutCreate(&al, CUDA_R_16BF, k, m, k);
  cublasLtMatrixLayoutCreate(&bl, CUDA_R_16BF, k, n, k);
  cublasLtMatrixLayoutCreate(&dl, CUDA_R_16BF, m, n, m);
  if (batch) {
    cublasLtMatrixLayoutSetAttribute(al, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, sizeof(batch));
    cublasLtMatrixLayoutSetAttribute(bl, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, sizeof(batch));
    cublasLtMatrixLayoutSetAttribute(dl, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, sizeof(batch));
    cublasLtMatrixLayoutSetAttribute(al, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &sa, sizeof(sa));
    cublasLtMatrixLayoutSetAttribute(bl, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &sb, sizeof(sb));
    cublasLtMatrixLayoutSetAttribute(dl, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &sd, sizeof(sd));
  }
  const float alpha = 1.0f, beta = 0.0f;
  cublasLtMatmul(lt, desc, &alpha, a, al, b, bl, &beta, d, dl, d, dl, NULL, NULL, 0, 0);
  cublasLtMatmulDescDestroy(desc);
}
int main(void) {
  const int C = 256, T = 128, NH = 4, HS = C / NH;
  bf16 *w, *x, *q, *k, *att;
  cudaMalloc((void **)&w, C * C * sizeof(bf16));
  cudaMalloc((void **)&x, T * C * sizeof(bf16));
  cudaMalloc((void **)&q, T * C * sizeof(bf16));
  cudaMalloc((void **)&k, T * C * sizeof(bf16));
  cudaMalloc((void **)&att, NH * T * T * sizeof(bf16));
  cublasLtCreate(&lt);
  for (int step = 0; step < 10; step++) {
    mm(q, w, x, C, T, C);                                                   /* one matrix */
    mm(att, k, q, T, T, HS, NH, (size_t)T * HS, (size_t)T * HS, (size_t)T * T); /* NH heads */
  }
  return 0;
}
