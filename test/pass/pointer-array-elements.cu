// Arrays of device pointers, one cudaMalloc per element (`float *W[L]`,
// `act[l]`), read in layer loops at `act[l + 1]`, with sizes from a
// `static const int dims[]` table: each access resolves to a tensor (the
// element's allocation is picked per layer when unrolling), nothing is
// left unresolved, and the plan's replay matches checksums.
// RUN: %tidal graph %s -- %stubflags | FileCheck %s
// RUN: %tidal replay %s --chunk 4K --budget 60% -- %stubflags | FileCheck --check-prefix=REPLAY %s
// CHECK: ops: 2 static, 6 per iteration unrolled
// CHECK: write     act[l + 1]
// CHECK-NEXT: read      act[l]
// CHECK-NEXT: read      W[l]
// CHECK: T0   act[l + 1]
// CHECK: unresolved (0):
// REPLAY: checksums match (6 ops
#define L 3
#define B 32
static const int dims[L + 1] = {784, 256, 128, 10};
__global__ void linear(float *out, const float *in, const float *w, int n_in, int n_out, int b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n_out * b) { float s = 0; for (int k = 0; k < n_in; k++) s += w[k] * in[k]; out[i] = s; }
}
__global__ void linear_bwd(float *gin, const float *gout, const float *w, int n_in, int n_out, int b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n_in * b) { float s = 0; for (int k = 0; k < n_out; k++) s += w[k] * gout[k]; gin[i] = s; }
}
int main(void) {
  float *W[L], *act[L + 1], *grad[L + 1];
  for (int l = 0; l < L; l++) cudaMalloc(&W[l], dims[l] * dims[l + 1] * sizeof(float));
  for (int l = 0; l <= L; l++) {
    cudaMalloc(&act[l], B * dims[l] * sizeof(float));
    cudaMalloc(&grad[l], B * dims[l] * sizeof(float));
  }
  for (int step = 0; step < 100; step++) {
    for (int l = 0; l < L; l++)
      linear<<<(B * dims[l + 1] + 255) / 256, 256>>>(act[l + 1], act[l], W[l], dims[l], dims[l + 1], B);
    for (int l = L - 1; l >= 0; l--)
      linear_bwd<<<(B * dims[l] + 255) / 256, 256>>>(grad[l], grad[l + 1], W[l], dims[l], dims[l + 1], B);
  }
  return 0;
}
