// An array of pointers carved from one arena at offsets a setup loop
// accumulates in main (`act[l] = arena + off; off += B * sizes[l];`), read
// at the layer loop's index.  The accumulator is read as its name, bound
// to its value: each read must give the value once, not add the last
// increment again (`total`, 262144 floats, would read 16384 more per
// extra read, and act[l] would point past the arena).  Every element
// resolves to its slice, and replay runs each layer on it with the
// unmanaged run's checksums.
// RUN: %tidal graph %s -- %stubflags 2>&1 | FileCheck --check-prefix=GRAPH %s
// GRAPH: managed 2 of 2 allocations (2.0 MiB of 2.0 MiB)
// GRAPH: ops: 2 static, 12 per iteration unrolled
// GRAPH: unresolved (0):
// RUN: %tidal replay %s --chunk 4K -- %stubflags 2>&1 | FileCheck --check-prefix=REPLAY %s
// REPLAY: checksums match (12 ops x 2 iterations, final state)
#define L 6
#define B 64
__global__ void layer(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * 0.5f;
}
__global__ void back(float *g, const float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) g[i] += a[i];
}
int main() {
  static const int sizes[L + 1] = {256, 512, 1024, 1024, 512, 512, 256};
  float *arena, *grads;
  size_t total = 0;
  for (int l = 0; l <= L; l++) total += (size_t)B * sizes[l];
  cudaMalloc(&arena, total * sizeof(float));
  cudaMalloc(&grads, total * sizeof(float));
  float *act[L + 1];
  size_t off = 0;
  for (int l = 0; l <= L; l++) {
    act[l] = arena + off;
    off += (size_t)B * sizes[l];
  }
  for (int step = 0; step < 100; step++) {
    for (int l = 0; l < L; l++)
      layer<<<(B * sizes[l + 1] + 255) / 256, 256>>>(act[l + 1], act[l], B * sizes[l + 1]);
    for (int l = L; l > 0; l--)
      back<<<(B * sizes[l] + 255) / 256, 256>>>(grads, act[l], B * sizes[l]);
  }
  return 0;
}
