// XFAIL: *
// BUG (pass/callchain.c, walk_train_loop and walk_for in graph mode): a
// variable of main assigned inside the training loop (`step++` in a
// `while (true)` loop, a `warm = 0` flag) keeps the value it had when the
// loop was entered, and named_int() even binds it as a constant
// ("bindings: step=0"), so `if (step > 0)` is pruned as always false and
// its launch is missing from the graph.  Fix: before walking the body,
// store every lvalue the loop (body and increment) assigns as unknown
// (keeping its name, like an induction variable), as kernels.c's
// havoc_assigned does; the same for loops walked structurally in graph
// mode (walk_for).
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
