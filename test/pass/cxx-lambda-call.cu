// C++ lambdas called like functions (`launch(p.w, g.w, n)`): the call lists
// the closure object as argument 0, so the parameters bind the arguments
// after it and each call's launch resolves to that call's buffers (before:
// 'w' was bound to the closure, unresolved).
// RUN: %tidal graph %s -- %stubflags 2>&1 | FileCheck %s
__global__ void sgd(float *w, const float *g, float lr, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) w[i] -= lr * g[i];
}
struct P { float *a, *b; };
void update(P &p, P &g, float lr) {
  auto launch = [&](float *w, const float *gw, int n) {
    sgd<<<(n + 255) / 256, 256>>>(w, gw, lr, n);
  };
  launch(p.a, g.a, 1024);
  launch(p.b, g.b, 2048);
}
int main() {
  P p, g;
  cudaMalloc((void **)&p.a, 1024 * sizeof(float));
  cudaMalloc((void **)&p.b, 2048 * sizeof(float));
  cudaMalloc((void **)&g.a, 1024 * sizeof(float));
  cudaMalloc((void **)&g.b, 2048 * sizeof(float));
  for (int step = 0; step < 10; step++) update(p, g, 0.1f);
  return 0;
}
// CHECK: 4 of 4 accesses resolved
// CHECK: readwrite p.a 4.0 KiB
// CHECK: readwrite p.b 8.0 KiB
