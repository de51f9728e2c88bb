// A C++ trainer: a Model holding its layers as
// std::vector<std::unique_ptr<Layer>> (virtual forward/backward/step,
// buffers allocated in the layers' constructors) and its parameters carved
// from one arena through a std::vector of {float **slot, size_t n} filled
// by push_back and summed by a range-for.  The vectors' elements are
// followed (interp_container.c, Note [container elements]): each virtual
// call runs the override of the layer's dynamic class, the layer loops are
// walked layer by layer (Note [dispatch loops]), and the arena's size is
// the table's sum, so every access resolves, rewrite makes a plan, the
// replay at 50% matches the checksums, and the rewrite compiles
// (nvcc-compiles-programs.test).  Before: every override walked as a
// candidate (warnings), 8 of 24 accesses resolved, the arena's size not
// computable: no plan, and replay refused.
// RUN: %tidal graph %s 2>&1 | FileCheck --check-prefix=GRAPH %s
// RUN: %tidal rewrite %s --budget 50% -o %t.cu 2>&1 | FileCheck --check-prefix=REWRITE %s
// RUN: grep -v "^// " %t.cu | FileCheck --check-prefix=SITES %s
// RUN: %tidal replay %s --budget 50% --format json 2>/dev/null | FileCheck --check-prefix=REPLAY %s
// GRAPH-NOT: warning
// GRAPH: managed 18 of 18 allocations (12.0 MiB of 12.0 MiB); 76 of 76 accesses resolved
// GRAPH: training loop: {{.*}}cxx-virtual-layers-table-arena.cu:[[@LINE+201]] {{.*}} in main
// GRAPH: #1 {{.*}}forward -> forward -> linear_fwd
// GRAPH-NEXT: write (*model.layers_[0]).out
// GRAPH-NEXT: read x
// GRAPH: #2 {{.*}}forward -> forward -> relu_fwd
// GRAPH-NEXT: write (*model.layers_[1]).out
// GRAPH-NEXT: read (*model.layers_[0]).out
// GRAPH: #15 {{.*}}backward -> backward -> linear_bwd
// GRAPH: #23 {{.*}}step -> step -> sgd
// GRAPH: (*model.layers_[0]).w {{.*}} in model.arena_ at +0
// GRAPH: (*model.layers_[0]).b {{.*}} in model.arena_ at +4*kWidth*kWidth
// GRAPH: unresolved (0):
// REWRITE: 76 of 76 accesses resolved; {{[0-9]+}} of {{[0-9]+}} allocations relocatable; plan: peak {{.*}} budget {{.*}} met
// SITES-DAG: forward -> linear_fwd
// SITES-DAG: backward -> linear_bwd
// SITES-DAG: step -> sgd
// SITES-DAG: forward -> relu_fwd
// SITES-DAG: backward -> relu_bwd
// REPLAY: "checksums_match": true,
// REPLAY: "budget_respected": true,
// REPLAY: "ok": true
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

static const int kBatch = 128;
static const int kWidth = 512;
static const int kDepth = 4;
static const int kSteps = 10;

__global__ void linear_fwd(float *y, const float *x, const float *w, const float *b, int B, int I, int O) {
  int o = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y;
  if (o >= O || r >= B) return;
  float s = b[o];
  for (int k = 0; k < I; k++) s += x[r * I + k] * w[k * O + o];
  y[r * O + o] = s;
}
__global__ void linear_bwd(float *dx, float *dw, float *db, const float *dy, const float *x,
                           const float *w, int B, int I, int O) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= I) return;
  for (int r = 0; r < B; r++) {
    float s = 0.0f;
    for (int o = 0; o < O; o++) s += dy[r * O + o] * w[k * O + o];
    dx[r * I + k] = s;
  }
  for (int o = 0; o < O; o++) {
    float s = 0.0f;
    for (int r = 0; r < B; r++) s += x[r * I + k] * dy[r * O + o];
    dw[k * O + o] = s;
  }
  if (k == 0)
    for (int o = 0; o < O; o++) {
      float s = 0.0f;
      for (int r = 0; r < B; r++) s += dy[r * O + o];
      db[o] = s;
    }
}
__global__ void relu_fwd(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}
__global__ void relu_bwd(float *dx, const float *dy, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dx[i] = x[i] > 0.0f ? dy[i] : 0.0f;
}
__global__ void sgd(float *p, const float *g, int n, float lr) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] -= lr * g[i];
}
__global__ void fill(float *p, int n, float v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = v;
}

static int grid(int n) { return (n + 255) / 256; }

struct Slot {
  float **slot;
  size_t n;
};

class Layer {
 public:
  virtual ~Layer() {}
  virtual void forward(const float *x) = 0;
  virtual void backward(const float *dy) = 0;
  virtual void step(float lr) {}
  float *out = nullptr, *dx = nullptr;
};

