// C++ objects created with `new`: the constructor runs on the heap object
// (its cudaMalloc calls are the model's buffers), `m->forward(x)` launches
// on its members, a `new float *[L]` pointer array filled by one cudaMalloc
// per element resolves per layer, and `delete m` runs the destructor (its
// cudaFree calls free those buffers).  Before: the new-expression was an
// opaque value, so every access through `m` or `acts` was unresolved.
// RUN: %tidal graph %s -- %stubflags 2>&1 | FileCheck %s
// RUN: %tidal graph %s --format json -- %stubflags 2>/dev/null | FileCheck --check-prefix=JSON %s
// RUN: %tidal replay %s --chunk 4K --budget 60%% --format json -- %stubflags 2>/dev/null | FileCheck --check-prefix=REPLAY %s
__global__ void scale(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i];
}
struct Config { int n; };
class Model {
 public:
  explicit Model(const Config &c) : n_(c.n) {
    cudaMalloc((void **)&in_, n_ * sizeof(float));
    cudaMalloc((void **)&out_, n_ * sizeof(float));
  }
  ~Model() {
    cudaFree(in_);
    cudaFree(out_);
  }
  void forward(const float *x) {
    scale<<<(n_ + 255) / 256, 256>>>(in_, x, 2.f, n_);
    scale<<<(n_ + 255) / 256, 256>>>(out_, in_, 0.5f, n_);
  }
  float *in_, *out_;
  int n_;
};
int main() {
  Config cfg = {1024};
  Model *m = new Model(cfg);
  float **acts = new float *[4];
  for (int l = 0; l < 4; l++) cudaMalloc((void **)&acts[l], 1024 * sizeof(float));
  for (int step = 0; step < 10; step++) {
    m->forward(acts[0]);
    for (int l = 0; l < 3; l++) scale<<<4, 256>>>(acts[l + 1], acts[l], 0.5f, 1024);
  }
  for (int l = 0; l < 4; l++) cudaFree(acts[l]);
  delete[] acts;
  delete m;
  return 0;
}
// CHECK: managed 6 of 6 allocations
// CHECK-SAME: 6 of 6 accesses resolved
// CHECK: write     (*m).in_ {{.*}}4.0 KiB
// CHECK: read      acts[0]
// CHECK: write     (*m).out_
// CHECK: read      (*m).in_
// CHECK: write     acts[l + 1]
// CHECK: read      acts[l]
// CHECK: unresolved (0):
// The destructor run by `delete m` frees the model's two buffers.
// JSON: "name": "(*m).in_", {{.*}}"freed": true
// JSON: "name": "(*m).out_", {{.*}}"freed": true
// REPLAY: "checksums_match": true,
// REPLAY: "budget_respected": true,
// REPLAY: "ok": true
