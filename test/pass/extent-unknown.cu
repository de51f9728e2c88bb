// Unbounded or data-dependent indices give an unknown extent with a reason
// (never a guess); the mode is still known.
// RUN: %tidal kernels %s -- %stubflags | FileCheck %s

// A loop with no condition bounds nothing.  (An unguarded thread index is
// bounded by the launch: extent-launch-bounds.cu.)
__global__ void unbounded(float *out, int s) {
  for (int j = 0;; j += s) out[j] = 0.0f;
}
// CHECK-LABEL: kernel unbounded
// CHECK-NEXT: param out: mode=write extent=unknown elem=float bytes=4 why="index not bounded by a guard or loop condition"

__global__ void gather(float *out, const float *table, const int *ids, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) out[i] = table[ids[i]];
}
// CHECK-LABEL: kernel gather
// CHECK-NEXT: param out: mode=write extent=N
// CHECK-NEXT: param table: mode=read extent=unknown {{.*}}why="index depends on a value read from memory"
// CHECK-NEXT: param ids: mode=read extent=N

__device__ void opaque_fn(float *p);
__global__ void passes(float *buf) { opaque_fn(buf); }
// CHECK-LABEL: kernel passes
// CHECK-NEXT: param buf: mode=readwrite extent=unknown {{.*}}why="passed to 'opaque_fn', which tidal cannot see into"

__global__ void backwards(float *out, int N) {
  int i = threadIdx.x;
  if (i < N) out[i - 1] = 0.0f;
}
// CHECK-LABEL: kernel backwards
// CHECK-NEXT: param out: mode=write extent=unknown {{.*}}why="index may be negative"
