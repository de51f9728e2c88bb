// Layers of different sizes carved from one arena into an array of
// structs (`layers[l].w`, `layers[l].out`, sizes from a `dims` table): the
// elements are not evenly spaced, so each unrolled layer takes its own
// element's offset (each layer's output, written in the forward and read in
// the backward, is a candidate of its own size), and the first layer's
// input is chosen with `l == 0 ? in : layers[l - 1].out`.
// RUN: %tidal graph %s -- %stubflags 2>&1 | FileCheck %s
// RUN: %tidal graph %s --format json -- %stubflags | FileCheck --check-prefix=JSON %s
// CHECK: 6 of 6 accesses resolved
// CHECK: write     layers[l].out
// CHECK-NEXT: read      l == 0 ? in : layers[l - 1].out
// CHECK-NEXT: read      layers[l].w
// CHECK: T0   layers[l].out {{.*}} element l of layers[0].out .. layers[5].out at +0
// CHECK: unresolved (0):
// JSON-DAG: "name": "layers[l].out", {{.*}} "index": "l", "elements": [{"name": "layers[0].out", "allocation": 1, "offset": "{{[^"]*}}", "offset_value": 2097152}, {"name": "layers[1].out", "allocation": 1, "offset": "{{[^"]*}}", "offset_value": 2629632},
// JSON-DAG: "instance": "layers[0].out", "bytes": "{{[^"]*}}", "instance_bytes": 8192, {{.*}} "idle_ops": 9
// JSON-DAG: "instance": "layers[1].out", "bytes": "{{[^"]*}}", "instance_bytes": 4096, {{.*}} "idle_ops": 7
#define L 6
#define B 4
static const int dims[L + 1] = {1024, 512, 256, 128, 64, 32, 16};
typedef struct { float *w; float *out; } Layer;
Layer layers[L];
float *in, *arena;
__global__ void lin(float *out, const float *x, const float *w, int n_in, int n_out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n_out * B) out[i] = x[i % n_in] * w[i % n_out];
}
int main(void) {
  cudaMalloc(&in, B * dims[0] * sizeof(float));
  size_t total = 0;
  for (int l = 0; l < L; l++) total += dims[l] * dims[l + 1] + B * dims[l + 1];
  cudaMalloc(&arena, total * sizeof(float));
  float *p = arena;
  for (int l = 0; l < L; l++) {
    layers[l].w = p; p += dims[l] * dims[l + 1];
    layers[l].out = p; p += B * dims[l + 1];
  }
  for (int step = 0; step < 10; step++) {
    for (int l = 0; l < L; l++)
      lin<<<(B * dims[l + 1] + 255) / 256, 256>>>(layers[l].out, l == 0 ? in : layers[l - 1].out,
                                                  layers[l].w, dims[l], dims[l + 1]);
    for (int l = L - 1; l >= 0; l--)
      lin<<<(B * dims[l + 1] + 255) / 256, 256>>>(layers[l].out, layers[l].out, layers[l].w,
                                                  dims[l + 1], dims[l + 1]);
  }
  return 0;
}
