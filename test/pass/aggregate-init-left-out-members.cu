// Members an aggregate initialiser leaves out (interp_stmt.c, Note
// [zero-filled members]): zero in C and for plain C++ members, but a C++
// default member initialiser (`int n = 1024;`) gives its own value:
// `Cfg c = {};` has n == 1024, so the buffer is 4 KiB.  (A first version
// of the zero fill stored 0 there: a zero-byte allocation.)
// RUN: %tidal graph %s -- %stubflags 2>&1 | FileCheck %s
// CHECK: managed 2 of 2 allocations (6.0 KiB of 6.0 KiB); 2 of 2 accesses resolved
// CHECK: bindings: {{.*}}c.n=1024*
// CHECK: write c.buf {{.*}}4.0 KiB
// CHECK: write d.buf {{.*}}2.0 KiB
struct Cfg {
  int n = 1024;
  int pad;
  float *buf;
};
__global__ void fill(float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 0.f;
}
int main() {
  Cfg c = {};
  Cfg d = {512};
  cudaMalloc((void **)&c.buf, (c.n + c.pad) * sizeof(float));
  cudaMalloc((void **)&d.buf, (d.n + d.pad) * sizeof(float));
  for (int s = 0; s < 3; s++) {
    fill<<<(c.n + 255) / 256, 256>>>(c.buf, c.n);
    fill<<<(d.n + 255) / 256, 256>>>(d.buf, d.n);
  }
  return 0;
}
