// Op sites outside the training loop (an init kernel, a cudaMemcpy of
// parameters, a helper never called from the loop) are instrumented too: a
// fresh tidal allocation is only mapped once an op declares a write to it.
// RUN: sed -e 's@// *CHECK[-A-Z]*:.*@//@' %s > %t.cu
// RUN: %tidal rewrite %t.cu --plan none -o %t.out.cu -- %stubflags
// RUN: FileCheck %s < %t.out.cu
#define N 4096
__global__ void init_kernel(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = 1.0f;
}
__global__ void step_kernel(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.0f;
}
// CHECK-LABEL: static void evaluate(
static void evaluate(float *host, const float *dev) {
// CHECK: static tidal_site tidal_site_0 = {"evaluate -> cudaMemcpy"
// The host side is not declared, only the device pointer (constant size folded).
// CHECK-NEXT: const tidal_access tidal_acc_0[1] = {
// CHECK-NEXT: {(const void *)(dev), ((size_t)16384), TIDAL_READ},
  cudaMemcpy(host, dev, N * sizeof(float), cudaMemcpyDeviceToHost);
}
// CHECK-LABEL: int main(
int main(void) {
  static float host[N];
  float *x;
  cudaMalloc(&x, N * sizeof(float));
// CHECK: static tidal_site tidal_site_1 = {"main -> init_kernel"
// CHECK: {(const void *)(x), ((size_t)4*(size_t)(N)), TIDAL_WRITE},
  init_kernel<<<N / 256, 256>>>(x, N);
// CHECK: static tidal_site tidal_site_2 = {"main -> cudaMemcpy"
// CHECK: {(const void *)(x), ((size_t)16384), TIDAL_WRITE},
  cudaMemcpy(x, host, N * sizeof(float), cudaMemcpyHostToDevice);
  for (int it = 0; it < 3; it++) step_kernel<<<N / 256, 256>>>(x, N);
  evaluate(host, x);
  return 0;
}
