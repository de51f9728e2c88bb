// tidal-test: expect-error (skipped by nvcc_all.py)
// Bad input as in the graph command: a clang-style error, exit 1, and no
// output file (nor a temporary) left behind.
// RUN: rm -rf %t.dir && mkdir %t.dir
// RUN: not %tidal rewrite %s -o %t.dir/out.cu -- %stubflags 2>&1 | FileCheck %s
// RUN: ls %t.dir | count 0
// CHECK: error: {{.*}}training loop
__global__ void k(float *x) { x[threadIdx.x] = 0.0f; }
int main(void) {
  float *x;
  cudaMalloc(&x, 256 * sizeof(float));
  k<<<1, 256>>>(x);
  return 0;
}
