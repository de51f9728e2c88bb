// Allocations smaller than the runtime's 2 MiB chunk share chunks (slabs)
// that move as one unit; the rewrite packs the ones the same ops use
// together (tidal_malloc_grouped), here a with c and b with d, which
// allocation order would have split.  A chunk-sized buffer is not grouped.
// RUN: sed -e 's@// *CHECK[-A-Z]*:.*@//@' %s > %t.cu
// RUN: %tidal rewrite %t.cu -o %t.out.cu -- %stubflags
// RUN: FileCheck %s < %t.out.cu
#define N 262144
__global__ void copy(float *x, const float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = y[i];
}
int main(void) {
  float *a, *b, *c, *d, *big;
// CHECK: tidal_malloc_grouped((void **)(&a), N * sizeof(float), TIDAL_GROUP_RELOCATABLE | [[AC:[0-9]+]]u)
  cudaMalloc(&a, N * sizeof(float));
// CHECK: tidal_malloc_grouped((void **)(&b), N * sizeof(float), TIDAL_GROUP_RELOCATABLE | [[BD:[0-9]+]]u)
  cudaMalloc(&b, N * sizeof(float));
// CHECK: tidal_malloc_grouped((void **)(&c), N * sizeof(float), TIDAL_GROUP_RELOCATABLE | [[AC]]u)
  cudaMalloc(&c, N * sizeof(float));
// CHECK: tidal_malloc_grouped((void **)(&d), N * sizeof(float), TIDAL_GROUP_RELOCATABLE | [[BD]]u)
  cudaMalloc(&d, N * sizeof(float));
// CHECK: tidal_malloc_grouped((void **)(&big), 4 * N * sizeof(float), TIDAL_GROUP_RELOCATABLE)
  cudaMalloc(&big, 4 * N * sizeof(float));
  for (int it = 0; it < 4; it++) {
    copy<<<N / 256, 256>>>(c, a, N);
    copy<<<N / 256, 256>>>(d, b, N);
    copy<<<4 * N / 256, 256>>>(big, big, 4 * N);
  }
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  cudaFree(d);
  cudaFree(big);
  return 0;
}
