// An if with an init statement and a condition variable has five children
// (the variable, the init, the condition, then, else): both arms are
// walked.  (The interpreter once read four children into a fixed array and
// took the else arm from past its end: a crash.)
// RUN: %tidal graph %s -- %stubflags -std=c++17 2>&1 | FileCheck %s
__global__ void k(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2.0f;
}
int main(void) {
  float *a, *b;
  cudaMalloc((void **)&a, 4096 * sizeof(float));
  cudaMalloc((void **)&b, 4096 * sizeof(float));
  for (int it = 0; it < 10; it++) {
    if (int m = it % 2; int odd = m) k<<<16, 256>>>(a, 4096);
    else k<<<16, 256>>>(b, 4096);
  }
  return 0;
}
// CHECK: 2 of 2 accesses resolved
// CHECK: #0 {{ *}}fwd k {{ *}}({{.*}}.cu:[[@LINE-6]])
// CHECK-NEXT: readwrite a
// CHECK: #1 {{ *}}fwd k {{ *}}({{.*}}.cu:[[@LINE-7]])
// CHECK-NEXT: readwrite b
