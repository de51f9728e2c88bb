// A pointer argument left to its C++ default (`void run(float *a, int n,
// const float *b = NULL, int scale = 2)`, llm.c's `floatX *pre_gelu =
// NULL`): libclang shows the omitted argument as a leaf, which read as an
// untraced pointer.  Its value is the parameter's default (Note [default
// arguments]): NULL is no access, and a branch testing it is decided.
// RUN: %tidal graph %s -- %stubflags | FileCheck %s
// CHECK: #0 {{.*}}run -> k
// CHECK-NEXT: write     a                            16.0 KiB
// CHECK-NEXT: read      (NULL: no access)
// CHECK: #1 {{.*}}run -> k
// CHECK-NEXT: write     a
// CHECK-NEXT: read      m
// CHECK-NOT: run -> fill
// CHECK: unresolved (0):
#include <stddef.h>
__global__ void k(float *a, const float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = b != NULL ? b[i] : 0.0f;
}
__global__ void fill(float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = 0.0f;
}
void run(float *a, int n, const float *b = NULL, int scale = 2) {
  k<<<n / 256, 256>>>(a, b, n * scale / 2);
  if (b != NULL && scale > 2) fill<<<n / 256, 256>>>(a, n);
}
int main(void) {
  float *a, *m;
  cudaMalloc((void **)&a, 4096 * sizeof(float));
  cudaMalloc((void **)&m, 4096 * sizeof(float));
  for (int step = 0; step < 10; step++) {
    run(a, 4096);
    run(a, 4096, m);
  }
  return 0;
}
