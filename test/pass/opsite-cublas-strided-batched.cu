// cublasSgemmStridedBatched op sites: the extent covers every matrix of
// the batch.  Back-to-back matrices (stride == one matrix) are dense and
// exact; q and k read out of an interleaved qkv buffer (stride 3*T*HS) are
// an extent with gaps: stride*(batch-1) + one matrix, not exact.
// RUN: %tidal graph %s --format json -- %stubflags | FileCheck %s
#include <cuda_runtime.h>
#include <cublas_v2.h>

void attention_scores(cublasHandle_t h, float *preatt, const float *qkv, int BNH, int T, int HS) {
  const float one = 1.0f, zero = 0.0f;
  const float *q = qkv;
  const float *k = qkv + T * HS;
  // preatt[b] (T x T) = k[b]^T (T x HS) * q[b] (HS x T), batch b over B*NH
  cublasSgemmStridedBatched(h, CUBLAS_OP_T, CUBLAS_OP_N, T, T, HS, &one, k, HS, 3 * T * HS, q,
                            HS, 3 * T * HS, &zero, preatt, T, T * T, BNH);
}

void attention_values(cublasHandle_t h, float *out, const float *v, const float *att, int BNH,
                      int T, int HS) {
  const float one = 1.0f, zero = 0.0f;
  // out[b] (HS x T) = v[b] (HS x T) * att[b] (T x T): every batch back to back
  cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, HS, T, T, &one, v, HS, T * HS, att, T,
                            T * T, &zero, out, HS, T * HS, BNH);
}

int main(void) {
  const int B = 2, NH = 4, T = 8, HS = 16;
  float *qkv, *preatt, *v, *out;
  cudaMalloc(&qkv, B * NH * 3 * T * HS * sizeof(float));
  cudaMalloc(&preatt, B * NH * T * T * sizeof(float));
  cudaMalloc(&v, B * NH * T * HS * sizeof(float));
  cudaMalloc(&out, B * NH * T * HS * sizeof(float));
  cublasHandle_t h;
  cublasCreate(&h);
#pragma tidal train
  for (int step = 0; step < 3; step++) {
    attention_scores(h, preatt, qkv, B * NH, T, HS);
    attention_values(h, out, v, preatt, B * NH, T, HS);
  }
  return 0;
}

// CHECK:      "callee": "cublasSgemmStridedBatched"
// CHECK-SAME: "flops": "2*T*T*HS*B*NH", "flops_value": 16384
// (3*8*16*(8-1) + 16*8)*4 = 11264 bytes from k and from q
// CHECK:      "mode": "read", {{.*}}"bytes_value": 11264, {{.*}}"exact": false, {{.*}}"param": "A"
// CHECK-NEXT: "mode": "read", {{.*}}"bytes_value": 11264, {{.*}}"exact": false, {{.*}}"param": "B"
// CHECK-NEXT: "mode": "write", "bytes": "4*T*T*B*NH", "bytes_value": 2048, {{.*}}"exact": true, {{.*}}"pointer": "preatt", {{.*}}"param": "C"
// CHECK:      "callee": "cublasSgemmStridedBatched"
// CHECK:      "mode": "read", "bytes": "4*HS*T*B*NH", "bytes_value": 4096, {{.*}}"exact": true, {{.*}}"pointer": "v", {{.*}}"param": "A"
// CHECK-NEXT: "mode": "read", "bytes": "4*T*T*B*NH", "bytes_value": 2048, {{.*}}"exact": true, {{.*}}"pointer": "preatt", {{.*}}"param": "B"
// CHECK-NEXT: "mode": "write", "bytes": "4*HS*T*B*NH", "bytes_value": 4096, {{.*}}"exact": true, {{.*}}"pointer": "out", {{.*}}"param": "C"
