// A 2D tiled kernel (llm.c's matmul_forward_kernel4): rows by blockIdx.x,
// columns by `8*(blockIdx.y * blockDim.y + threadIdx.y)`, float4 loads
// through a helper, pointers advanced by the block's tile.  The y index is
// a product of two bounded values (Note [bounded products]), so every
// extent is in the launch's dimensions; the launch gives them in x and y
// through dim3 variables built in place, as a temporary and with braces
// (Note [launch dimensions]): the accesses are bounded by the op's
// arguments, not the whole allocation.
// RUN: %tidal kernels %s -- %stubflags | FileCheck --check-prefix=K %s
// RUN: %tidal graph %s -- %stubflags | FileCheck %s
// K-LABEL: kernel mm_tile
// K-NEXT: param out: mode=write extent=128*gridDim.x*OC + 128*gridDim.y
// K: param bias: mode=read extent=8*gridDim.y*blockDim.y + 3
// CHECK: #0 {{.*}}mm -> mm_tile
// CHECK-NEXT: write     out{{ +}}{{[0-9]}}
// CHECK-NEXT: read      inp{{ +}}{{[0-9]}}
// CHECK-NEXT: read      w{{ +}}{{[0-9]}}
// CHECK-NEXT: read      bias{{ +}}{{[0-9]}}
// CHECK-NOT: unknown
// CHECK: #1 {{.*}}mm2 -> mm_tile
// CHECK-NEXT: write     out{{ +}}{{[0-9]}}
// CHECK: #2 {{.*}}mm3 -> mm_tile
// CHECK-NEXT: write     out{{ +}}{{[0-9]}}
// CHECK-NOT: unknown
#include <stddef.h>
#define CEIL_DIV(a, b) (((a) + (b) - 1) / (b))
__device__ float4 ld4(const float *p) { return *reinterpret_cast<const float4 *>(p); }
__global__ void mm_tile(float *out, const float *inp, const float *w, const float *bias, int C,
                        int OC) {
  int oc = 8 * (blockIdx.y * blockDim.y + threadIdx.y);
  inp += 128 * blockIdx.x * C;
  w += 128 * blockIdx.y * C;
  out += 128 * blockIdx.x * OC + 128 * blockIdx.y;
  float acc = 0.0f;
  for (int j = 0; j < 8; j += 4) acc += ld4(bias + oc + j).x;
  for (int so = 0; so < C; so += 32)
    for (int y = threadIdx.y; y < 128; y += 16) acc += ld4(inp + y * C + so).x + ld4(w + y * C + so).x;
  for (int i = 0; i < 8; i++) out[(8 * threadIdx.x + i) * OC + 8 * threadIdx.y] = acc;
}
void mm(float *out, const float *inp, const float *w, const float *bias, int BT, int C, int OC) {
  dim3 grid(CEIL_DIV(BT, 128), CEIL_DIV(OC, 128));
  dim3 block(16, 16);
  mm_tile<<<grid, block>>>(out, inp, w, bias, C, OC);
}
void mm2(float *out, const float *inp, const float *w, const float *bias, int BT, int C, int OC) {
  mm_tile<<<dim3(CEIL_DIV(BT, 128), CEIL_DIV(OC, 128)), dim3(16, 16)>>>(out, inp, w, bias, C, OC);
}
void mm3(float *out, const float *inp, const float *w, const float *bias, int BT, int C, int OC) {
  dim3 grid = {(unsigned)CEIL_DIV(BT, 128), (unsigned)CEIL_DIV(OC, 128)};
  dim3 block = {16, 16, 1};
  mm_tile<<<grid, block>>>(out, inp, w, bias, C, OC);
}
int main(void) {
  int BT = 4096, C = 768, OC = 3 * 768;
  float *inp, *w, *bias, *out;
  cudaMalloc((void **)&inp, BT * C * sizeof(float));
  cudaMalloc((void **)&w, OC * C * sizeof(float));
  cudaMalloc((void **)&bias, OC * sizeof(float));
  cudaMalloc((void **)&out, BT * OC * sizeof(float));
  for (int step = 0; step < 10; step++) {
    mm(out, inp, w, bias, BT, C, OC);
    mm2(out, inp, w, bias, BT, C, OC);
    mm3(out, inp, w, bias, BT, C, OC);
  }
  return 0;
}
