// GNU `c ?: 0` ends in a 0 but is c (when c is not NULL): the kernel reads
// through it, so the access is declared to the runtime.  The null test once
// went through any wrapper to its last child and found the 0: the read of c
// was silently left out (the launch before the loop, which no graph op
// covers).
// RUN: sed -e 's@// *CHECK[-A-Z]*:.*@//@' %s > %t.cu
// RUN: %tidal rewrite %t.cu --plan none -o %t.out.cu -- %stubflags
// RUN: FileCheck %s < %t.out.cu
// CHECK: static tidal_site tidal_site_0 = {"main -> fwd", "{{.*}}.cu", {{[0-9]+}}, 0.0};
// CHECK-NEXT: const tidal_access tidal_acc_0[3] = {
// CHECK-NEXT: {(const void *)(d), {{.*}}, TIDAL_WRITE},
// CHECK-NEXT: {(const void *)(b), {{.*}}, TIDAL_READ},
// CHECK-NEXT: {(const void *)(c ?: 0), {{.*}}},
// CHECK-NEXT: };
// CHECK: fwd<<<N / 256, 256>>>(TIDAL_AT(d), TIDAL_AT(b), TIDAL_AT(c ?: 0), N); TIDAL_OP_END(&tidal_site_0); }
#define N 1048576
__global__ void fwd(float *out, const float *in, const float *bias, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i] + (bias ? bias[i] : 0.0f);
}
int main(void) {
  float *b, *c, *d;
  cudaMalloc(&b, N * sizeof(float));
  cudaMalloc(&c, N * sizeof(float));
  cudaMalloc(&d, N * sizeof(float));
  fwd<<<N / 256, 256>>>(d, b, c ?: 0, N);
#pragma tidal train
  for (int step = 0; step < 10; step++) {
    fwd<<<N / 256, 256>>>(b, d, c, N);
    fwd<<<N / 256, 256>>>(d, b, c, N);
  }
  return 0;
}