class Linear : public Layer {
 public:
  Linear(int in, int out_, float *w_, float *b_, float *dw_, float *db_)
      : in_(in), out_n(out_), w(w_), b(b_), dw(dw_), db(db_) {
    CHECK(cudaMalloc(&out, (size_t)kBatch * out_n * sizeof(float)));
    CHECK(cudaMalloc(&dx, (size_t)kBatch * in_ * sizeof(float)));
  }
  void forward(const float *x) override {
    x_ = x;
    linear_fwd<<<dim3(grid(out_n), kBatch), 256>>>(out, x, w, b, kBatch, in_, out_n);
  }
  void backward(const float *dy) override {
    linear_bwd<<<grid(in_), 256>>>(dx, dw, db, dy, x_, w, kBatch, in_, out_n);
  }
  void step(float lr) override {
    sgd<<<grid(in_ * out_n), 256>>>(w, dw, in_ * out_n, lr);
    sgd<<<grid(out_n), 256>>>(b, db, out_n, lr);
  }
 private:
  int in_, out_n;
  float *w, *b, *dw, *db;
  const float *x_ = nullptr;
};

class ReLU : public Layer {
 public:
  explicit ReLU(int n) : n_(n) {
    CHECK(cudaMalloc(&out, (size_t)n * sizeof(float)));
    CHECK(cudaMalloc(&dx, (size_t)n * sizeof(float)));
  }
  void forward(const float *x) override {
    x_ = x;
    relu_fwd<<<grid(n_), 256>>>(out, x, n_);
  }
  void backward(const float *dy) override { relu_bwd<<<grid(n_), 256>>>(dx, dy, x_, n_); }
 private:
  int n_;
  const float *x_ = nullptr;
};

class Model {
 public:
  Model() {
    const size_t nw = (size_t)kWidth * kWidth;
    float *w[kDepth], *b[kDepth], *dw[kDepth], *db[kDepth];
    std::vector<Slot> table;
    for (int l = 0; l < kDepth; l++) {
      table.push_back({&w[l], nw});
      table.push_back({&b[l], (size_t)kWidth});
      table.push_back({&dw[l], nw});
      table.push_back({&db[l], (size_t)kWidth});
    }
    size_t total = 0;
    for (const Slot &s : table) total += s.n;
    CHECK(cudaMalloc(&arena_, total * sizeof(float)));
    size_t off = 0;
    for (const Slot &s : table) {
      *s.slot = arena_ + off;
      off += s.n;
    }
    for (int l = 0; l < kDepth; l++) {
      fill<<<grid((int)nw), 256>>>(w[l], (int)nw, 0.01f / (l + 1));
      fill<<<grid(kWidth), 256>>>(b[l], kWidth, 0.0f);
      layers_.push_back(std::unique_ptr<Layer>(new Linear(kWidth, kWidth, w[l], b[l], dw[l], db[l])));
      if (l + 1 < kDepth) layers_.push_back(std::unique_ptr<Layer>(new ReLU(kBatch * kWidth)));
    }
  }
  ~Model() { cudaFree(arena_); }
  const float *forward(const float *x) {
    for (size_t i = 0; i < layers_.size(); i++) {
      layers_[i]->forward(x);
      x = layers_[i]->out;
    }
    return x;
  }
  void backward(const float *dy) {
    for (int i = (int)layers_.size() - 1; i >= 0; i--) {
      layers_[i]->backward(dy);
      dy = layers_[i]->dx;
    }
  }
  void step(float lr) {
    for (auto &l : layers_) l->step(lr);
  }
 private:
  float *arena_ = nullptr;
  std::vector<std::unique_ptr<Layer>> layers_;
};

__global__ void l2_grad(float *dy, float *loss, const float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    dy[i] = 2.0f * y[i] / n;
    atomicAdd(loss, y[i] * y[i] / n);
  }
}

int main() {
  Model model;
  float *x, *dy, *loss;
  const int n = kBatch * kWidth;
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaMalloc(&dy, n * sizeof(float)));
  CHECK(cudaMalloc(&loss, sizeof(float)));
  fill<<<grid(n), 256>>>(x, n, 1.0f);
  for (int step = 0; step < kSteps; step++) {
    CHECK(cudaMemset(loss, 0, sizeof(float)));
    const float *y = model.forward(x);
    l2_grad<<<grid(n), 256>>>(dy, loss, y, n);
    model.backward(dy);
    model.step(0.01f);
    float h = 0.0f;
    CHECK(cudaMemcpy(&h, loss, sizeof(float), cudaMemcpyDeviceToHost));
    printf("step %d loss %f\n", step, h);
  }
  CHECK(cudaFree(x));
  CHECK(cudaFree(dy));
  CHECK(cudaFree(loss));
  return 0;
}
