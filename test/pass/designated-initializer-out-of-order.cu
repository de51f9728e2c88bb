// A struct initialised with designators in another order than its fields
// are declared: each value lands in the field it names, and an element
// after a designator goes to the next field (C11 6.7.9): heads=16,
// vocab=50, hidden=1024, layers=3.  (The interpreter once stored the
// elements by position: hidden=16, layers=50, heads=1024.)
// RUN: %tidal graph %s -- %stubflags 2>&1 | FileCheck %s
struct Config {
  int hidden;
  int layers;
  int heads;
  int vocab;
};
static Config cfg = {.heads = 16, 50, .hidden = 1024, 3};
__global__ void k(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2.0f;
}
int main(void) {
  float *a;
  cudaMalloc((void **)&a, cfg.hidden * cfg.layers * cfg.heads * sizeof(float));
  for (int it = 0; it < 10; it++) k<<<cfg.hidden / 256, 256>>>(a, cfg.hidden);
  return 0;
}
// CHECK: managed 1 of 1 allocations (192.0 KiB of 192.0 KiB)
// CHECK: bindings: {{.*}}cfg.hidden=1024
// CHECK-SAME: cfg.layers=3
// CHECK-SAME: cfg.heads=16
