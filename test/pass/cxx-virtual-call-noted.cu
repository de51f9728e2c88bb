// C++ virtual dispatch: `layer->forward()` follows the definition of the
// object's static type only, and says so (a note in the graph), since an
// override in a derived class would run other ops.
// RUN: %tidal graph %s -- %stubflags 2>&1 | FileCheck %s
__global__ void fill_kernel(float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 1.f;
}
struct Layer {
  float *y;
  int n;
  virtual void forward() { fill_kernel<<<(n + 255) / 256, 256>>>(y, n); }
};
int main() {
  Layer l;
  l.n = 1024;
  cudaMalloc((void **)&l.y, 1024 * sizeof(float));
  Layer *layer = &l;
  for (int step = 0; step < 10; step++) layer->forward();
  return 0;
}
// CHECK: virtual call: only the definition for the object's static type is followed; overrides in derived classes are not
