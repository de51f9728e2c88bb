// tidal_init runs first thing in main (exiting with tidal's message on
// failure) and tidal_shutdown before every return of main.
// RUN: sed -e 's@// *CHECK[-A-Z]*:.*@//@' %s > %t.cu
// RUN: %tidal rewrite %t.cu --plan none -o %t.out.cu -- %stubflags
// RUN: FileCheck %s < %t.out.cu
#define N 4096
__global__ void k(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.0f;
}
// CHECK: int main(int argc, char **argv) { TIDAL_INIT_OR_EXIT();
int main(int argc, char **argv) {
  float *x;
// CHECK: if (argc > 5) { TIDAL_SHUTDOWN_OR_EXIT(); return 2; }
  if (argc > 5) return 2;
  cudaMalloc(&x, N * sizeof(float));
  for (int step = 0; step < 10; step++) k<<<N / 256, 256>>>(x, N);
// CHECK: { TIDAL_SHUTDOWN_OR_EXIT(); return 0; }
  return 0;
}
