// A forward buffer reused under another name in backward is the same
// tensor, with the other name recorded as an alias.
// RUN: %tidal graph %s --format json -- %stubflags | FileCheck %s

static const int N = 256;

typedef struct Acts { float *lnf; float *logits; } Acts;

__global__ void fwd(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

static void backward(Acts acts) {
  float *dl_btc = acts.lnf; /* lnf is dead by now: reuse it as scratch */
  fwd<<<1, N>>>(dl_btc, acts.logits, N);
}

int main() {
  float *mem;
  cudaMalloc((void **)&mem, 2 * N * sizeof(float));
  Acts acts;
  acts.lnf = mem;
  acts.logits = mem + N;
  for (int step = 0; step < 3; step++) {
    fwd<<<1, N>>>(acts.logits, acts.lnf, N);
    backward(acts);
  }
  return 0;
}

// CHECK: "ops": [
// CHECK: "callee": "fwd", "label": "fwd"
// CHECK: {"tensor": [[LOGITS:[0-9]+]], "mode": "write"
// CHECK: {"tensor": [[LNF:[0-9]+]], "mode": "read"
// CHECK: "label": "backward -> fwd"
// CHECK: {"tensor": [[LNF]], "mode": "write", {{.*}}"pointer": "acts.lnf", {{.*}}"pointer_local": "dl_btc"
// CHECK: {"tensor": [[LOGITS]], "mode": "read"
// CHECK: "tensors": [
// CHECK-NOT: "name": "dl_btc"
