// A syntax error in host code is reported clang-style at its line, exit 1,
// and no output file is written.
// RUN: rm -f %t.out
// RUN: not %tidal kernels %s -o %t.out -- %stubflags 2>&1 | FileCheck %s
// RUN: not test -e %t.out

int main() {
  int x = 1 +;
// CHECK: error-syntax-host.cu:[[@LINE-1]]:14: error: expected expression
  return x;
}
