// An access whose extent the analysis cannot bound is declared with
// TIDAL_EXTENT_UNKNOWN and a comment saying why, and listed in the header.
// RUN: sed -e 's@// *CHECK[-A-Z]*:.*@//@' %s > %t.cu
// RUN: %tidal rewrite %t.cu --plan none -o %t.out.cu -- %stubflags
// RUN: FileCheck %s < %t.out.cu
#define N 4096
__global__ void gather_kernel(float *y, const float *table, const int *idx, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = table[idx[i]];
}
// CHECK: not resolved
// CHECK: extent of 'table' unknown (TIDAL_EXTENT_UNKNOWN, to the end of its allocation):
int main(void) {
  float *y, *table;
  int *idx;
  cudaMalloc(&y, N * sizeof(float));
  cudaMalloc(&table, N * sizeof(float));
  cudaMalloc(&idx, N * sizeof(int));
  for (int step = 0; step < 3; step++) {
// CHECK: {(const void *)(table), TIDAL_EXTENT_UNKNOWN, TIDAL_READ}, /* extent unknown: {{.+}} */
    gather_kernel<<<N / 256, 256>>>(y, table, idx, N);
  }
  return 0;
}
