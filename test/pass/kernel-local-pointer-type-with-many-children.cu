// A local pointer whose declared type spells many template arguments is
// still bound to its initializer: libclang lists the arguments (TemplateRef,
// 17 IntegerLiterals, TypeRef) before the initializer, and the store through
// the pointer writes `out`.  (The analysis once kept a declaration's first
// 16 children, took the 15th argument for the initializer and lost the
// write: mode=none.)
// RUN: %tidal kernels %s -- %stubflags | FileCheck %s

template <int... N> struct Tag { typedef float type; };

__global__ void fill(float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  Tag<1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17>::type *p = out + i;
  if (i < n) *p = 1.0f;
}
// CHECK-LABEL: kernel fill
// CHECK-NEXT: param out: mode=write extent=n elem=float bytes=4
// CHECK-NEXT: param n: scalar
