// A kernel taking a struct by value holds a device pointer in each of its
// 70 fields: every field is an access of the launch, the last one too,
// which the kernel writes.  (The graph once read a struct's first 64
// children only: p.f64 ... p.f69 were no accesses, the write to p.f69 was
// lost and its buffer was no tensor.)
// RUN: %tidal graph %s -- %stubflags 2>&1 | FileCheck %s
struct Params {
  float *f0;
  float *f1;
  float *f2;
  float *f3;
  float *f4;
  float *f5;
  float *f6;
  float *f7;
  float *f8;
  float *f9;
  float *f10;
  float *f11;
  float *f12;
  float *f13;
  float *f14;
  float *f15;
  float *f16;
  float *f17;
  float *f18;
  float *f19;
  float *f20;
  float *f21;
  float *f22;
  float *f23;
  float *f24;
  float *f25;
  float *f26;
  float *f27;
  float *f28;
  float *f29;
  float *f30;
  float *f31;
  float *f32;
  float *f33;
  float *f34;
  float *f35;
  float *f36;
  float *f37;
  float *f38;
  float *f39;
  float *f40;
  float *f41;
  float *f42;
  float *f43;
  float *f44;
  float *f45;
  float *f46;
  float *f47;
  float *f48;
  float *f49;
  float *f50;
  float *f51;
  float *f52;
  float *f53;
  float *f54;
  float *f55;
  float *f56;
  float *f57;
  float *f58;
  float *f59;
  float *f60;
  float *f61;
  float *f62;
  float *f63;
  float *f64;
  float *f65;
  float *f66;
  float *f67;
  float *f68;
  float *f69;
};
__global__ void k(Params p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p.f69[i] = 1.0f;
}
int main(void) {
  Params p;
  cudaMalloc((void **)&p.f0, 4096 * sizeof(float));
  cudaMalloc((void **)&p.f69, 4096 * sizeof(float));
  for (int it = 0; it < 10; it++) k<<<16, 256>>>(p, 4096);
  return 0;
}
// CHECK: 2 of 70 accesses resolved
// CHECK: tensors: 2;
// CHECK: readwrite p.f0
// CHECK: readwrite p.f69
