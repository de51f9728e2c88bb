// An elementwise launch the analysis marks split (an AdamW step over four
// arrays, one thread per element behind an `if (i >= n) return` guard) is
// rewritten as a loop over pieces: grid and block hoisted, the piece length
// from tidal_split_elements, each piece declaring its own accesses
// (pointer + offset, length * 4 bytes) and launching with every pointer
// advanced and the count replaced; the launch itself keeps its line.
// RUN: sed -e 's@// *CHECK[-A-Z]*:.*@//@' %s > %t.cu
// RUN: %tidal rewrite %t.cu --plan none -o %t.out.cu -- %stubflags
// RUN: FileCheck %s < %t.out.cu
// CHECK: * split op: {{.*}}.cu:[[#LAUNCH:]]: main -> adamw_kernel, 16 bytes per element: runs in pieces when the whole op would not fit half the budget
#define N (1 << 20)
__global__ void adamw_kernel(float *params, const float *grads, float *m, float *v, int n,
                             float lr, float beta1, float beta2, float eps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float g = grads[i];
  m[i] = beta1 * m[i] + (1.0f - beta1) * g;
  v[i] = beta2 * v[i] + (1.0f - beta2) * g * g;
  params[i] -= lr * m[i] / (sqrtf(v[i]) + eps);
}
struct Opt {
  float *m, *v;
  float lr;
};
int main(void) {
  float *p, *g;
  Opt opt;
  opt.lr = 1e-3f;
  cudaMalloc(&p, N * sizeof(float));
  cudaMalloc(&g, N * sizeof(float));
  cudaMalloc(&opt.m, N * sizeof(float));
  cudaMalloc(&opt.v, N * sizeof(float));
  int threads = 256;
  for (int step = 0; step < 3; step++) {
// CHECK-LABEL: { /* tidal: op site 0: main -> adamw_kernel */
// CHECK-NEXT: /* tidal: split op adamw_kernel over N elements (16 bytes each over 4 arrays): when the whole op would not fit half the budget it runs in pieces (tidal_split_elements), each pointer advanced to its piece */
// CHECK-NEXT: static tidal_site tidal_site_0 = {"main -> adamw_kernel", "{{.*}}.cu", [[#LAUNCH]], 0.0};
// CHECK-NEXT: const unsigned int tidal_grid_0 = (unsigned int)((N + threads - 1) / threads), tidal_block_0 = (unsigned int)(threads);
// CHECK-NEXT: const size_t tidal_n_0 = tidal_split_count((int)(N), tidal_grid_0, tidal_block_0, 0);
// CHECK-NEXT: const size_t tidal_step_0 = tidal_split_elements(tidal_n_0, 16);
// CHECK-NEXT: size_t tidal_o_0 = 0;
// CHECK-NEXT: do { /* one piece: elements [tidal_o_0, tidal_o_0 + tidal_l_0) */
// CHECK-NEXT: const size_t tidal_l_0 = tidal_n_0 - tidal_o_0 < tidal_step_0 ? tidal_n_0 - tidal_o_0 : tidal_step_0;
// CHECK-NEXT: unsigned int tidal_g_0 = tidal_grid_0;
// CHECK-NEXT: if (tidal_step_0 < tidal_n_0) /* split: one thread per element of the piece */
// CHECK-NEXT: tidal_g_0 = tidal_split_grid_x(tidal_grid_0, tidal_block_0, tidal_l_0, 0);
// CHECK-NEXT: const tidal_access tidal_acc_0[4] = {
// CHECK-NEXT: {(const void *)((p) + tidal_o_0), tidal_l_0 * 4, TIDAL_READWRITE},
// CHECK-NEXT: {(const void *)((g) + tidal_o_0), tidal_l_0 * 4, TIDAL_READ},
// CHECK-NEXT: {(const void *)((opt.m) + tidal_o_0), tidal_l_0 * 4, TIDAL_READWRITE},
// CHECK-NEXT: {(const void *)((opt.v) + tidal_o_0), tidal_l_0 * 4, TIDAL_READWRITE},
// CHECK-NEXT: };
// CHECK-NEXT: TIDAL_OP_BEGIN(&tidal_site_0, 4, tidal_acc_0);
// CHECK-NEXT: #line [[#LAUNCH]] "{{.*}}.cu"
// CHECK-NEXT: adamw_kernel<<<tidal_g_0, tidal_block_0>>>(TIDAL_AT((p) + tidal_o_0), TIDAL_AT((g) + tidal_o_0), TIDAL_AT((opt.m) + tidal_o_0), TIDAL_AT((opt.v) + tidal_o_0),
// CHECK-NEXT: (int)tidal_l_0, opt.lr, 0.9f, 0.999f, 1e-8f); TIDAL_OP_END(&tidal_site_0);
// CHECK-NEXT: tidal_o_0 += tidal_l_0;
// CHECK-NEXT: } while (tidal_o_0 < tidal_n_0);
// CHECK-NEXT: }
// CHECK-NEXT: #line [[#LAUNCH+1]] "{{.*}}.cu"
    adamw_kernel<<<(N + threads - 1) / threads, threads>>>(p, g, opt.m, opt.v,
                                                           N, opt.lr, 0.9f, 0.999f, 1e-8f);
  }
  return 0;
}
