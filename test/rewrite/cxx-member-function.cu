// C++: op sites in member functions defined in the class body (the
// constructor allocates, forward() launches) are instrumented like those of
// free functions; before, the graph held the op but the rewrite left it
// out without a note.
// RUN: %tidal rewrite %s -o - -- %stubflags | FileCheck %s

__global__ void relu_kernel(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
}

class Relu {
 public:
  explicit Relu(int n) : n_(n) { cudaMalloc((void **)&y_, n * sizeof(float)); }
  float *forward(const float *x) {
    relu_kernel<<<(n_ + 255) / 256, 256>>>(y_, x, n_);
    return y_;
  }

 private:
  float *y_;
  int n_;
};

int main() {
  float *x;
  cudaMalloc((void **)&x, 4096 * sizeof(float));
  Relu relu(4096);
  for (int step = 0; step < 10; step++) relu.forward(x);
  return 0;
}

// CHECK: instrumented: 1 op sites, 2 cudaMalloc/cudaFree calls
// CHECK: Relu(int n) : n_(n) { (cudaError_t)TIDAL_CUDA_STATUS(tidal_malloc((void **)((void **)&y_), n * sizeof(float)));
// CHECK: op site 0: forward -> relu_kernel
// CHECK: TIDAL_OP_BEGIN(&tidal_site_0, 2, tidal_acc_0);
