// NCCL op sites: ncclAllReduce reads count elements from the send buffer
// and writes count to the receive buffer, with the element size from the
// ncclDataType_t; it is a collective, flagged nondeterministic (reduction
// order).  ncclAllGather's receive holds count*nranks: unknown.
// RUN: %tidal graph %s --format json -- %stubflags | FileCheck %s
#include <cuda_runtime.h>
#include <nccl.h>

int main(void) {
  const int P = 1000, SHARD = 250;
  float *grads, *params;
  __nv_bfloat16 *shard;
  cudaMalloc(&grads, P * sizeof(float));
  cudaMalloc(&params, P * sizeof(float));
  cudaMalloc(&shard, SHARD * 2);
  ncclComm_t comm;
  cudaStream_t s;
#pragma tidal train
  for (int step = 0; step < 3; step++) {
    ncclAllReduce(grads, grads, P, ncclFloat, ncclSum, comm, s);
    ncclAllGather(shard, params, SHARD, ncclBfloat16, comm, s);
  }
  return 0;
}

// CHECK:      "kind": "collective", "callee": "ncclAllReduce"
// CHECK-SAME: "flags": ["nondeterministic"]
// CHECK:      "mode": "read", "bytes": "4*P", "bytes_value": 4000, {{.*}}"exact": true, {{.*}}"pointer": "grads", {{.*}}"param": "send"
// CHECK-NEXT: "mode": "write", "bytes": "4*P", "bytes_value": 4000, {{.*}}"exact": true, {{.*}}"pointer": "grads", {{.*}}"param": "recv"
// CHECK:      "kind": "collective", "callee": "ncclAllGather"
// CHECK:      "mode": "read", "bytes": "2*SHARD", "bytes_value": 500, {{.*}}"exact": true, {{.*}}"pointer": "shard", {{.*}}"param": "send"
// CHECK-NEXT: "mode": "write", "bytes": "unknown", {{.*}}"exact": false, {{.*}}"pointer": "params", {{.*}}"param": "recv"
