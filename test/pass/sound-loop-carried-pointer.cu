// Pointer offsets carried around a loop inside the training iteration: the
// body is walked once, so the entry value (offset 0, first size) would put
// every iteration's access on the first tensor.  Instead the access covers
// the whole allocation, inexact, and is listed as "offset carried around a
// loop" - in the training loop body (a pointer walk) and in a called
// function (an integer offset) alike (interp.c, Note [loop-carried
// values]).
// RUN: %tidal graph %s -- %stubflags | FileCheck %s

#define L 4
__global__ void step_kernel(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 0.5f;
}

static void update(float *params, const int *sizes) {
  size_t off = 0;
  for (int i = 0; i < L; i++) {
    step_kernel<<<(sizes[i] + 255) / 256, 256>>>(params + off, sizes[i]);
    off += sizes[i];
  }
}

int main() {
  int sizes[L] = {1024, 2048, 512, 4096};
  float *acts, *params;
  cudaMalloc((void **)&acts, 16384 * sizeof(float));
  cudaMalloc((void **)&params, 16384 * sizeof(float));
  for (int step = 0; step < 10; step++) {
    float *p = acts;
    for (int l = 0; l < L; l++) {
      step_kernel<<<4, 256>>>(p, 1024);
      p += 1024;
    }
    update(params, sizes);
  }
  return 0;
}
// CHECK: #0 {{.*}} step_kernel {{.*}} in loop l x L
// CHECK-NEXT: readwrite acts {{ *}}unknown (upper bound)
// CHECK: #1 {{.*}} update -> step_kernel {{.*}} in loop i x L
// CHECK-NEXT: readwrite params {{ *}}unknown (upper bound)
// CHECK: unresolved (2):
// CHECK-DAG: pointer 'p' passed to step_kernel: offset carried around a loop; the access covers all of 'acts' (conservative)
// CHECK-DAG: pointer 'params + off' passed to step_kernel: offset carried around a loop; the access covers all of 'params' (conservative)
