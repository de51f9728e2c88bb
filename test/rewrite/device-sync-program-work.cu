// Issue 19, Note [the program's sync] (pass/rewrite/rewrite.c): the
// program's cudaDeviceSynchronize (and cudaThreadSynchronize) becomes
// TIDAL_CUDA_DEVICE_SYNCHRONIZE, which waits for the program's work but not
// for tidal's copies to the host store, so a step that ends in a sync does
// not wait for the swap-outs issued after its last ops.  A program that
// creates a stream that may not block on the legacy default stream keeps
// its calls as written, and the header says why.
// RUN: sed -e 's@// *[A-Z]*[-A-Z]*: .*@//@' %s > %t.cu
// RUN: %tidal rewrite %t.cu --plan none -o %t.out.cu -- %stubflags
// RUN: FileCheck %s < %t.out.cu
// RUN: %tidal rewrite %t.cu --plan none -o %t.nb.cu -- %stubflags -DNONBLOCKING
// RUN: FileCheck %s --check-prefix=KEPT < %t.nb.cu
// KEPT: cudaDeviceSynchronize left as written (it also waits for tidal's copies to the host store): it calls cudaStreamCreateWithFlags (line {{[0-9]+}}), whose stream may not wait for the legacy default stream
// KEPT-NOT: TIDAL_CUDA_DEVICE_SYNCHRONIZE()
#define N 4096
#define CHECK_CUDA(x) do { if ((x) != cudaSuccess) return 1; } while (0)
__global__ void k(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.0f;
}
static void finish_step(void) {
// CHECK: TIDAL_CUDA_DEVICE_SYNCHRONIZE() /* tidal: waits for the program's work, not for tidal's copies to the host store */;
  cudaThreadSynchronize();
}
int main(void) {
  float *a;
#ifdef NONBLOCKING
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
#endif
  CHECK_CUDA(cudaMalloc(&a, N * sizeof(float)));
  for (int it = 0; it < 4; it++) {
    k<<<N / 256, 256>>>(a, N);
// CHECK: CHECK_CUDA(TIDAL_CUDA_DEVICE_SYNCHRONIZE() /* tidal: waits for the program's work, not for tidal's copies to the host store */);
    CHECK_CUDA(cudaDeviceSynchronize());
    finish_step();
  }
// CHECK-NOT: cudaDeviceSynchronize()
  cudaFree(a);
  return 0;
}
