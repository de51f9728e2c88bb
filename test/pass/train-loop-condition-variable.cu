// A training loop whose condition declares a variable has five children
// (init, the variable, the condition, increment, body): its body is the
// last.  (The interpreter once read four children into a fixed array and
// took the body from past its end: no ops.)
// RUN: %tidal graph %s -- %stubflags 2>&1 | FileCheck %s
__global__ void k(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2.0f;
}
int main(void) {
  float *a;
  cudaMalloc((void **)&a, 4096 * sizeof(float));
  for (int it = 0; int left = 10 - it; it++) k<<<16, 256>>>(a, 4096);
  return 0;
}
// CHECK: 1 of 1 accesses resolved
// CHECK: ops: 1 static, 1 per iteration unrolled
// CHECK: #0 {{ *}}fwd k {{ *}}({{.*}}.cu:[[@LINE-5]])
