// The caller's argument expressions are substituted for the wrapper's
// parameters: byte counts and pointers read in the training loop's names.
// RUN: %tidal graph %s --format json --bind N=256 --bind L=4 -- %stubflags | FileCheck %s

__global__ void copy_kernel(float *dst, const float *src, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dst[i] = src[i];
}

void layer_copy(float *dst, const float *src, int rows, int cols) {
  copy_kernel<<<rows, cols>>>(dst, src, rows * cols);
}

int run(int N, int L) {
  float *acts;
  cudaMalloc((void **)&acts, (L + 1) * N * 4 * sizeof(float));
#pragma tidal train
  for (int step = 0; step < 2; step++) {
    for (int l = 0; l < L; l++) {
      layer_copy(acts + (l + 1) * N * 4, acts + l * N * 4, N, 4);
    }
  }
  return 0;
}

int main() { return run(256, 4); }

// CHECK: "loops": [
// CHECK-NEXT: {"id": 0, "parent": -1, "call_depth": 0, "var": "l", "step": 1, "lo": "0", "lo_value": 0, "hi": "L", "hi_value": 4, "trip": "L", "trip_value": 4
// CHECK: "label": "layer_copy -> copy_kernel"
// CHECK: "mode": "write", "bytes": "16*N", "bytes_value": 4096, "bytes_local": "4*rows*cols"
// CHECK-SAME: "pointer": "acts + (l + 1)*N*4"
// CHECK-SAME: "pointer_valid_in_loop": true, "pointer_local": "dst"
// CHECK: "mode": "read", "bytes": "16*N"
// CHECK-SAME: "pointer": "acts + l*N*4"
// CHECK: "unrolled_ops": 4,
