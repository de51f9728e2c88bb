// A kernel taking a struct of device pointers by value (`adam_kernel(AdamArgs
// a, int n)` touching a.p[i], a.m[i]) declares each pointer field the
// argument holds - resolved through the stored struct to its buffer - as a
// readwrite of unknown extent, and says so under "unresolved"; the rewriter
// declares every field (opsites.c, Note [conservative accesses]).
// RUN: %tidal graph %s -- %stubflags | FileCheck %s
// RUN: sed -e 's@// *CHECK[-A-Z]*:.*@//@' %s > %t.cu
// RUN: %tidal rewrite %t.cu --plan none -o %t.out.cu -- %stubflags
// RUN: FileCheck --check-prefix=RW %s < %t.out.cu

static const int N = 1024;
struct AdamArgs { float *p; float *g; float *m; };
__global__ void adam_kernel(AdamArgs a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { a.m[i] = 0.9f * a.m[i] + a.g[i]; a.p[i] -= a.m[i]; }
}

int main() {
  float *p, *g, *m;
  cudaMalloc((void **)&p, N * sizeof(float));
  cudaMalloc((void **)&g, N * sizeof(float));
  cudaMalloc((void **)&m, N * sizeof(float));
  for (int step = 0; step < 10; step++) {
    AdamArgs a = {p, g, m};
    adam_kernel<<<N / 256, 256>>>(a, N);
  }
  return 0;
}
// CHECK: #0 {{.*}} adam_kernel
// CHECK-NEXT: readwrite p {{ *}}unknown (upper bound)
// CHECK-NEXT: readwrite g {{ *}}unknown (upper bound)
// CHECK-NEXT: readwrite m {{ *}}unknown (upper bound)
// CHECK: unresolved (1):
// CHECK-NEXT: kernel 'adam_kernel' takes struct 'a' holding device pointers: each is declared readwrite
// RW: const tidal_access tidal_acc_0[3] = {
// RW-NEXT: {(const void *)(a.p), TIDAL_EXTENT_UNKNOWN, TIDAL_READWRITE},
// RW-NEXT: {(const void *)(a.g), TIDAL_EXTENT_UNKNOWN, TIDAL_READWRITE},
// RW-NEXT: {(const void *)(a.m), TIDAL_EXTENT_UNKNOWN, TIDAL_READWRITE},
