// A host pointer cast whose target type spells more than three children
// before the operand (TemplateRef, five IntegerLiterals, TypeRef) still
// names the operand's allocation.  (The interpreter once looked at a
// cast's first four children only, took the literal 2 for its value, and
// left the launch's access unresolved.)
// RUN: %tidal graph %s -- %stubflags 2>&1 | FileCheck %s
template <int... N> struct Tag { typedef float type; };
__global__ void k(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2.0f;
}
int main(void) {
  float *a;
  cudaMalloc((void **)&a, 4096 * sizeof(float));
  float *q = (Tag<1, 2, 3, 4, 5>::type *)a;
  for (int it = 0; it < 10; it++) k<<<16, 256>>>(q, 4096);
  return 0;
}
// CHECK-NOT: warning
// CHECK: 1 of 1 accesses resolved
// CHECK: T0 {{.*}} 16.0 KiB in a at +0
