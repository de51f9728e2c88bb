// An array initialised with index designators: `[4] = 4096` lands in
// element 4 and the next element, 8, in element 5 (C11 6.7.9).  (The
// interpreter once stored the elements by position: dims[1]=4096, dims[2]=8
// and dims[4] unbound.)
// RUN: %tidal graph %s -- %stubflags 2>&1 | FileCheck %s
__global__ void k(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2.0f;
}
int main(void) {
  int dims[6] = {[4] = 4096, 8};
  float *a;
  cudaMalloc((void **)&a, dims[4] * dims[5] * sizeof(float));
  for (int it = 0; it < 10; it++) k<<<16, 256>>>(a, dims[4]);
  return 0;
}
// CHECK: managed 1 of 1 allocations (128.0 KiB of 128.0 KiB)
// CHECK: bindings: {{.*}}dims[4]=4096
// CHECK-SAME: dims[5]=8
// CHECK-NOT: unbound
