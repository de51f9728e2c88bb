// An error inside a __global__ body is downgraded to a warning; the
// analysis goes on (exit 0) and the rest of the file is analysed.
// RUN: %tidal kernels %s -- %stubflags 2>&1 | FileCheck %s

__global__ void broken(float *out, int N) {
  int i = threadIdx.x;
  if (i < N) out[i] = not_declared_anywhere;
// CHECK: error-device-code-error-tolerated.cu:[[@LINE-1]]:23: warning: ignoring error in device code: use of undeclared identifier 'not_declared_anywhere'
}

__global__ void fine(float *out, int N) {
  int i = threadIdx.x;
  if (i < N) out[i] = 1.0f;
}
// CHECK: kernel fine
// CHECK-NEXT: param out: mode=write extent=N
