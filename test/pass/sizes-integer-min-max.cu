// A buffer sized by the largest of several shapes through the library's
// integer max (`B * T * std::max(3 * C, std::max(NH * T, V))`, llm.c's
// scratch buffer): the size is the symbolic max of its arguments, so with
// the names bound the iteration unrolls (an unknown call result stopped it).
// A user-defined function of the same name is entered as any other.
// RUN: %tidal graph %s -- %stubflags | FileCheck %s
// RUN: %tidal graph %s --bind C=64 --bind NH=4 --bind V=500 -- %stubflags | FileCheck --check-prefix=BOUND %s
// CHECK: T0 scratch 4*B*T*max(3*C, V, NH*T) in scratch
// CHECK: T1 small 4*C + 4 in small
// BOUND: bindings: C=64 NH=4 V=500 n=128000*
// BOUND: 2 per iteration unrolled
#include <algorithm>
#include <stdlib.h>
__global__ void fill(float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 1.0f;
}
static int lo(int a, int b) { return a + b; } /* user code: entered, not modelled */
int main(int argc, char **argv) {
  int B = 4, T = 64;
  int C = atoi(argv[1]), NH = atoi(argv[2]), V = atoi(argv[3]);
  size_t n = (size_t)B * T * std::max(3 * C, std::max(NH * T, V));
  float *scratch, *small;
  cudaMalloc((void **)&scratch, n * sizeof(float));
  cudaMalloc((void **)&small, lo(C, 1) * sizeof(float));
  for (int step = 0; step < 10; step++) {
    fill<<<(n + 255) / 256, 256>>>(scratch, n);
    fill<<<1, 256>>>(small, lo(C, 1));
  }
  return 0;
}
