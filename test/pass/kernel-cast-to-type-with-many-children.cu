// A store through a cast whose target type spells many template arguments
// writes the cast's operand: libclang lists the arguments (TemplateRef,
// 17 IntegerLiterals, TypeRef) before the operand.  (The analysis once
// kept a cast's first 16 children, took the 15th argument for the operand
// and lost the write: mode=none.)
// RUN: %tidal kernels %s -- %stubflags | FileCheck %s

template <int... N> struct Tag { typedef float type; };

__global__ void fill(float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) ((Tag<1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17>::type *)out)[i] = 1.0f;
}
// CHECK-LABEL: kernel fill
// CHECK-NEXT: param out: mode=write extent=n elem=float bytes=4
// CHECK-NEXT: param n: scalar
