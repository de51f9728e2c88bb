// An op inside a host wrapper is attributed at the training loop, with the
// wrapper call on its call path and the caller's pointer as its tensor.
// RUN: %tidal graph %s --format json -- %stubflags | FileCheck %s

__global__ void relu_kernel(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] > 0.f ? in[i] : 0.f;
}

void relu_forward(float *out, const float *in, int n) {
  relu_kernel<<<(n + 127) / 128, 128>>>(out, in, n);
}

int main() {
  float *x, *y;
  cudaMalloc((void **)&x, 1024 * sizeof(float));
  cudaMalloc((void **)&y, 1024 * sizeof(float));
#pragma tidal train
  for (int step = 0; step < 3; step++) {
    relu_forward(y, x, 1024);
  }
  return 0;
}

// CHECK: "ops": [
// CHECK: {"id": 0, "kind": "launch", "callee": "relu_kernel", "label": "relu_forward -> relu_kernel", {{.*}}"line": 11
// CHECK-SAME: "grid": "(n + 127) / 128", "block": "128", "shmem": null, "stream": null
// CHECK: "call_path": [{"function": "relu_forward", {{.*}}"line": 20
// CHECK: {"tensor": [[Y:[0-9]+]], "mode": "write", "bytes": "4096", "bytes_value": 4096, {{.*}}"exact": true, {{.*}}"pointer": "y", {{.*}}"pointer_local": "out"
// CHECK: {"tensor": [[X:[0-9]+]], "mode": "read", "bytes": "4096", {{.*}}"pointer": "x", {{.*}}"pointer_local": "in"
// CHECK: "tensors": [
// CHECK-DAG: {"id": [[Y]], "name": "y", "allocation": 1,
// CHECK-DAG: {"id": [[X]], "name": "x", "allocation": 0,
