// A buffer allocated by a helper that fills and returns a struct (`t =
// talloc(n); cudaMalloc(&t.data, ...)`), stored into a global, is named as
// the training loop reaches it (`net.x.data`), not as the helper's local
// (`t.data`, a name that means nothing where the loop runs).
// RUN: %tidal graph %s -- %stubflags 2>&1 | FileCheck %s
// CHECK: write     net.y.data
// CHECK-NEXT: read      net.x.data
// CHECK: T0   net.y.data {{.*}} in net.y.data at +0
// CHECK-NOT: t.data
#define N 4096
typedef struct { float *data; int n; } Tensor;
typedef struct { Tensor x, y; } Net;
Net net;
__global__ void scale(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i];
}
Tensor talloc(int n) {
  Tensor t;
  t.n = n;
  cudaMalloc(&t.data, n * sizeof(float));
  return t;
}
void step(void) { scale<<<N / 256, 256>>>(net.y.data, net.x.data, N); }
int main(void) {
  net.x = talloc(N);
  net.y = talloc(N);
  for (int it = 0; it < 10; it++) step();
  return 0;
}
