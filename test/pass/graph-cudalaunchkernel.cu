// cudaLaunchKernel is an op site: the kernel is named by its first
// argument and its parameters are followed through the `void *args[]`.
// RUN: %tidal graph %s --format json -- %stubflags | FileCheck %s

__global__ void axpy_kernel(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += 2.f * x[i];
}

int main() {
  float *x, *y;
  int n = 4096;
  cudaMalloc((void **)&x, n * sizeof(float));
  cudaMalloc((void **)&y, n * sizeof(float));
  for (int step = 0; step < 3; step++) {
    void *args[] = {&y, &x, &n};
    cudaLaunchKernel((const void *)axpy_kernel, dim3(n / 256), dim3(256), args, 0, 0);
  }
  return 0;
}

// CHECK: {"id": 0, "kind": "launch", "callee": "axpy_kernel"
// CHECK-SAME: "grid": "dim3(n / 256)", "block": "dim3(256)", "shmem": "0", "stream": "0"
// CHECK: {"tensor": [[Y:[0-9]+]], "mode": "readwrite", "bytes": "16384", {{.*}}"pointer": "y", "pointer_valid_in_loop": true, "pointer_local": "*(float **)(args)[0]"
// CHECK: {"tensor": [[X:[0-9]+]], "mode": "read", "bytes": "16384", {{.*}}"pointer_local": "*(float **)(args)[1]"
// CHECK: "tensors": [
// CHECK-DAG: {"id": [[Y]], "name": "y"
// CHECK-DAG: {"id": [[X]], "name": "x"
