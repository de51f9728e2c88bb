// Op statements in every form: inside a check macro (the whole statement
// is wrapped), a declaration with an initialiser (no braces: its scope must
// not change), and the unbraced body of an if (braces added).
// RUN: sed -e 's@// *CHECK[-A-Z]*:.*@//@' %s > %t.cu
// RUN: %tidal rewrite %t.cu --plan none -o %t.out.cu -- %stubflags
// RUN: FileCheck %s < %t.out.cu
#define N 64
#include <cublas_v2.h>
#define cublasCheck(x) do { if ((x) != CUBLAS_STATUS_SUCCESS) return 1; } while (0)
__global__ void k(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.0f;
}
int main(int argc, char **argv) {
  float *a, *b, *c;
  const float one = 1.0f, zero = 0.0f;
  cublasHandle_t h;
  cublasCreate(&h);
  cudaMalloc(&a, N * N * sizeof(float));
  cudaMalloc(&b, N * N * sizeof(float));
  cudaMalloc(&c, N * N * sizeof(float));
  for (int step = 0; step < 3; step++) {
// CHECK: { /* tidal: op site 0: main -> cublasSgemm
// CHECK: TIDAL_OP_BEGIN(&tidal_site_0, 3, tidal_acc_0);
// CHECK: cublasCheck(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, &one, TIDAL_AT(a), N, TIDAL_AT(b), N, &zero, TIDAL_AT(c), N)); TIDAL_OP_END(&tidal_site_0); }
    cublasCheck(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, &one, a, N, b, N, &zero, c, N));
// CHECK: {{^ *}}/* tidal: op site 1: main -> cublasSgemm
// CHECK: cublasStatus_t st = cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, &one, TIDAL_AT(c), N, TIDAL_AT(b), N, &zero, TIDAL_AT(a), N); TIDAL_OP_END(&tidal_site_1);{{$}}
    cublasStatus_t st = cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, &one, c, N, b, N, &zero, a, N);
    if (st != CUBLAS_STATUS_SUCCESS) return 1;
// CHECK: if (argc > 1)
// CHECK-NEXT: { /* tidal: op site 2: main -> k */
    if (argc > 1)
      k<<<N / 64, 64>>>(a, N);
// CHECK: k<<<N / 64, 64>>>(TIDAL_AT(a), N); TIDAL_OP_END(&tidal_site_2); }
  }
  return 0;
}
