// A split op one of whose arguments calls a function runs whole: in pieces
// the call would run once per piece (here it also decays the learning rate
// each time).  The launch gets the ordinary op wrapper with whole extents,
// and the reason is in the site comment and the header's "not resolved".
// RUN: sed -e 's@// *CHECK[-A-Z]*:.*@//@' %s > %t.cu
// RUN: %tidal rewrite %t.cu --plan none -o %t.out.cu -- %stubflags
// RUN: FileCheck %s < %t.out.cu
// CHECK: not resolved (handled conservatively):
// CHECK-NEXT: {{.*}}.cu:[[#LAUNCH:]]: split op sgd_kernel runs whole: argument 2 ('next_lr(&lr)') has a call or a side effect: it would be evaluated once per piece
// CHECK-NOT: tidal_split_elements
#define N (1 << 20)
__global__ void sgd_kernel(float *param, const float *grad, float lr, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) param[i] -= lr * grad[i];
}
static float next_lr(float *lr) { return *lr *= 0.99f; }
int main(void) {
  float *p, *g, lr = 0.1f;
  cudaMalloc(&p, N * sizeof(float));
  cudaMalloc(&g, N * sizeof(float));
  for (int step = 0; step < 3; step++) {
// CHECK: { /* tidal: op site 0: main -> sgd_kernel; split op sgd_kernel runs whole: argument 2 ('next_lr(&lr)') has a call or a side effect: it would be evaluated once per piece */
// CHECK-NEXT: static tidal_site tidal_site_0 = {"main -> sgd_kernel", "{{.*}}.cu", [[#LAUNCH]], 0.0};
// CHECK-NEXT: const tidal_access tidal_acc_0[2] = {
// CHECK-NEXT: {(const void *)(p), ((size_t)4194304), TIDAL_READWRITE},
// CHECK-NEXT: {(const void *)(g), ((size_t)4194304), TIDAL_READ},
// CHECK: sgd_kernel<<<N / 256, 256>>>(TIDAL_AT(p), TIDAL_AT(g), next_lr(&lr), N); TIDAL_OP_END(&tidal_site_0); }
    sgd_kernel<<<N / 256, 256>>>(p, g, next_lr(&lr), N);
  }
  return 0;
}
