// if (i < N) out[i]: the extent is N elements.
// RUN: %tidal kernels %s -- %stubflags | FileCheck %s
// RUN: %tidal kernels %s --format json -- %stubflags | FileCheck %s --check-prefix=JSON

__global__ void fill(float *out, float v, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) out[i] = v;
}
// CHECK: param out: mode=write extent=N elem=float bytes=4
// JSON: "name": "out", "pointer": true, "mode": "write", "extent": "N", "elem_type": "float", "elem_bytes": 4
