// A pointer-array batched GEMM called in a helper that only sees the
// device arrays: the host array they were copied from is main's, a name
// that means nothing in the helper, so the matrices cannot be declared at
// the call and say so (opsites.c, Note [pointer-array batches]); the
// arrays themselves are still the op's accesses.
// RUN: %tidal graph %s -- %stubflags 2>&1 | FileCheck %s
#include <cublas_v2.h>
#define B 2
#define M 16
static void batched(cublasHandle_t h, float **a, float **b, float **c) {
  const float one = 1.f;
  cublasSgemmBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, M, M, M, &one, (const float **)a, M,
                     (const float **)b, M, &one, c, M, B);
}
int main() {
  cublasHandle_t h;
  cublasCreate(&h);
  float *d_A, *h_A[B], **d_Aarray;
  cudaMalloc((void **)&d_A, B * M * M * sizeof(float));
  for (int i = 0; i < B; i++) h_A[i] = d_A + i * M * M;
  cudaMalloc((void **)&d_Aarray, B * sizeof(float *));
  cudaMemcpy(d_Aarray, h_A, B * sizeof(float *), cudaMemcpyHostToDevice);
  for (int step = 0; step < 10; step++) batched(h, d_Aarray, d_Aarray, d_Aarray);
  return 0;
}
// CHECK: :12:3: warning: cublasSgemmBatched: the matrices behind '(const float **)a' are not declared: the host array copied into it is not a variable of this function
// CHECK: #0 {{.*}}batched -> cublasSgemmBatched
// CHECK-NEXT: read d_Aarray {{.*}}8*B = 16 B
