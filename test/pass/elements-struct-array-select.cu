// A struct chosen per layer, `Tensor res = l == 0 ? bufs.in : bufs.blocks[l
// - 1].out;` (the first layer reads the input, later ones the previous
// layer's output, each its own cudaMalloc), a copy of a constant element
// (`bufs.blocks[L - 1].out`), and one more loop naming the same elements
// by another variable (`i` in zero_grads): every access resolves, the
// selected input is one tensor over the layers, and the plan replays.  The
// copy is named as the program keeps it (`bufs.blocks[2].out.data`; before
// the returned struct was copied field by field, the helper's `t.data`).
// RUN: %tidal graph %s -- %stubflags 2>&1 | FileCheck %s
// RUN: %tidal replay %s --chunk 4K --budget 60% -- %stubflags | FileCheck --check-prefix=REPLAY %s
// CHECK: 5 of 5 accesses resolved
// CHECK: write     bufs.blocks[i].out.data
// CHECK: forward -> fwd
// CHECK-NEXT: write     bufs.blocks[i].out.data
// CHECK-NEXT: read      (l == 0 ? bufs.in : bufs.blocks[l - 1].out).data
// CHECK: forward -> fwd
// CHECK-NEXT: write     bufs.loss
// CHECK-NEXT: read      bufs.blocks[2].out.data
// CHECK: unresolved (0):
// REPLAY: checksums match (7 ops
#define L 3
#define N 4096
typedef struct { float *data; int n; } Tensor;
typedef struct { Tensor out; } LayerBufs;
typedef struct { Tensor in; LayerBufs blocks[L]; float *loss; } Bufs;
Bufs bufs;
__global__ void fwd(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i];
}
__global__ void zero(float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 0.0f;
}
Tensor talloc(int n) {
  Tensor t;
  t.n = n;
  cudaMalloc(&t.data, n * sizeof(float));
  return t;
}
void zero_grads(Bufs *b) {
  for (int i = 0; i < L; i++) zero<<<N / 256, 256>>>(b->blocks[i].out.data, N);
}
void forward(void) {
  for (int l = 0; l < L; l++) {
    Tensor res = l == 0 ? bufs.in : bufs.blocks[l - 1].out;
    fwd<<<N / 256, 256>>>(bufs.blocks[l].out.data, res.data, N);
  }
  Tensor last = bufs.blocks[L - 1].out;
  fwd<<<N / 256, 256>>>(bufs.loss, last.data, N);
}
int main(void) {
  bufs.in = talloc(N);
  for (int l = 0; l < L; l++) bufs.blocks[l].out = talloc(N);
  cudaMalloc(&bufs.loss, N * sizeof(float));
  for (int step = 0; step < 10; step++) {
    zero_grads(&bufs);
    forward();
  }
  return 0;
}
