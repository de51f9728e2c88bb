// A launch inside a lambda body is an op statement like any other: it is
// instrumented where it is written (before: the scan skipped lambda bodies,
// so the op ran undeclared), with the lambda's own parameters as its text.
// RUN: %tidal rewrite %s -o - -- %stubflags | FileCheck %s
__global__ void sgd(float *w, const float *g, float lr, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) w[i] -= lr * g[i];
}
void update(float *w, float *g, float lr) {
  auto launch = [&](float *pw, const float *pg, int n) {
    sgd<<<(n + 255) / 256, 256>>>(pw, pg, lr, n);
    return;
  };
  launch(w, g, 1024);
}
int main() {
  float *w, *g;
  cudaMalloc((void **)&w, 1024 * sizeof(float));
  cudaMalloc((void **)&g, 1024 * sizeof(float));
  for (int step = 0; step < 10; step++) update(w, g, 0.1f);
  return 0;
}
// CHECK: instrumented: 1 op sites
// CHECK: op site 0: update -> sgd
// CHECK: {(const void *)(pw), ((size_t)4*(size_t)(n)), TIDAL_READWRITE},
// CHECK: TIDAL_OP_BEGIN(&tidal_site_0, 2, tidal_acc_0);
// The lambda's return is not one of main's.
// CHECK-NOT: TIDAL_SHUTDOWN_OR_EXIT(); return;
// CHECK: { TIDAL_SHUTDOWN_OR_EXIT(); return 0;
