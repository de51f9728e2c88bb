// Wrappers calling wrappers: the op deep inside is attributed through both
// calls, outermost first, each with the line it is written on.
// RUN: %tidal graph %s --format json -- %stubflags | FileCheck %s

__global__ void scale_kernel(float *out, const float *in, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = s * in[i];
}

static void scale(float *out, const float *in, float s, int n) {
  scale_kernel<<<(n + 255) / 256, 256>>>(out, in, s, n);
}

static void block_forward(float *out, const float *in, int rows, int cols) {
  scale(out, in, 0.5f, rows * cols);
}

int main() {
  float *a, *b;
  cudaMalloc((void **)&a, 64 * 32 * sizeof(float));
  cudaMalloc((void **)&b, 64 * 32 * sizeof(float));
  for (int step = 0; step < 10; step++)
    block_forward(b, a, 64, 32);
  return 0;
}

// CHECK: "label": "block_forward -> scale -> scale_kernel"
// CHECK-SAME: "line": 11
// CHECK: "call_path": [{"function": "block_forward", {{.*}}"line": 23, {{.*}}}, {"function": "scale", {{.*}}"line": 15,
// CHECK: "mode": "write", "bytes": "8192", "bytes_value": 8192
// CHECK-SAME: "bytes_local": "4*n"
