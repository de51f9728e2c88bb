// Warp-level indexing: `threadIdx.x & 31` is a lane in [0, 32) and
// `threadIdx.x >> 5` a warp index bounded through its operand; a warp-per-row
// kernel written with them gets exact extents.
// RUN: %tidal kernels %s -- %stubflags | FileCheck %s

__global__ void lane_sums(float *out, const float *in, int N) {
  int lane = threadIdx.x & 31;
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  if (warp >= N) return;
  float s = in[warp * 32 + lane];
  s += __shfl_xor_sync(0xffffffff, s, 16);
  if (lane == 0) out[warp] = s;
}
// CHECK-LABEL: kernel lane_sums
// CHECK-NEXT: param out: mode=write extent=N elem=float bytes=4 dense=no
// CHECK-NEXT: param in: mode=read extent=32*N elem=float bytes=4

__global__ void masked_unbounded(float *out, int k) {
  out[threadIdx.x & k] = 0.f;
}
// CHECK-LABEL: kernel masked_unbounded
// CHECK-NEXT: param out: mode=write extent=unknown
