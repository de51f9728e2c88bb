// No loop reaches an op: a clang-style error at main, a note suggesting the
// pragma or --loop, exit 1 and no output file.
// RUN: not %tidal graph %s -o %t.out -- %stubflags 2>&1 | FileCheck %s
// RUN: not test -e %t.out

__global__ void k(float *p) { p[threadIdx.x] = 0.f; }

int main() {
  float *p;
  cudaMalloc((void **)&p, 64 * sizeof(float));
  k<<<1, 64>>>(p);
  for (int i = 0; i < 3; i++) {
  }
  return 0;
}
// CHECK: loop-none-error.cu:8:5: error: no training loop found: no loop reaches a kernel launch or library call
// CHECK: loop-none-error.cu:8:5: note: mark the training loop with '#pragma tidal train' or pass --loop FILE:LINE
