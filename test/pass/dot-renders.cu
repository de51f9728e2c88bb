// The dot output renders with Graphviz; forward and backward ops and the
// eviction candidates are drawn differently.
// RUN: %tidal graph %s --format dot -o %t.dot -- %stubflags
// RUN: dot -Tsvg %t.dot -o %t.svg
// RUN: FileCheck %s < %t.dot
// RUN: grep -q '<svg' %t.svg

__global__ void k(float *out, const float *in, int n) {
  int i = threadIdx.x;
  if (i < n) out[i] = in[i];
}
static void layer_forward(float *o, const float *i) { k<<<1, 64>>>(o, i, 64); }
static void layer_backward(float *o, const float *i) { k<<<1, 64>>>(o, i, 64); }

int main() {
  float *a;
  cudaMalloc((void **)&a, 8 * 64 * sizeof(float));
  for (int step = 0; step < 3; step++) {
    for (int l = 0; l < 6; l++) layer_forward(a + (l + 1) * 64, a + l * 64);
    for (int l = 5; l >= 0; l--) layer_backward(a + l * 64, a + (l + 1) * 64);
  }
  return 0;
}
// CHECK: digraph tidal {
// CHECK: op0 [shape=box, style=filled, fillcolor=lightblue, label="#0 layer_forward -> k
// CHECK: op1 [shape=box, style=filled, fillcolor=salmon, label="#1 layer_backward -> k
// CHECK: [shape=ellipse, style="filled,bold", fillcolor=yellow, color=red
// CHECK-DAG: t{{[0-9]+}} -> op0;
// CHECK-DAG: op0 -> t{{[0-9]+}} [color=blue];
