// C++ references to elements of an array of structs: a local `Block &blk =
// model.h[l];` (in setup, where writes through it carve the arena into the
// element, and in the layer loop) and a reference parameter (`layer(Block
// &blk)` called with `model.h[l]`).  Every access resolves, and the layers
// read their own elements (layer 0's proj.b, written in the forward and read
// in the backward, is an eviction candidate).
// RUN: %tidal graph %s -- %stubflags 2>&1 | FileCheck %s
// RUN: %tidal graph %s --format json -- %stubflags | FileCheck --check-prefix=JSON %s
// CHECK: 9 of 9 accesses resolved
// CHECK: read      model.h[l].fc.w
// CHECK-NEXT: read      model.h[l].fc.b
// CHECK: readwrite blk.proj.b
// CHECK-NEXT: read      blk.proj.w
// CHECK: unresolved (0):
// JSON-DAG: "instance": "model.h[0].proj.b",
#define L 3
#define N 256
typedef struct { float *w; float *b; } Lin;
typedef struct { Lin fc; Lin proj; } Block;
typedef struct { Block h[L]; float *mem; } Model;
Model model;
float *x;
__global__ void fwd(float *out, const float *w, const float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = out[i] * w[i] + b[i];
}
void layer(Block &blk) { fwd<<<1, N>>>(x, blk.fc.w, blk.fc.b, N); }
int main(void) {
  cudaMalloc(&x, N * sizeof(float));
  cudaMalloc(&model.mem, L * 4 * N * sizeof(float));
  float *p = model.mem;
  for (int l = 0; l < L; l++) {
    Block &blk = model.h[l];
    blk.fc.w = p; p += N;
    blk.fc.b = p; p += N;
    blk.proj.w = p; p += N;
    blk.proj.b = p; p += N;
  }
#pragma tidal train
  for (int step = 0; step < 10; step++) {
    for (int l = 0; l < L; l++) {
      Block &blk = model.h[l];
      layer(model.h[l]);
      fwd<<<1, N>>>(blk.proj.b, blk.proj.w, x, N);
    }
    for (int l = L - 1; l >= 0; l--) fwd<<<1, N>>>(x, model.h[l].proj.b, x, N);
  }
  return 0;
}
