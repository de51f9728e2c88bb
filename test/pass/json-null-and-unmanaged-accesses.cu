// JSON marks the accesses that are not tidal's memory, so a consumer
// counting coverage (test/corpus/corpus_check.py) leaves them out: a NULL
// passed for an optional pointer through a wrapper is `"null": true`, a
// cudaMallocManaged buffer `"unmanaged": true`; a resolved access has neither.
// RUN: %tidal graph %s --format json -- %stubflags | FileCheck %s
// CHECK: "pointer": "a", {{.*}}"arg": 0
// CHECK: "pointer": "NULL", {{.*}}"null": true, "unmanaged": true, "arg": 1
// CHECK: "pointer": "m", {{.*}}"unmanaged": true, "arg": 1
// CHECK-NOT: "null": true
#include <stddef.h>
__global__ void k(float *a, const float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = b != NULL ? b[i] : 0.0f;
}
void run(float *a, const float *b, int n) { k<<<n / 256, 256>>>(a, b, n); }
int main(void) {
  float *a, *m;
  cudaMalloc((void **)&a, 4096 * sizeof(float));
  cudaMallocManaged((void **)&m, 4096 * sizeof(float));
  for (int step = 0; step < 10; step++) {
    run(a, NULL, 4096);
    run(a, m, 4096);
  }
  return 0;
}
