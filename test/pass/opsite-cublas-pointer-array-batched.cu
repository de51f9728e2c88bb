// cublasSgemmBatched over device arrays of pointers (opsites.c, Note
// [pointer-array batches]): the arrays are built on the host and copied to
// the device before the loop; the call reads the three arrays and, behind
// them, each batch's A and B and read-writes each C - every matrix
// declared with cublasSgemm's formula, named as the program holds it, and
// written at the op site through the host array (`h_A[2]`).  Before: not
// an op site at all (docs/libcalls.md, "Not supported"), so a plan could
// evict the matrices it reads.
// RUN: %tidal graph %s -- %stubflags 2>&1 | FileCheck %s
// RUN: %tidal rewrite %s -o %t.cu -- %stubflags 2>/dev/null
// RUN: grep -v "^// " %t.cu | FileCheck --check-prefix=SITES %s
// RUN: %tidal replay %s --budget 70%% --chunk 4K --format json -- %stubflags 2>/dev/null | FileCheck --check-prefix=REPLAY %s
#include <cublas_v2.h>
#define B 3
#define M 32
__global__ void fill(float *p, int n, float v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = v;
}
int main() {
  cublasHandle_t h;
  cublasCreate(&h);
  float *d_A, *d_B, *d_C, *d_X;
  cudaMalloc((void **)&d_X, 16384 * sizeof(float));
  cudaMalloc((void **)&d_A, B * M * M * sizeof(float));
  cudaMalloc((void **)&d_B, B * M * M * sizeof(float));
  cudaMalloc((void **)&d_C, B * M * M * sizeof(float));
  float *h_A[B], *h_B[B], *h_C[B];
  for (int i = 0; i < B; i++) {
    h_A[i] = d_A + i * M * M;
    h_B[i] = d_B + i * M * M;
    h_C[i] = d_C + i * M * M;
  }
  float **d_Aarray, **d_Barray, **d_Carray;
  cudaMalloc((void **)&d_Aarray, B * sizeof(float *));
  cudaMalloc((void **)&d_Barray, B * sizeof(float *));
  cudaMalloc((void **)&d_Carray, B * sizeof(float *));
  cudaMemcpy(d_Aarray, h_A, B * sizeof(float *), cudaMemcpyHostToDevice);
  cudaMemcpy(d_Barray, h_B, B * sizeof(float *), cudaMemcpyHostToDevice);
  cudaMemcpy(d_Carray, h_C, B * sizeof(float *), cudaMemcpyHostToDevice);
  const float one = 1.f, zero = 0.f;
  for (int step = 0; step < 10; step++) {
    fill<<<B * M * M / 256, 256>>>(d_A, B * M * M, 0.5f);
    fill<<<16384 / 256, 256>>>(d_X, 16384, 1.f);
    cublasSgemmBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, M, M, M, &one, (const float **)d_Aarray, M,
                       (const float **)d_Barray, M, &zero, d_Carray, M, B);
  }
  return 0;
}
// CHECK-NOT: warning
// CHECK: 14 of 14 accesses resolved
// CHECK: #2 {{.*}}cublasSgemmBatched
// CHECK-NEXT: read d_Aarray {{.*}}8*B = 24 B
// CHECK-NEXT: read d_Barray {{.*}}8*B = 24 B
// CHECK-NEXT: read d_Carray {{.*}}8*B = 24 B
// CHECK-NEXT: read h_A[0] {{.*}}4*M*M = 4.0 KiB
// CHECK-NEXT: read h_A[1] {{.*}}4*M*M = 4.0 KiB
// CHECK-NEXT: read h_A[2] {{.*}}4*M*M = 4.0 KiB
// CHECK-NEXT: read h_B[0]
// CHECK: write h_C[2] {{.*}}4*M*M = 4.0 KiB
// CHECK: h_A[1] {{.*}} in d_A at +4*M*M
// CHECK: unresolved (0):
// SITES: {(const void *)(h_A[0]), {{.*}}, TIDAL_READ},
// SITES: {(const void *)(h_C[2]), {{.*}}, TIDAL_WRITE},
// REPLAY: "checksums_match": true,
// REPLAY: "ok": true
