// `if (step == 0)` on the counter of a `while` training loop: the body
// ends with `step++` and nothing else assigns the counter, so its first
// iteration is the one with the entry value, and the branch runs as setup.
// A test of another value (`step == 3`) is not the first iteration.
// RUN: %tidal graph %s -- %stubflags | FileCheck %s
// CHECK: once (setup, first iteration only): {{.*}}.cu:[[@LINE+21]] in main: if (step == 0): 1 allocation(s), 1 op site(s)
// CHECK-NOT: once
// CHECK: ops: 3 static
// CHECK-NOT: fill
// CHECK: tensors:
#define N 4096
__global__ void fill(float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 1.0f;
}
__global__ void scale(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i];
}
int main(int argc, char **argv) {
  float *w, *a, *h = 0;
  cudaMalloc(&w, N * sizeof(float));
  cudaMalloc(&a, N * sizeof(float));
  int steps = argc > 1 ? 20 : 10;
  int step = 0;
  while (step < steps) {
    if (step == 0) {
      cudaMalloc(&h, N * sizeof(float));
      fill<<<N / 256, 256>>>(h, N);
    }
    if (step == 3) scale<<<N / 256, 256>>>(a, w, N);
    scale<<<N / 256, 256>>>(a, h, N);
    scale<<<N / 256, 256>>>(w, a, N);
    step++;
  }
  return 0;
}
