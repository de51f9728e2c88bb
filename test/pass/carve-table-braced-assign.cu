// A carving table filled by C++11 braced assignment in a setup loop
// (`table[n] = {&w[l], count};`, the call of the struct's defaulted
// operator= on an initialiser list) stores each field as the declaration
// `Slot e = {&w[l], count};` does, so the arena's size (a sum over the
// table) and every carved region resolve.  Before, the table's entries
// were unknown: the arena's size was not computable and nothing unrolled.
// The second run fills it as `table[nt++] = {...};`: a postfix increment's
// value is the one before the step (it was the one after, so entry 0 was
// never written).
// RUN: %tidal graph %s -- %stubflags | FileCheck %s
// RUN: sed -e 's@table\[nt\] = @table[nt++] = @' -e '/^    nt++;$/d' %s > %t.cu
// RUN: %tidal graph %t.cu -- %stubflags | FileCheck %s
// CHECK: ops: {{[0-9]+}} static, {{[0-9]+}} per iteration unrolled
// CHECK: T{{[0-9]+}} b[1] {{.*}} in arena at +
// CHECK: unresolved (0):
#include <stddef.h>
#define L 3
#define W 4096
struct Slot {
  float **slot;
  size_t n;
};
__global__ void scale(float *o, const float *i, int n) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) o[k] = 2.0f * i[k];
}
int main(void) {
  float *w[L], *b[L], *arena;
  Slot table[2 * L];
  int nt = 0;
  for (int l = 0; l < L; l++) {
    table[nt] = {&w[l], (size_t)W * W};
    nt++;
    table[nt] = {&b[l], (size_t)W};
    nt++;
  }
  size_t total = 0;
  for (int i = 0; i < nt; i++) total += table[i].n;
  cudaMalloc(&arena, total * sizeof(float));
  size_t off = 0;
  for (int i = 0; i < nt; i++) {
    *table[i].slot = arena + off;
    off += table[i].n;
  }
  for (int step = 0; step < 10; step++) {
    scale<<<W / 256, 256>>>(b[0], w[0], W);
    scale<<<W / 256, 256>>>(b[1], w[1], W);
    scale<<<W / 256, 256>>>(b[2], w[2], W);
  }
  return 0;
}
