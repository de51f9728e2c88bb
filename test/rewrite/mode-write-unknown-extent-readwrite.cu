// TIDAL_WRITE lets the runtime map an evicted chunk fresh, without its old
// bytes: a write not proven to cover every byte (here a scatter through an
// index read from memory) is declared TIDAL_READWRITE and says why, while
// a guarded elementwise write launched with enough threads stays a write.
// RUN: sed -e 's@// *CHECK[-A-Z]*:.*@//@' %s > %t.cu
// RUN: %tidal rewrite %t.cu --plan none -o %t.out.cu -- %stubflags
// RUN: FileCheck %s < %t.out.cu
#define N 4096
__global__ void scale_kernel(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i];
}
__global__ void scatter_kernel(float *y, const int *idx, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[idx[i]] = x[i];
}
int main(void) {
  float *x, *y, *z;
  int *idx;
  cudaMalloc(&x, N * sizeof(float));
  cudaMalloc(&y, N * sizeof(float));
  cudaMalloc(&z, N * sizeof(float));
  cudaMalloc(&idx, N * sizeof(int));
  for (int it = 0; it < 3; it++) {
// CHECK-LABEL: /* tidal: op site 0: main -> scale_kernel */
// CHECK: {(const void *)(y), ((size_t)4*(size_t)(N)), TIDAL_WRITE},{{$}}
    scale_kernel<<<N / 256, 256>>>(y, x, N);
// CHECK-LABEL: /* tidal: op site 1: main -> scatter_kernel */
// CHECK: {(const void *)(z), TIDAL_EXTENT_UNKNOWN, TIDAL_READWRITE}, /* extent unknown: {{.*}} */ /* write not proven to cover every byte: declared readwrite */
// CHECK-NOT: TIDAL_WRITE
// CHECK: TIDAL_OP_BEGIN(&tidal_site_1
    scatter_kernel<<<N / 256, 256>>>(z, idx, x, N);
  }
  return 0;
}
