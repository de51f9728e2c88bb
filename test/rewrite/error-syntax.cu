// tidal-test: expect-error (skipped by nvcc_all.py)
// A host-code error is reported clang-style; exit 1; no output file.
// RUN: rm -f %t.out.cu
// RUN: not %tidal rewrite %s -o %t.out.cu -- %stubflags 2>&1 | FileCheck %s
// RUN: not test -e %t.out.cu
int main(void) {
  int x = ;
// CHECK: error-syntax.cu:[[@LINE-1]]:{{[0-9]+}}: error:
  return 0;
}
