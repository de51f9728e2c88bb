// C++ objects: a constructor computes a size in its initialiser list and
// allocates a member; a member function launches on members through the
// implicit `this` and an explicit `this->`.  Both resolve to the object's
// fields (before: the constructor was not run and `y_` was unresolved).
// RUN: %tidal graph %s -- %stubflags 2>&1 | FileCheck %s
__global__ void relu_kernel(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
}
class Relu {
 public:
  Relu(int rows, int cols) : n_(rows * cols) { cudaMalloc((void **)&y_, n_ * sizeof(float)); }
  float *forward(const float *x) {
    relu_kernel<<<(n_ + 255) / 256, 256>>>(y_, x, this->n_);
    return y_;
  }
 private:
  float *y_;
  int n_;
};
int main() {
  float *x;
  cudaMalloc((void **)&x, 4096 * sizeof(float));
  Relu relu(64, 64);
  for (int step = 0; step < 10; step++) relu.forward(x);
  return 0;
}
// CHECK: 2 of 2 accesses resolved
// CHECK: write relu.y_ {{.*}}= 16.0 KiB
// CHECK: unresolved (0):
