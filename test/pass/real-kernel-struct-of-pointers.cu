// XFAIL: *
// BUG (pass/opsites.c, launch_accesses): a kernel that takes a struct of
// device pointers by value (`adam_kernel(AdamArgs a, int n)` touching
// a.p[i], a.m[i]) is recorded with no accesses at all and nothing under
// "unresolved", so the plan may evict buffers the kernel uses.  kernels.c
// lists the parameter as a scalar (kernel_param.is_pointer == 0; struct
// fields holding pointers are not followed).  Fix: for a non-pointer
// kernel parameter whose type is a record with pointer fields, add a
// gb_note ("kernel 'adam_kernel' parameter 'a' holds device pointers tidal
// does not follow; their buffers are not declared") - and, better, declare
// each pointer field of the argument's stored struct (the interpreter holds
// "a.p", "a.g", "a.m") as a readwrite access with unknown extent.
// RUN: %tidal graph %s -- %stubflags | FileCheck %s

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
// CHECK-NEXT: {{readwrite|unknown}}
// CHECK: unresolved
// CHECK-NOT: nothing
