// The other shapes of one-time initialisation inside the training loop: a
// flag the branch clears (`if (first) { ...; first = 0; }`) and the loop's
// counter at its first value (`if (step == 0)`).  Both run as setup (listed
// as once branches); their op sites are not ops of the iteration.  A branch
// that does not clear its own test (`if (flag)` never reset) is not once.
// RUN: %tidal graph %s -- %stubflags | FileCheck %s
// CHECK: once (setup, first iteration only): {{.*}}.cu:[[@LINE+22]] in main: if (first): 0 allocation(s), 1 op site(s)
// CHECK: once (setup, first iteration only): {{.*}}.cu:[[@LINE+26]] in main: if (step == 0): 1 allocation(s), 1 op site(s)
// CHECK-NOT: once
// CHECK: ops: 3 static
// CHECK-NOT: cudaMemset
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
  int first = 1, verbose = argc > 1;
  for (int step = 0; step < 10; step++) {
    if (first) {
      cudaMemset(w, 0, N * sizeof(float));
      first = 0;
    }
    if (verbose) scale<<<N / 256, 256>>>(a, w, N);
    if (step == 0) {
      cudaMalloc(&h, N * sizeof(float));
      fill<<<N / 256, 256>>>(h, N);
    }
    scale<<<N / 256, 256>>>(a, h, N);
    scale<<<N / 256, 256>>>(w, a, N);
  }
  return 0;
}
