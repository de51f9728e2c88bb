// cuBLASLt as llm.c's bf16 trainer drives it (Note [cublasLt descriptors]):
// one wrapper builds the layouts and the matmul descriptor per call, sets
// the epilogue and its pointers with cublasLtMatmulDescSetAttribute and a
// batch with cublasLtMatrixLayoutSetAttribute, and passes a workspace.
//  - forward, GELU_AUX_BIAS: bias read (m elements), the pre-activation
//    (aux, ld m) written, exactly, D written;
//  - backward, DGELU: the saved pre-activation (the shape of D) read;
//  - beta 0 (`const float beta = 0.0f`): C (= D) is not read;
//  - batched (attention, 8 heads): each operand covers every matrix;
//  - the workspace is scratch, written.
// Each size is also written in the wrapper's own names, where the op is
// declared at run time (Note [descriptor extents at the op]): the layouts'
// rows and cols, the batch and stride parameters, the aux ld's initializer
// (`ld` itself is out of scope at the matmul).
// RUN: %tidal graph %s -- %stubflags | FileCheck %s
// RUN: %tidal graph %s --format json -- %stubflags | FileCheck --check-prefix=LOCAL %s
// CHECK: #0 {{.*}}mm -> cublasLtMatmul
// CHECK-NEXT: read      w                            8*C*C
// CHECK-NEXT: read      x                            2*C*B*T
// CHECK-NEXT: write     out                          8*C*B*T{{$}}
// CHECK-NEXT: write     ws                           ws_size = 4.0 MiB
// CHECK-NEXT: read      bias                         8*C (upper bound)
// CHECK-NEXT: write     pre                          8*C*B*T{{$}}
// CHECK: #1 {{.*}}mm -> cublasLtMatmul
// CHECK-NEXT: read      w2
// CHECK-NEXT: read      dout
// CHECK-NEXT: write     dpre                         8*C*B*T{{$}}
// CHECK-NEXT: write     ws
// CHECK-NEXT: read      pre                          8*C*B*T (upper bound)
// CHECK: #2 {{.*}}mm -> cublasLtMatmul
// CHECK-NEXT: read      k                            2*T*C/NH*B*NH (upper bound)
// CHECK-NEXT: read      q                            2*T*C/NH*B*NH (upper bound)
// CHECK-NEXT: write     att                          2*T*T*B*NH (upper bound)
// CHECK-NEXT: write     ws
// CHECK: unresolved (0):
// LOCAL: "bytes_local": "2*m*n",{{.*}}"pointer_local": "d"
// LOCAL: "bytes_local": "2*m",{{.*}}"pointer_local": "bias"
// LOCAL: "bytes_local": "2*m*n",{{.*}}"pointer_local": "pre"
// LOCAL: "bytes_local": "2*m*n + 2*sd*batch - 2*sd",{{.*}}"pointer_local": "d"
#include <stddef.h>
#include <stdlib.h>
#include <cublasLt.h>
typedef unsigned short bf16;
cublasLtHandle_t lt;
void *ws;
const size_t ws_size = 4 * 1024 * 1024;
void mm(bf16 *d, const bf16 *a, const bf16 *b, const bf16 *bias, int m, int n, int k,
        int batch = 0, size_t sa = 0, size_t sb = 0, size_t sd = 0, bf16 *pre = NULL,
        bool backward = false) {
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
  cublasLtEpilogue_t epilogue;
  if (pre != NULL) {
    int64_t ld = m;
    cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &ld, sizeof(ld));
    cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, &pre, sizeof(pre));
    epilogue = backward ? CUBLASLT_EPILOGUE_DGELU
                        : (bias != NULL ? CUBLASLT_EPILOGUE_GELU_AUX_BIAS : CUBLASLT_EPILOGUE_GELU_AUX);
  } else {
    epilogue = bias != NULL ? CUBLASLT_EPILOGUE_BIAS : CUBLASLT_EPILOGUE_DEFAULT;
  }
  cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof(epilogue));
  if (bias != NULL)
    cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof(bias));
  const float alpha = 1.0f, beta = 0.0f;
  cublasLtMatmul(lt, desc, &alpha, a, al, b, bl, &beta, d, dl, d, dl, NULL, ws, ws_size, 0);
  cublasLtMatmulDescDestroy(desc);
}
int main(int argc, char **argv) {
  int B = atoi(argv[1]), T = atoi(argv[2]), C = atoi(argv[3]);
  int BT = B * T, OC = 4 * C, NH = 8, HS = C / NH;
  bf16 *x, *w, *bias, *out, *pre, *dpre, *w2, *dout, *q, *k, *att;
  cublasLtCreate(&lt);
  cudaMalloc(&ws, ws_size);
  cudaMalloc((void **)&x, BT * C * sizeof(bf16));
  cudaMalloc((void **)&w, C * OC * sizeof(bf16));
  cudaMalloc((void **)&bias, OC * sizeof(bf16));
  cudaMalloc((void **)&out, BT * OC * sizeof(bf16));
  cudaMalloc((void **)&pre, BT * OC * sizeof(bf16));
  cudaMalloc((void **)&dpre, BT * OC * sizeof(bf16));
  cudaMalloc((void **)&w2, OC * C * sizeof(bf16));
  cudaMalloc((void **)&dout, BT * C * sizeof(bf16));
  cudaMalloc((void **)&q, BT * C * sizeof(bf16));
  cudaMalloc((void **)&k, BT * C * sizeof(bf16));
  cudaMalloc((void **)&att, B * NH * T * T * sizeof(bf16));
  for (int step = 0; step < 10; step++) {
    mm(out, w, x, bias, OC, BT, C, 0, 0, 0, 0, pre);
    mm(dpre, w2, dout, NULL, OC, BT, C, 0, 0, 0, 0, pre, true);
    mm(att, k, q, NULL, T, T, HS, B * NH, T * HS, T * HS, T * T);
  }
  return 0;
}
