// GNU `x ?: y` is x when x is nonzero and y otherwise.  (The interpreter
// once took an unexposed expression's last child for its value: m=16
// whatever n was.)
// RUN: %tidal graph %s -- %stubflags 2>&1 | FileCheck %s
// RUN: %tidal graph %s -- %stubflags -DZERO 2>&1 | FileCheck %s --check-prefix=ZERO
__global__ void k(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2.0f;
}
int main(void) {
#ifdef ZERO
  int n = 0;
#else
  int n = 4096;
#endif
  int m = n ?: 16;
  float *a;
  cudaMalloc((void **)&a, m * sizeof(float));
  for (int it = 0; it < 10; it++) k<<<16, 256>>>(a, m);
  return 0;
}
// CHECK: managed 1 of 1 allocations (16.0 KiB of 16.0 KiB)
// CHECK: bindings: {{.*}}m=4096
// ZERO: managed 1 of 1 allocations (64 B of 64 B)
// ZERO: bindings: {{.*}}m=16
