// One allocation carved into tensors by pointer arithmetic; per-layer
// slices `base + l*S` are one tensor per region whose offset uses l, and
// the unrolled candidates name each layer's slice.
// RUN: %tidal graph %s --format json -- %stubflags | FileCheck %s

#define B 2
#define T 8
static const int C = 16;
static const int L = 3;

__global__ void fill_kernel(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + 1.f;
}

int main() {
  float *mem;
  cudaMalloc((void **)&mem, (1 + 2 * L) * B * T * C * sizeof(float));
  float *ptr = mem;
  float *x = ptr; ptr += B * T * C;
  float *h1 = ptr; ptr += L * B * T * C;
  float *h2 = ptr; ptr += L * B * T * C;
  for (int step = 0; step < 5; step++) {
    for (int l = 0; l < L; l++) {
      const float *in = l == 0 ? x : x;
      fill_kernel<<<B * T, C>>>(h1 + l * B * T * C, in, B * T * C);
      fill_kernel<<<B * T, C>>>(h2 + l * B * T * C, h1 + l * B * T * C, B * T * C);
    }
    for (int l = L - 1; l >= 0; l--)
      fill_kernel<<<B * T, C>>>(x, h1 + l * B * T * C, B * T * C);
  }
  return 0;
}

// CHECK: "regions": [
// CHECK-NEXT: {"id": 0, "name": "x", "allocation": 0, "offset": "0", "offset_value": 0, "bytes": "4*B*T*C", "bytes_value": 1024}
// CHECK-NEXT: {"id": 1, "name": "h1", "allocation": 0, "offset": "4*B*T*C", "offset_value": 1024, "bytes": "4*L*B*T*C", "bytes_value": 3072}
// CHECK-NEXT: {"id": 2, "name": "h2", "allocation": 0, "offset": "4*B*T*C + 4*L*B*T*C", "offset_value": 4096, "bytes": "4*L*B*T*C", "bytes_value": 3072}
// CHECK: "tensors": [
// CHECK: "name": "h1[l]", "allocation": 0, "region": 1, "offset": "4*B*T*C + 4*l*B*T*C", "bytes": "4*B*T*C", "bytes_value": 1024
// CHECK: "candidates": [
// CHECK-DAG: "instance": "h1[l=0]", "bytes": "4*B*T*C", "bytes_value": 1024, "instance_bytes": 1024, "last_use_op": 1, "next_use_op": 2, "idle_ops": 6
// CHECK-DAG: "unrolled_ops": 9,
