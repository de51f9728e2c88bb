// A split op whose kernel walks its elements in a grid-stride loop: any
// grid covers the count, so a piece keeps the program's grid when that is
// smaller than one block per BLOCK elements (tidal_split_grid_x's last
// argument is 1).  The grid is a dim3 here, so the hoisted grid and block
// are dim3 and only .x changes; the stream stays in the launch (a plain
// variable, evaluated once per piece).
// RUN: sed -e 's@// *CHECK[-A-Z]*:.*@//@' %s > %t.cu
// RUN: %tidal rewrite %t.cu --plan none -o %t.out.cu -- %stubflags
// RUN: FileCheck %s < %t.out.cu
#define N (1 << 20)
__global__ void axpy_kernel(float *y, const float *x, float a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] += a * x[i];
}
int main(void) {
  float *x, *y;
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  cudaMalloc(&x, N * sizeof(float));
  cudaMalloc(&y, N * sizeof(float));
  for (int step = 0; step < 3; step++) {
// CHECK-LABEL: /* tidal: split op axpy_kernel over N elements (8 bytes each over 2 arrays)
// CHECK: const dim3 tidal_grid_0 = (dim3(132 * 4)), tidal_block_0 = (dim3(256));
// CHECK-NEXT: const size_t tidal_n_0 = tidal_split_count((int)(N), tidal_grid_0.x, tidal_block_0.x, 1);
// CHECK-NEXT: const size_t tidal_step_0 = tidal_split_elements(tidal_n_0, 8);
// CHECK: dim3 tidal_g_0 = tidal_grid_0;
// CHECK-NEXT: if (tidal_step_0 < tidal_n_0) /* split: fewer blocks when the piece needs fewer (grid-stride kernel) */
// CHECK-NEXT: tidal_g_0.x = tidal_split_grid_x(tidal_grid_0.x, tidal_block_0.x, tidal_l_0, 1);
// CHECK-NEXT: const tidal_access tidal_acc_0[2] = {
// CHECK-NEXT: {(const void *)((y) + tidal_o_0), tidal_l_0 * 4, TIDAL_READWRITE},
// CHECK-NEXT: {(const void *)((x) + tidal_o_0), tidal_l_0 * 4, TIDAL_READ},
// CHECK: axpy_kernel<<<tidal_g_0, tidal_block_0, 0, stream>>>(TIDAL_AT((y) + tidal_o_0), TIDAL_AT((x) + tidal_o_0), 2.0f, (int)tidal_l_0); TIDAL_OP_END(&tidal_site_0);
// CHECK-NEXT: tidal_o_0 += tidal_l_0;
// CHECK-NEXT: } while (tidal_o_0 < tidal_n_0);
    axpy_kernel<<<dim3(132 * 4), dim3(256), 0, stream>>>(y, x, 2.0f, N);
  }
  return 0;
}
