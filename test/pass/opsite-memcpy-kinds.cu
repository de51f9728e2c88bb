// cudaMemcpy[Async] op sites: only a device side of the copy is a device
// access.  Host-to-device writes the destination, device-to-host reads the
// source, device-to-device does both, each exactly `count` bytes;
// cudaMemcpyDefault leaves both sides possible and neither exact.
// RUN: %tidal graph %s --format json -- %stubflags | FileCheck %s
#include <cuda_runtime.h>
#include <stdlib.h>

int main(void) {
  const int N = 256;
  float *d_x, *d_y;
  float *h_x = (float *)malloc(N * sizeof(float));
  cudaMalloc(&d_x, N * sizeof(float));
  cudaMalloc(&d_y, N * sizeof(float));
  cudaStream_t s;
#pragma tidal train
  for (int step = 0; step < 3; step++) {
    cudaMemcpy(d_x, h_x, N * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpyAsync(d_y, d_x, N * sizeof(float), cudaMemcpyDeviceToDevice, s);
    cudaMemcpy(h_x, d_y, N * sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(d_y, d_x, N * sizeof(float), cudaMemcpyDefault);
  }
  return 0;
}

// CHECK:      "kind": "memcpy", "callee": "cudaMemcpy", {{.*}}"line": 18,
// CHECK:      "accesses": [
// CHECK-NEXT: "mode": "write", "bytes": "4*N", "bytes_value": 1024, {{.*}}"exact": true, {{.*}}"pointer": "d_x", {{.*}}"param": "dst"}]},
// CHECK:      "kind": "memcpy", "callee": "cudaMemcpyAsync"
// CHECK:      "accesses": [
// CHECK-NEXT: "mode": "write", "bytes": "4*N", "bytes_value": 1024, {{.*}}"exact": true, {{.*}}"pointer": "d_y", {{.*}}"param": "dst"},
// CHECK-NEXT: "mode": "read", "bytes": "4*N", "bytes_value": 1024, {{.*}}"exact": true, {{.*}}"pointer": "d_x", {{.*}}"param": "src"}]},
// CHECK:      "kind": "memcpy", "callee": "cudaMemcpy", {{.*}}"line": 20,
// CHECK:      "accesses": [
// CHECK-NEXT: "mode": "read", "bytes": "4*N", "bytes_value": 1024, {{.*}}"exact": true, {{.*}}"pointer": "d_y", {{.*}}"param": "src"}]},
// CHECK:      "kind": "memcpy", "callee": "cudaMemcpy", {{.*}}"line": 21,
// CHECK:      "accesses": [
// CHECK-NEXT: "mode": "write", {{.*}}"exact": false, {{.*}}"pointer": "d_y", {{.*}}"param": "dst"},
// CHECK-NEXT: "mode": "read", {{.*}}"exact": false, {{.*}}"pointer": "d_x", {{.*}}"param": "src"}]}
