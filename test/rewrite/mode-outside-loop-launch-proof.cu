// Op sites outside the training loop get their accesses from the kernel
// analysis and the launch as written: a dense write launched with enough
// threads is TIDAL_WRITE; a strided write, or a dense one launched with
// too few threads, is declared TIDAL_READWRITE.
// RUN: sed -e 's@// *CHECK[-A-Z]*:.*@//@' %s > %t.cu
// RUN: %tidal rewrite %t.cu --plan none -o %t.out.cu -- %stubflags
// RUN: FileCheck %s < %t.out.cu
#define N 4096
__global__ void init_kernel(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = 1.0f;
}
__global__ void even_kernel(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[2 * i] = 1.0f;
}
__global__ void step_kernel(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.0f;
}
int main(void) {
  float *x;
  cudaMalloc(&x, 2 * N * sizeof(float));
// CHECK-LABEL: op site 0: main -> init_kernel
// CHECK: {(const void *)(x), ((size_t)4*(size_t)(N)), TIDAL_WRITE},{{$}}
  init_kernel<<<(N + 255) / 256, 256>>>(x, N);
// CHECK-LABEL: op site 1: main -> init_kernel
// CHECK: {(const void *)(x), ((size_t)4*(size_t)(N)), TIDAL_READWRITE}, /* write not proven to cover every byte: declared readwrite */
  init_kernel<<<N / 512, 256>>>(x, N);
// CHECK-LABEL: op site 2: main -> even_kernel
// CHECK: {(const void *)(x), {{.*}}, TIDAL_READWRITE}, /* write not proven to cover every byte: declared readwrite */
  even_kernel<<<N / 256, 256>>>(x, N);
  for (int it = 0; it < 3; it++) step_kernel<<<N / 256, 256>>>(x, N);
  return 0;
}
