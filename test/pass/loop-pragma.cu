// `#pragma tidal train` picks the loop after it, even when another loop
// reaches more op sites.
// RUN: %tidal graph %s --format json -- %stubflags | FileCheck %s

__global__ void k(float *p, int n) {
  int i = threadIdx.x;
  if (i < n) p[i] = 0.f;
}

int main() {
  float *p;
  cudaMalloc((void **)&p, 64 * sizeof(float));
  for (int warm = 0; warm < 2; warm++) {
    k<<<1, 64>>>(p, 64);
    k<<<1, 64>>>(p, 64);
  }
#pragma tidal train
  for (int step = 0; step < 5; step++)
    k<<<1, 64>>>(p, 64);
  return 0;
}

// CHECK: "loop": {"file": "{{.*}}loop-pragma.cu", "line": 18, "col": 3, "function": "main", "reason": "pragma at loop-pragma.cu:17"
// CHECK: "unrolled_ops": 1,
