// Arrays of structs indexed by the layer loop's variable, through a
// pointer to the element (`Block *blk = &model.h[l]; blk->fc.w`): the
// parameters are carved from one arena (members of member structs), the
// activations are each their own cudaMalloc made by a helper returning a
// struct by value (`lb->a = talloc(n)`).  Every access resolves to a
// tensor; each unrolled layer touches its own element (layer 0's
// activation and its arena slice proj.b, written in the forward and read
// in the backward, are idle in between: candidates), and the plan replays
// with matching checksums.
// RUN: %tidal graph %s -- %stubflags 2>&1 | FileCheck %s
// RUN: %tidal graph %s --format json -- %stubflags | FileCheck --check-prefix=JSON %s
// RUN: %tidal replay %s --chunk 4K --budget 60% -- %stubflags | FileCheck --check-prefix=REPLAY %s
// CHECK: 12 of 12 accesses resolved
// CHECK: ops: 3 static, 9 per iteration unrolled
// CHECK: write     bufs.blocks[l].a.data
// CHECK-NEXT: read      bufs.in.data
// CHECK-NEXT: read      model.h[l].fc.w
// CHECK-NEXT: read      model.h[l].fc.b
// CHECK: write     model.h[l].proj.b
// CHECK-NEXT: read      bufs.blocks[l].a.data
// CHECK-NEXT: read      model.h[l].proj.w
// CHECK-NEXT: read      bufs.blocks[l].b.data
// CHECK: unresolved (0):
// JSON-DAG: "instance": "model.h[0].proj.b",
// JSON-DAG: "instance": "bufs.blocks[0].a.data",
// REPLAY: checksums match (9 ops
#define L 3
#define N 1024
typedef struct { float *data; int n; } Tensor;
typedef struct { float *w, *b; } Lin;
typedef struct { Lin fc, proj; } Block;
typedef struct { Block h[L]; float *mem; } Model;
typedef struct { Tensor a, b; } LayerBufs;
typedef struct { Tensor in; LayerBufs blocks[L]; } Bufs;
Model model;
Bufs bufs;
__global__ void lin(float *out, const float *in, const float *w, const float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * w[i] + b[i];
}
Tensor talloc(int n) {
  Tensor t;
  t.n = n;
  cudaMalloc(&t.data, n * sizeof(float));
  return t;
}
void init(Model *m) {
  cudaMalloc(&m->mem, L * 4 * 256 * sizeof(float));
  float *p = m->mem;
  for (int l = 0; l < L; l++) {
    Block *blk = &m->h[l];
    blk->fc.w = p; p += 256;
    blk->fc.b = p; p += 256;
    blk->proj.w = p; p += 256;
    blk->proj.b = p; p += 256;
  }
}
void setup(Bufs *b) {
  b->in = talloc(N);
  for (int l = 0; l < L; l++) {
    LayerBufs *lb = &b->blocks[l];
    lb->a = talloc(N);
    lb->b = talloc(N);
  }
}
void forward(void) {
  for (int l = 0; l < L; l++) {
    Block *blk = &model.h[l];
    LayerBufs *lb = &bufs.blocks[l];
    lin<<<1, 256>>>(lb->a.data, bufs.in.data, blk->fc.w, blk->fc.b, 256);
    lin<<<1, 256>>>(blk->proj.b, lb->a.data, blk->proj.w, lb->b.data, 256);
  }
  for (int l = L - 1; l >= 0; l--) {
    Block *blk = &model.h[l];
    lin<<<1, 256>>>(bufs.blocks[l].b.data, bufs.blocks[l].a.data, blk->proj.b, blk->fc.b, 256);
  }
}
int main(void) {
  init(&model);
  setup(&bufs);
  for (int step = 0; step < 10; step++) forward();
  return 0;
}
