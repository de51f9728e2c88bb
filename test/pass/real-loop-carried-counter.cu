// A variable of main assigned inside the training loop (`step++` in a
// `while (true)` loop) is loop-carried: its entry value (0) must neither
// prune `if (step > 0)` nor be bound as a constant (interp.c, Note
// [loop-carried values]).
// RUN: %tidal graph %s -- %stubflags | FileCheck %s

static const int N = 1024;
__global__ void scale(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.f * in[i];
}

int main() {
  float *a, *b, *c;
  cudaMalloc((void **)&a, N * sizeof(float));
  cudaMalloc((void **)&b, N * sizeof(float));
  cudaMalloc((void **)&c, N * sizeof(float));
  int step = 0;
  while (true) {
    if (step >= 100) break;
    scale<<<N / 256, 256>>>(b, a, N);
    if (step > 0) scale<<<N / 256, 256>>>(c, b, N);
    scale<<<N / 256, 256>>>(a, c, N);
    step++;
  }
  return 0;
}
// CHECK-NOT: step=0
// CHECK: ops: 3 static
// CHECK: #1 {{.*}} scale ({{.*}}real-loop-carried-counter.cu:[[@LINE-8]])
