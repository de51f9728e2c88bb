// A tensor idle between its forward read and an exact overwrite (a
// cudaMemset of every byte) is a dead span: drop, do not copy.  A read
// after the gap is a plain candidate; an input never written in the
// iteration (a) is not one.
// RUN: %tidal graph %s -- %stubflags | FileCheck %s

__global__ void k(float *out, const float *in, int n) {
  int i = threadIdx.x;
  if (i < n) out[i] = in[i];
}

int main() {
  float *a, *b, *s;
  cudaMalloc((void **)&a, 256 * sizeof(float));
  cudaMalloc((void **)&b, 256 * sizeof(float));
  cudaMalloc((void **)&s, 256 * sizeof(float));
#pragma tidal train
  for (int step = 0; step < 3; step++) {
    k<<<1, 256>>>(s, a, 256);
    k<<<1, 256>>>(b, s, 256);
    for (int r = 0; r < 6; r++) k<<<1, 256>>>(b, b, 256);
    cudaMemset(s, 0, 256 * sizeof(float));
    k<<<1, 256>>>(a, b, 256);
    k<<<1, 256>>>(b, s, 256);
  }
  return 0;
}
// CHECK: eviction candidates (1):
// CHECK-NEXT: {{^}}  s {{.*}} idle 6 ops (after #1 k, until #3 cudaMemset)  dead: overwritten next, drop
