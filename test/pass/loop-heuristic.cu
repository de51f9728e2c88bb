// Without a pragma the loop reaching the most op sites wins; an epoch loop
// around the step loop reaches the same ops, the inner one is chosen; the
// reason says why, and saved activations make it forward-then-backward.
// RUN: %tidal graph %s -- %stubflags | FileCheck %s

__global__ void fwd(float *out, const float *in, int n) {
  int i = threadIdx.x;
  if (i < n) out[i] = in[i];
}

static void forward(float *a, float *b, float *c) {
  fwd<<<1, 32>>>(b, a, 32);
  fwd<<<1, 32>>>(c, b, 32);
  fwd<<<1, 32>>>(a, c, 32);
  fwd<<<1, 32>>>(c, a, 32);
  fwd<<<1, 32>>>(a, c, 32);
  fwd<<<1, 32>>>(c, a, 32);
  fwd<<<1, 32>>>(a, b, 32);
}

int main() {
  float *a, *b, *c;
  cudaMalloc((void **)&a, 32 * sizeof(float));
  cudaMalloc((void **)&b, 32 * sizeof(float));
  cudaMalloc((void **)&c, 32 * sizeof(float));
  for (int i = 0; i < 3; i++) fwd<<<1, 32>>>(a, a, 32);
  for (int epoch = 0; epoch < 2; epoch++) {
    for (int step = 0; step < 10; step++) {
      forward(a, b, c);
    }
  }
  return 0;
}

// CHECK: training loop: {{.*}}loop-heuristic.cu:28 (heuristic: 7 op sites, forward-then-backward) in main
// CHECK: eviction candidates (1):
// CHECK-NEXT: b {{.*}} idle 4 ops (after #1 fwd, until #6 fwd)
