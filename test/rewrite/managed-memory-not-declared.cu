// cudaMallocManaged and cudaMallocHost memory is not tidal's: the rewriter
// leaves those calls alone, so an op's access to them must not be declared
// (tidal_op_begin would fail with TIDAL_ERR_UNKNOWN_POINTER); the graph has
// no allocation or tensor for them.  The cudaMalloc'd buffer still is.
// RUN: %tidal graph %s -- %stubflags | FileCheck --check-prefix=GRAPH %s
// RUN: sed -e 's@// *CHECK[-A-Z]*:.*@//@' %s > %t.cu
// RUN: %tidal rewrite %t.cu --plan none -o %t.out.cu -- %stubflags
// RUN: FileCheck %s < %t.out.cu
#define N 4096
__global__ void add_kernel(float *y, const float *x, const float *h, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] + h[i];
}
int main(void) {
  float *y, *um, *pinned;
  cudaMalloc(&y, N * sizeof(float));
  cudaMallocManaged((void **)&um, N * sizeof(float));
  cudaMallocHost(&pinned, N * sizeof(float));
  for (int it = 0; it < 3; it++) {
// CHECK: const tidal_access tidal_acc_0[1] = {
// CHECK-NEXT: {(const void *)(y), ((size_t)4*(size_t)(N)), TIDAL_WRITE},
// CHECK-NEXT: };
    add_kernel<<<N / 256, 256>>>(y, um, pinned, N);
  }
  return 0;
}
// CHECK-NOT: (const void *)(um)
// CHECK-NOT: (const void *)(pinned)
// GRAPH: tensors: 1; allocations: 1
// GRAPH: add_kernel
// GRAPH-NEXT: write y
// GRAPH-NEXT: read (managed/host memory: not tidal's)
// GRAPH-NEXT: read (managed/host memory: not tidal's)
// GRAPH-NOT: um
// GRAPH: unresolved (0):
