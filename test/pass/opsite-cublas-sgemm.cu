// cublasSgemm op sites: column-major extents from m/n/k, the transposes and
// the leading dimensions.  A transposed weight with lda == k is dense and
// exact; an lda larger than m leaves gaps (extent lda*(k-1)+m, not exact);
// C is written when beta is a visible zero, read-modify-written otherwise.
// RUN: %tidal graph %s --format json -- %stubflags | FileCheck %s
#include <cuda_runtime.h>
#include <cublas_v2.h>

void matmul_forward(cublasHandle_t h, float *out, const float *inp, const float *weight,
                    int BT, int C, int OC) {
  const float one = 1.0f, zero = 0.0f;
  cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, OC, BT, C, &one, weight, C, inp, C, &zero, out, OC);
}

int main(int argc, char **argv) {
  const int B = 4, T = 16, C = 48, OC = 32, LDA = 40;
  float *inp, *weight, *out, *pad, *acc;
  cudaMalloc(&inp, B * T * C * sizeof(float));
  cudaMalloc(&weight, OC * C * sizeof(float));
  cudaMalloc(&out, B * T * OC * sizeof(float));
  cudaMalloc(&pad, LDA * C * sizeof(float));
  cudaMalloc(&acc, OC * C * sizeof(float));
  cublasHandle_t h;
  cublasCreate(&h);
  float one = 1.0f;
#pragma tidal train
  for (int step = 0; step < 10; step++) {
    matmul_forward(h, out, inp, weight, B * T, C, OC);
    // pad holds a 32 x 48 matrix with leading dimension 40; acc += pad * I
    cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, OC, C, C, &one, pad, LDA, weight, C, &one, acc, OC);
  }
  return 0;
}

// CHECK:      "kind": "library", "callee": "cublasSgemm_v2"
// CHECK-SAME: "flops": "2*OC*B*T*C"
// CHECK:      "mode": "read", "bytes": "4*C*OC", "bytes_value": 6144, {{.*}}"exact": true, {{.*}}"pointer": "weight", {{.*}}"param": "A"
// CHECK-NEXT: "mode": "read", "bytes": "4*C*B*T", "bytes_value": 12288, {{.*}}"exact": true, {{.*}}"pointer": "inp", {{.*}}"param": "B"
// CHECK-NEXT: "mode": "write", "bytes": "4*OC*B*T", "bytes_value": 8192, {{.*}}"exact": true, {{.*}}"pointer": "out", {{.*}}"param": "C"
// CHECK:      "kind": "library", "callee": "cublasSgemm_v2"
// (40*(48-1)+32)*4 = 7648 bytes from pad, not all of them touched
// CHECK:      "mode": "read", "bytes": {{.*}}"bytes_value": 7648, {{.*}}"exact": false, {{.*}}"pointer": "pad", {{.*}}"param": "A"
// CHECK-NEXT: "mode": "read", "bytes": "4*C*C", "bytes_value": 9216, {{.*}}"exact": true, {{.*}}"pointer": "weight", {{.*}}"param": "B"
// CHECK-NEXT: "mode": "readwrite", "bytes": "4*OC*C", "bytes_value": 6144, {{.*}}"exact": true, {{.*}}"pointer": "acc", {{.*}}"param": "C"
