// cudaMalloc/cudaFree become tidal_malloc/tidal_free, keeping the
// cudaError_t value the program's own checks expect; the Async forms say
// what happened to their stream ordering.
// RUN: sed -e 's@// *CHECK[-A-Z]*:.*@//@' %s > %t.cu
// RUN: %tidal rewrite %t.cu --plan none -o %t.out.cu -- %stubflags
// RUN: FileCheck %s < %t.out.cu
#define N 4096
#define CHECK_CUDA(x) do { if ((x) != cudaSuccess) return 1; } while (0)
__global__ void k(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = 0.0f;
}
int main(void) {
  float *a, *b;
  cudaStream_t s = 0;
// CHECK: CHECK_CUDA((cudaError_t)TIDAL_CUDA_STATUS(tidal_malloc_grouped((void **)(&a), N * sizeof(float), TIDAL_GROUP_RELOCATABLE)) /* tidal: relocatable: every use is an op argument through TIDAL_AT */);
  CHECK_CUDA(cudaMalloc(&a, N * sizeof(float)));
// CHECK: (cudaError_t)TIDAL_CUDA_STATUS(tidal_malloc_grouped((void **)((void **)&b), N * sizeof(float), TIDAL_GROUP_RELOCATABLE)) /* tidal: relocatable: every use is an op argument through TIDAL_AT */ /* tidal: was cudaMallocAsync on stream s;
  cudaMallocAsync((void **)&b, N * sizeof(float), s);
  for (int it = 0; it < 2; it++) k<<<N / 256, 256>>>(a, N);
// CHECK: CHECK_CUDA((cudaError_t)TIDAL_CUDA_STATUS(tidal_free((void *)(a))));
  CHECK_CUDA(cudaFree(a));
// CHECK: ((void)cudaStreamSynchronize(s), (cudaError_t)TIDAL_CUDA_STATUS(tidal_free((void *)(b)))) /* tidal: was cudaFreeAsync;
  cudaFreeAsync(b, s);
// CHECK-NOT: cudaMalloc(
// CHECK-NOT: cudaFree(
  return 0;
}
