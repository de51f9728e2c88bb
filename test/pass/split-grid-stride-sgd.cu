// A grid-stride loop `for (size_t i = <global index>; i < n; i +=
// gridDim.x * blockDim.x)` with w and g touched only at [i] is elementwise
// over n for any grid (grid_stride); so is the form with the stride in a
// local and a `continue` in the body.  Their launches are split ops whatever
// grid they use.
// RUN: %tidal kernels %s -- %stubflags | FileCheck %s
// RUN: %tidal graph %s --format json -- %stubflags | FileCheck %s --check-prefix=GRAPH

__global__ void sgd(float *w, const float *g, float lr, size_t n) {
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * blockDim.x)
    w[i] -= lr * g[i];
}
// CHECK-LABEL: kernel sgd
// CHECK: split: count=n grid_stride{{$}}

__global__ void clip_copy(float *out, const float *in, long n) {
  const int stride = blockDim.x * gridDim.x;
  for (int i = threadIdx.x + blockDim.x * blockIdx.x; i < n; i += stride) {
    if (in[i] < 0.0f) continue;
    out[i] = fminf(in[i], 1.0f);
  }
}
// CHECK-LABEL: kernel clip_copy
// CHECK: split: count=n grid_stride{{$}}

int main() {
  float *w, *g;
  size_t n = 1 << 20;
  cudaMalloc((void **)&w, n * sizeof(float));
  cudaMalloc((void **)&g, n * sizeof(float));
#pragma tidal train
  for (int step = 0; step < 3; step++) {
    sgd<<<32, 256>>>(w, g, 0.01f, n);
    clip_copy<<<64, 128>>>(g, w, n);
  }
  return 0;
}
// GRAPH: "callee": "sgd", {{.*}}"split": {"count_arg": 3, "count": "n", "count_value": 1048576, "grid_stride": true}
// GRAPH: "callee": "clip_copy", {{.*}}"split": {"count_arg": 2, "count": "n", "count_value": 1048576, "grid_stride": true}
