// cublasGemmEx op sites: each operand's element size comes from its own
// cudaDataType argument (bf16 inputs at 2 bytes, an fp32 output at 4), and
// the routine is found under its real name.
// RUN: %tidal graph %s --format json -- %stubflags | FileCheck %s
#include <cuda_runtime.h>
#include <cublas_v2.h>

int main(void) {
  const int M = 64, N = 32, K = 16;
  void *a, *b, *c;
  cudaMalloc(&a, M * K * 2);
  cudaMalloc(&b, K * N * 2);
  cudaMalloc(&c, M * N * 4);
  cublasHandle_t h;
  cublasCreate(&h);
  const float alpha = 1.0f, beta = 0.0f;
#pragma tidal train
  for (int step = 0; step < 3; step++) {
    cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &alpha, a, CUDA_R_16BF, M, b, CUDA_R_16BF, K,
                 &beta, c, CUDA_R_32F, M, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  }
  return 0;
}

// CHECK:      "kind": "library", "callee": "cublasGemmEx"
// CHECK-SAME: "flops": "2*M*N*K", "flops_value": 65536
// CHECK:      "mode": "read", "bytes": "2*M*K", "bytes_value": 2048, {{.*}}"exact": true, {{.*}}"pointer": "a", {{.*}}"param": "A"
// CHECK-NEXT: "mode": "read", "bytes": "2*K*N", "bytes_value": 1024, {{.*}}"exact": true, {{.*}}"pointer": "b", {{.*}}"param": "B"
// CHECK-NEXT: "mode": "write", "bytes": "4*M*N", "bytes_value": 8192, {{.*}}"exact": true, {{.*}}"pointer": "c", {{.*}}"param": "C"
