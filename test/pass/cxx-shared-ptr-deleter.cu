// std::shared_ptr<float> owning a cudaMalloc'd buffer with a custom deleter
// (`std::shared_ptr<float>(p, [](float *q) { cudaFree(q); })`), returned
// from a helper, copied and assigned: `.get()` is the buffer, so each
// launch resolves to it, and the rewritten program declares the accesses as
// `y.get()` and frees through tidal in the deleter.  Before: get() was an
// opaque call (unresolved), and the rewriter dropped the accesses of an
// argument holding a call without a word.
// RUN: %tidal graph %s -- %stubflags -std=c++17 2>&1 | FileCheck %s
// RUN: %tidal rewrite %s -o - -- %stubflags -std=c++17 2>/dev/null | FileCheck --check-prefix=REWRITE %s
// RUN: %tidal replay %s --chunk 4K --budget 75%% --format json -- %stubflags -std=c++17 2>/dev/null | FileCheck --check-prefix=REPLAY %s
#include <stdlib.h>
#include <memory>
__global__ void scale(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i];
}
static std::shared_ptr<float> device_buffer(size_t n) {
  float *p = nullptr;
  cudaMalloc((void **)&p, n * sizeof(float));
  return std::shared_ptr<float>(p, [](float *q) { cudaFree(q); });
}
int main() {
  std::shared_ptr<float> x = device_buffer(4096);
  std::shared_ptr<float> w = device_buffer(4096);
  std::shared_ptr<float> y;
  y = device_buffer(4096);
  std::shared_ptr<float> z = y;
  for (int step = 0; step < 10; step++) {
    scale<<<16, 256>>>(y.get(), x.get(), 0.5f, 4096);
    scale<<<16, 256>>>(x.get(), z.get(), 2.f, 4096);
    scale<<<16, 256>>>(w.get(), x.get(), 2.f, 4096);
  }
  return 0;
}
// CHECK: managed 3 of 3 allocations
// CHECK-SAME: 6 of 6 accesses resolved
// CHECK: write     y
// CHECK: read      x
// CHECK: write     x
// CHECK: read      y
// CHECK: write     w
// CHECK: unresolved (0):
// REWRITE: return std::shared_ptr<float>(p, [](float *q) { (cudaError_t)TIDAL_CUDA_STATUS(tidal_free((void *)(q))); });
// REWRITE: {(const void *)(y.get()), ((size_t)16384), TIDAL_WRITE},
// REWRITE-NEXT: {(const void *)(x.get()), ((size_t)16384), TIDAL_READ},
// REWRITE: TIDAL_OP_BEGIN(&tidal_site_0, 2, tidal_acc_0);
// REPLAY: "checksums_match": true,
// REPLAY: "budget_respected": true,
// REPLAY: "ok": true
