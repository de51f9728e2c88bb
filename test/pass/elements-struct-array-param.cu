// Elements of arrays of structs passed into layer functions by pointer
// (`layer(&model.h[l], &acts[l])`, and `model.h + l`): the callee's
// `blk->w` is the element at the caller's loop index, for every layer.
// RUN: %tidal graph %s -- %stubflags 2>&1 | FileCheck %s
// RUN: %tidal graph %s --format json -- %stubflags | FileCheck --check-prefix=JSON %s
// CHECK: 6 of 6 accesses resolved
// CHECK: forward -> layer -> lin
// CHECK-NEXT: write     acts[l].y
// CHECK-NEXT: read      model.h[l].w
// CHECK: backward -> grad -> lin
// CHECK-NEXT: write     (model.h + l)->g
// CHECK-NEXT: read      model.h[l].w
// CHECK: unresolved (0):
// JSON-DAG: "instance": "acts[0].y",
// JSON-DAG: "name": "(model.h + l)->g", {{.*}} "index": "l", "elements": [{"name": "model.h[0].g", "allocation": 0, "offset": "4*N", "offset_value": 16384}, {"name": "model.h[1].g", "allocation": 0, "offset": "12*N", "offset_value": 49152}
#define L 4
#define N 4096
typedef struct { float *w, *g; } Block;
typedef struct { Block h[L]; float *mem; } Model;
typedef struct { float *y; } Act;
Model model;
Act acts[L];
__global__ void lin(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i];
}
void layer(const Block *blk, Act *a) { lin<<<N / 256, 256>>>(a->y, blk->w, N); }
void grad(Block *blk) { lin<<<N / 256, 256>>>(blk->g, blk->w, N); }
void forward(void) {
  for (int l = 0; l < L; l++) layer(&model.h[l], &acts[l]);
}
void backward(void) {
  for (int l = L - 1; l >= 0; l--) {
    grad(model.h + l);
    lin<<<N / 256, 256>>>(model.h[l].g, acts[l].y, N);
  }
}
int main(void) {
  cudaMalloc(&model.mem, L * 2 * N * sizeof(float));
  for (int l = 0; l < L; l++) {
    model.h[l].w = model.mem + 2 * l * N;
    model.h[l].g = model.mem + (2 * l + 1) * N;
    cudaMalloc(&acts[l].y, N * sizeof(float));
  }
#pragma tidal train
  for (int step = 0; step < 10; step++) {
    forward();
    backward();
  }
  return 0;
}
