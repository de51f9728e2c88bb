// A launch of a split kernel is a split op only when the pieces can be
// formed and run as the whole did (opsites.c, Note [split launches]): a
// plain <<<>>> launch, every touched pointer a tensor (not NULL, not
// managed memory), and - the kernel not grid-stride - a grid that provably
// covers the count.  Anything else keeps "split": null.
// RUN: %tidal graph %s --format json -- %stubflags | FileCheck %s

__global__ void axpy(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += a * x[i];
}

int main() {
  float *x, *y, *um;
  int n = 1 << 20;
  cudaMalloc((void **)&x, n * sizeof(float));
  cudaMalloc((void **)&y, n * sizeof(float));
  cudaMallocManaged((void **)&um, n * sizeof(float));
#pragma tidal train
  for (int step = 0; step < 3; step++) {
    axpy<<<(n + 255) / 256, 256>>>(y, x, 2.0f, n);
    axpy<<<(n + 255) / 256, 256>>>(y, NULL, 2.0f, n);
    axpy<<<(n + 255) / 256, 256>>>(y, um, 2.0f, n);
    axpy<<<64, 256>>>(y, x, 2.0f, n);
    float a = 2.0f;
    void *args[] = {&y, &x, &a, &n};
    cudaLaunchKernel((const void *)axpy, dim3((n + 255) / 256), dim3(256), args, 0, 0);
  }
  return 0;
}
// CHECK: "ops": [
// CHECK-NEXT: "callee": "axpy", {{.*}}"line": 21, {{.*}}"split": {"count_arg": 3, "count": "n", "count_value": 1048576, "grid_stride": false},
// CHECK: "callee": "axpy", {{.*}}"line": 22, {{.*}}"split": null,
// CHECK: "callee": "axpy", {{.*}}"line": 23, {{.*}}"split": null,
// CHECK: "callee": "axpy", {{.*}}"line": 24, {{.*}}"grid": "64", "block": "256", {{.*}}"split": null,
// CHECK: "callee": "axpy", {{.*}}"line": 27, {{.*}}"split": null,
