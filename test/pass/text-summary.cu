// The text summary: the loop and why, ops with call paths and accesses,
// tensors, candidates with sizes and idle spans, and what was not resolved.
// RUN: %tidal graph %s -- %stubflags | FileCheck %s

__global__ void k(float *out, const float *in, int n) {
  int i = threadIdx.x;
  if (i < n) out[i] = in[i];
}
float *g_unknown;

int main() {
  float *acts;
  cudaMalloc((void **)&acts, 16 * 256 * sizeof(float));
#pragma tidal train
  for (int step = 0; step < 3; step++) {
    for (int l = 0; l < 8; l++) k<<<1, 256>>>(acts + (l + 1) * 256, acts + l * 256, 256);
    for (int l = 7; l >= 0; l--) k<<<1, 256>>>(acts + l * 256, acts + (l + 8) * 256, 256);
    k<<<1, 256>>>(g_unknown, acts, 256);
  }
  return 0;
}
// CHECK: training loop: {{.*}}text-summary.cu:15 (pragma at text-summary.cu:14) in main
// CHECK: ops: 3 static, 17 per iteration unrolled; tensors:
// CHECK: #0   fwd   k
// CHECK-NEXT: write     acts[l]                      1.0 KiB
// CHECK: #1   bwd   k
// CHECK: eviction candidates (
// CHECK: acts[l=1]{{ +}}1.0 KiB{{ +}}idle
// CHECK: unresolved (1):
// CHECK-NEXT: text-summary.cu:18:19: pointer 'g_unknown' passed to k is not traced to a cudaMalloc
