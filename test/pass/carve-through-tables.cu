// Carving through tables: `Spec t[] = {{(void **)&a->x, n}, ...}` with a
// loop storing through each entry (`*(t[i].ptr) = it; it += t[i].size;`),
// and `float **ptrs[] = {&a.x, ...}` read as `*ptrs[0]`: every access
// resolves to a carved region.  The second run carves lazily, on the loop's
// first iteration (`if (a.x == NULL) carve(&a);`): the same regions.
// RUN: %tidal graph %s -- %stubflags | FileCheck %s
// RUN: sed -e 's@^  carve(&a);@  a.x = NULL;@' -e 's@/[*] CARVE_HERE [*]/@if (a.x == NULL) carve(\&a);@' %s > %t.cu
// RUN: %tidal graph %t.cu -- %stubflags | FileCheck --check-prefix=LAZY %s
// CHECK: write     a.h
// CHECK-NEXT: read      a.x
// CHECK: T1   a.x {{.*}} aka *ptrs
// CHECK: unresolved (0):
// LAZY: once (setup, first iteration only): {{.*}} if (a.x == NULL): 1 allocation(s)
// LAZY: write     a.h
// LAZY-NEXT: read      a.x
// LAZY: unresolved (0):
#include <stddef.h>
#define N 4096
typedef struct Acts { float *x, *h, *y; } Acts;
typedef struct Spec { void **ptr; size_t size; } Spec;
__global__ void scale(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i];
}
void carve(Acts *a) {
  Spec t[] = {{(void **)&a->x, N * sizeof(float)}, {(void **)&a->h, 2 * N * sizeof(float)},
              {(void **)&a->y, N * sizeof(float)}};
  size_t total = 0;
  for (int i = 0; i < 3; i++) total += t[i].size;
  char *it;
  cudaMalloc((void **)&it, total);
  for (int i = 0; i < 3; i++) {
    *(t[i].ptr) = it;
    it += t[i].size;
  }
}
int main(void) {
  Acts a;
  carve(&a);
  float **ptrs[] = {&a.x, &a.h};
  for (int step = 0; step < 10; step++) {
    /* CARVE_HERE */
    scale<<<N / 256, 256>>>(a.h, a.x, N);
    scale<<<N / 256, 256>>>(a.y, a.h + N, N);
    scale<<<N / 256, 256>>>(*ptrs[0], a.y, N);
  }
  return 0;
}
