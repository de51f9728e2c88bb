// Every declarator of one declaration is interpreted, however many: the
// seventeenth here sizes the buffer.  (The interpreter once walked the
// first 16 and left n17 unknown: "'n17' is unbound".)
// RUN: %tidal graph %s -- %stubflags 2>&1 | FileCheck %s
__global__ void k(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2.0f;
}
int main(void) {
  int n1 = 1, n2 = 2, n3 = 3, n4 = 4, n5 = 5, n6 = 6, n7 = 7, n8 = 8, n9 = 9, n10 = 10, n11 = 11,
      n12 = 12, n13 = 13, n14 = 14, n15 = 15, n16 = 16, n17 = 4096;
  float *a;
  cudaMalloc((void **)&a, n17 * sizeof(float));
  for (int it = 0; it < 10; it++) k<<<n17 / 256, 256>>>(a, n17);
  return 0;
}
// CHECK: managed 1 of 1 allocations (16.0 KiB of 16.0 KiB)
// CHECK: bindings: {{.*}}n17=4096
// CHECK-NOT: unbound
