// A recompute closure re-launches its producer with <<<...>>> and the
// launch's own arguments (rewrite_closure.c); a producer launched by
// cudaLaunchKernel has its kernel's arguments in an array, which a closure
// cannot capture (the array and what it points to are the launching
// function's locals).  Its recompute is not emitted, with the reason, and
// no closure is written (one re-launching `fwd` with cudaLaunchKernel's own
// six arguments did not compile).
// RUN: sed -e 's@// *CHECK[-A-Z]*:.*@//@' %s > %t.cu
// RUN: %tidal rewrite %t.cu --plan recompute --budget 50%% --no-split -o %t.out.cu -- %stubflags
// RUN: FileCheck %s < %t.out.cu
// CHECK: not emitted: recompute of h: the producer is launched by cudaLaunchKernel: its arguments are in an array a closure cannot capture
// CHECK-NOT: tidal: recompute closure
#define N (1 << 20)
__global__ void fwd(float *h, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) h[i] = 2.0f * x[i];
}
__global__ void mid(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] + 1.0f;
}
__global__ void bwd(float *g, const float *h, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) g[i] += h[i];
}
int main(void) {
  float *x, *h, *a, *b, *c, *g;
  int n = N;
  cudaMalloc(&x, N * sizeof(float));
  cudaMalloc(&h, N * sizeof(float));
  cudaMalloc(&a, N * sizeof(float));
  cudaMalloc(&b, N * sizeof(float));
  cudaMalloc(&c, N * sizeof(float));
  cudaMalloc(&g, N * sizeof(float));
  for (int step = 0; step < 10; step++) {
    void *args[] = {&h, &x, &n};
    cudaLaunchKernel((const void *)fwd, dim3(N / 256), dim3(256), args, 0, 0);
    mid<<<N / 256, 256>>>(a, x, N);
    mid<<<N / 256, 256>>>(b, a, N);
    mid<<<N / 256, 256>>>(c, b, N);
    mid<<<N / 256, 256>>>(a, c, N);
    bwd<<<N / 256, 256>>>(g, h, N);
  }
  return 0;
}
