// The bias and the epilogue's aux buffer a cuBLASLt matmul descriptor
// carries (set with cublasLtMatmulDescSetAttribute, as llm.c's bf16
// trainer does) are declared at the cublasLtMatmul op, although no
// argument names them: the library reads the bias and writes the saved
// pre-activation, so an op that left them out let them be evicted while
// it ran (on an H200 the rewritten train_gpt2.cu stopped with CUresult 700,
// an illegal address).  Each is declared once, read and written (forward
// reads the bias, a BGRAD epilogue would write it), never exact, in the
// names where it was set; an extent that differs between the calls reaching
// the op would be unknown.  The output compiles with nvcc
// (nvcc-compiles-rewrite-inputs).
// RUN: sed -e 's@// *CHECK[-A-Z]*:.*@//@' %s > %t.in.cu
// RUN: %tidal rewrite %t.in.cu -o %t.cu -- %stubflags
// RUN: FileCheck %s < %t.cu
// CHECK: tidal_site {{.*}}"mm -> cublasLtMatmul"
// CHECK: {(const void *)(a), ((size_t)2*(size_t)(k)*(size_t)(m)), TIDAL_READ},
// CHECK: {(const void *)(bias), ((size_t)2*(size_t)(m)), TIDAL_READWRITE},
// CHECK-NEXT: {(const void *)(pre), ((size_t)2*(size_t)(m)*(size_t)(n)), TIDAL_READWRITE},
#include <stddef.h>
#include <cublasLt.h>
typedef unsigned short bf16;
cublasLtHandle_t lt;
void *ws;
const size_t ws_size = 1 << 20;
void mm(bf16 *d, const bf16 *a, const bf16 *b, const bf16 *bias, int m, int n, int k,
        bf16 *pre = NULL, bool backward = false) {
  cublasLtMatmulDesc_t desc;
  cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F);
  cublasLtMatrixLayout_t al, bl, dl;
  cublasLtMatrixLayoutCreate(&al, CUDA_R_16BF, k, m, k);
  cublasLtMatrixLayoutCreate(&bl, CUDA_R_16BF, k, n, k);
  cublasLtMatrixLayoutCreate(&dl, CUDA_R_16BF, m, n, m);
  cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_DEFAULT;
  if (pre != NULL) {
    int64_t ld = m;
    cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &ld, sizeof(ld));
    cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, &pre, sizeof(pre));
    epilogue = backward ? CUBLASLT_EPILOGUE_DGELU
                        : (bias != NULL ? CUBLASLT_EPILOGUE_GELU_AUX_BIAS : CUBLASLT_EPILOGUE_GELU_AUX);
  } else if (bias != NULL) {
    epilogue = CUBLASLT_EPILOGUE_BIAS;
  }
  cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof(epilogue));
  if (bias != NULL)
    cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof(bias));
  const float alpha = 1.0f, beta = 0.0f;
  cublasLtMatmul(lt, desc, &alpha, a, al, b, bl, &beta, d, dl, d, dl, NULL, ws, ws_size, 0);
  cublasLtMatmulDescDestroy(desc);
}
int main(void) {
  const int C = 256, N = 1024;
  bf16 *w, *b, *x, *h, *pre, *dh, *dx;
  cudaMalloc((void **)&w, 4 * C * C * sizeof(bf16));
  cudaMalloc((void **)&b, 4 * C * sizeof(bf16));
  cudaMalloc((void **)&x, N * C * sizeof(bf16));
  cudaMalloc((void **)&h, 4 * N * C * sizeof(bf16));
  cudaMalloc((void **)&pre, 4 * N * C * sizeof(bf16));
  cudaMalloc((void **)&dh, 4 * N * C * sizeof(bf16));
  cudaMalloc((void **)&dx, N * C * sizeof(bf16));
  cudaMalloc(&ws, ws_size);
  cublasLtCreate(&lt);
  for (int step = 0; step < 10; step++) {
    mm(h, w, x, b, 4 * C, N, C, pre);             /* forward: GELU_AUX_BIAS */
    mm(dx, w, dh, NULL, C, N, 4 * C, pre, true);  /* backward: DGELU reads pre */
  }
  return 0;
}
