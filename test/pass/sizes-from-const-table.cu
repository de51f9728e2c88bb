// Layer sizes from a constant table (`static const int dims[] = {...}`):
// a size written `dims[l + 1]` in a layer loop is evaluated per layer when
// the iteration is unrolled.  It used to stop unrolling and suggest
// `--bind dims[l + 1]=VALUE`, an expression of a loop variable that no
// --bind can give: a bind suggestion names bindable identifiers only.
// RUN: %tidal graph %s -- %stubflags | FileCheck %s
// RUN: %tidal replay %s --chunk 4K --budget 70% -- %stubflags | FileCheck --check-prefix=REPLAY %s
// REPLAY: checksums match (6 ops
// CHECK-NOT: --bind dims
// CHECK: ops: 2 static, 6 per iteration unrolled
// CHECK: eviction candidates
#define L 3
#define B 32
#define MAXD 1024
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
  float *acts, *grads, *w;
  cudaMalloc(&acts, (L + 1) * B * MAXD * sizeof(float));
  cudaMalloc(&grads, (L + 1) * B * MAXD * sizeof(float));
  cudaMalloc(&w, MAXD * MAXD * sizeof(float));
  for (int step = 0; step < 100; step++) {
    for (int l = 0; l < L; l++)
      linear<<<(B * dims[l + 1] + 255) / 256, 256>>>(acts + (l + 1) * B * MAXD, acts + l * B * MAXD, w,
                                                     dims[l], dims[l + 1], B);
    for (int l = L - 1; l >= 0; l--)
      linear_bwd<<<(B * dims[l] + 255) / 256, 256>>>(grads + l * B * MAXD, grads + (l + 1) * B * MAXD,
                                                     w, dims[l], dims[l + 1], B);
  }
  return 0;
}
