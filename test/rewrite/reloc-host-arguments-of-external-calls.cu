// Arguments of calls the pass cannot see into that cannot be tidal memory
// are not escapes (Note [escapes], graph/escapes.c): an array variable
// holding no pointers (`h`, which the reader fills; a local `perf[8]` of
// result structs, as cuDNN's algorithm queries take) is host storage.
// Before, each was sent home with tidal_home, and from a header the rewrite
// leaves alone (the corpus LeNet's cuDNN 7 shim) that kept every allocation
// at home.  A std::string's characters (`path.c_str()`) are skipped too
// (the corpus LeNet's dataset reader made every allocation stay at home
// with "a pointer with side effects"; this small program did not reproduce
// that path, so here it only shows the call stays as written).  A device
// pointer passed to an unseen function is still sent home.
// RUN: sed -e 's@// *\(CHECK\|SUM\)[-A-Z]*:.*@//@' %s > %t.cu
// RUN: %tidal rewrite %t.cu --plan none -o %t.out.cu -- %stubflags 2>&1 | FileCheck %s --check-prefix=SUM
// RUN: FileCheck %s < %t.out.cu
// SUM: 2 of 2 allocations relocatable
#include <string>
#define N 1024
struct perf_t { int algo; float time; unsigned long memory; };
int read_dataset(const char *path, float *host, int n); /* no body here */
int query_algos(int requested, int *returned, perf_t *perf);
void keep_pointer(float *p);
__global__ void k(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i];
}
std::string path = "data.bin"; /* a flag's value, as gflags keeps it */
int main(void) {
  float *x, *y, h[N];
  perf_t perf[8];
  int got = 0;
// CHECK: tidal_malloc_grouped((void **)(&x), N * sizeof(float), TIDAL_GROUP_RELOCATABLE)) /* tidal: relocatable
  cudaMalloc(&x, N * sizeof(float));
  cudaMalloc(&y, N * sizeof(float));
// CHECK-NOT: tidal_home((const void *)(h))
  read_dataset(path.c_str(), h, N);
// CHECK-NOT: tidal_home((const void *)(perf))
  query_algos(8, &got, perf);
// CHECK: TIDAL_CHECK(tidal_home((const void *)(y)));
  keep_pointer(y);
  cudaMemcpy(x, h, N * sizeof(float), cudaMemcpyHostToDevice);
  for (int step = 0; step < 10; step++)
    k<<<N / 256, 256>>>(y, x, N);
  return 0;
}
