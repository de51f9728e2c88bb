// cudaMemset / cudaMemsetAsync op sites: the destination is written,
// exactly `count` bytes; a slice of an arena is attributed to its region.
// RUN: %tidal graph %s --format json -- %stubflags | FileCheck %s
#include <cuda_runtime.h>

int main(void) {
  const int L = 4, P = 1024;
  float *grads;
  cudaMalloc(&grads, L * P * sizeof(float));
  cudaStream_t s;
#pragma tidal train
  for (int step = 0; step < 3; step++) {
    cudaMemset(grads, 0, L * P * sizeof(float));
    cudaMemsetAsync(grads + P, 0, P * sizeof(float), s);
  }
  return 0;
}

// CHECK:      "kind": "memset", "callee": "cudaMemset"
// CHECK-SAME: "flops_value": 0
// CHECK:      "mode": "write", "bytes": "4*L*P", "bytes_value": 16384, {{.*}}"exact": true, {{.*}}"pointer": "grads", {{.*}}"arg": 0, "param": "dst"
// CHECK-NOT:  "mode"
// CHECK:      "kind": "memset", "callee": "cudaMemsetAsync"
// CHECK:      "mode": "write", "bytes": "4*P", "bytes_value": 4096, {{.*}}"exact": true, "offset": "4*P", "offset_value": 4096, {{.*}}"param": "dst"
