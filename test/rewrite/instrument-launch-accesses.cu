// A launch in the training loop is wrapped in tidal_op_begin/op_end with
// one access descriptor per pointer argument, text as written at the site.
// RUN: sed -e 's@// *CHECK[-A-Z]*:.*@//@' %s > %t.cu
// RUN: %tidal rewrite %t.cu --plan none -o %t.out.cu -- %stubflags
// RUN: FileCheck %s < %t.out.cu
#define N 4096
__global__ void scale_kernel(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i];
}
int main(void) {
  float *x, *y;
  cudaMalloc(&x, N * sizeof(float));
  cudaMalloc(&y, N * sizeof(float));
  for (int it = 0; it < 3; it++) {
// CHECK: { /* tidal: op site 0: main -> scale_kernel */
// CHECK-NEXT: static tidal_site tidal_site_0 = {"main -> scale_kernel", "{{.*}}.cu", [[@LINE+6]], 0.0};
// CHECK-NEXT: const tidal_access tidal_acc_0[2] = {
// CHECK-NEXT: {(const void *)(y), ((size_t)4*(size_t)(N)), TIDAL_WRITE},
// CHECK-NEXT: {(const void *)(x), ((size_t)4*(size_t)(N)), TIDAL_READ},
// CHECK-NEXT: };
// CHECK-NEXT: TIDAL_OP_BEGIN(&tidal_site_0, 2, tidal_acc_0);
    scale_kernel<<<N / 256, 256>>>(y, x, N);
// CHECK: scale_kernel<<<N / 256, 256>>>(TIDAL_AT(y), TIDAL_AT(x), N); TIDAL_OP_END(&tidal_site_0); }
  }
  return 0;
}
