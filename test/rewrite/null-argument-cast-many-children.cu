// A null pointer argument written as a cast whose type spells many children
// (`(P<1, ..., 8>)0`: libclang shows a TemplateRef and eight arguments before
// the operand 0) is NULL all the same: not declared to the runtime, where
// tidal_op_begin would fail on it.  The null test once stopped at 8 children
// and declared it (the launch before the loop, which no graph op covers).
// RUN: sed -e 's@// *CHECK[-A-Z]*:.*@//@' %s > %t.cu
// RUN: %tidal rewrite %t.cu --plan none -o %t.out.cu -- %stubflags
// RUN: FileCheck %s < %t.out.cu
// CHECK-NOT: (const void *)((P<
// CHECK: static tidal_site tidal_site_0 = {"main -> fwd", "{{.*}}.cu", {{[0-9]+}}, 0.0};
// CHECK-NEXT: const tidal_access tidal_acc_0[2] = {
// CHECK-NEXT: {(const void *)(d), {{.*}}, TIDAL_WRITE},
// CHECK-NEXT: {(const void *)(b), {{.*}}, TIDAL_READ},
// CHECK-NEXT: };
// CHECK: fwd<<<N / 256, 256>>>(TIDAL_AT(d), TIDAL_AT(b), (P<1, 2, 3, 4, 5, 6, 7, 8>)0, N); TIDAL_OP_END(&tidal_site_0); }
// CHECK-NOT: (const void *)((P<
#define N 1048576
template <int...> using P = const float *;
__global__ void fwd(float *out, const float *in, const float *bias, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i] + (bias ? bias[i] : 0.0f);
}
int main(void) {
  float *b, *d;
  cudaMalloc(&b, N * sizeof(float));
  cudaMalloc(&d, N * sizeof(float));
  fwd<<<N / 256, 256>>>(d, b, (P<1, 2, 3, 4, 5, 6, 7, 8>)0, N);
#pragma tidal train
  for (int step = 0; step < 10; step++) {
    fwd<<<N / 256, 256>>>(b, d, (P<1, 2, 3, 4, 5, 6, 7, 8>)0, N);
    fwd<<<N / 256, 256>>>(d, b, (P<1, 2, 3, 4, 5, 6, 7, 8>)0, N);
  }
  return 0;
}
