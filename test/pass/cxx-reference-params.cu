// C++ reference parameters: `alloc(P &p)` allocates into the caller's
// struct and `step(P &p)` launches on its fields; both name the caller's
// object, so the accesses resolve (before: unresolved, the parameter was a
// copy of nothing).
// RUN: %tidal graph %s -- %stubflags 2>&1 | FileCheck %s
struct P { float *w; float *g; int n; };
__global__ void sgd(float *w, const float *g, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) w[i] -= 0.1f * g[i];
}
void alloc(P &p, int n) {
  p.n = n;
  cudaMalloc((void **)&p.w, n * sizeof(float));
  cudaMalloc((void **)&p.g, n * sizeof(float));
}
void step(P &p) { sgd<<<(p.n + 255) / 256, 256>>>(p.w, p.g, p.n); }
int main() {
  P p;
  alloc(p, 4096);
  for (int it = 0; it < 10; it++) step(p);
  return 0;
}
// CHECK: 2 of 2 accesses resolved
// CHECK: readwrite p.w 4*p.n = 16.0 KiB
// CHECK-NEXT: read p.g 4*p.n = 16.0 KiB
// CHECK: unresolved (0):
