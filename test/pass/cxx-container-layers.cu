// Layers held in containers of base pointers, called through virtual
// methods: std::vector<std::unique_ptr<Layer>> filled by push_back
// (`unique_ptr<Layer>(new Scale)`, make_unique), std::vector<Layer *>
// (`new`), std::vector<std::shared_ptr<Layer>> (emplace_back), read by
// `[]`, a range-for and a reference.  The elements are followed
// (interp_container.c, Note [container elements]), so each call runs the
// override of the object's dynamic class, and the parameter arena carved
// through a std::vector<Slot> table (push_back of `{&w, n}`, summed and
// walked by range-fors) has a computable size.  Before: "virtual call of
// 'forward' on an object whose class is not known" (every override walked,
// its accesses unresolved) and the arena's size not computable (no plan).
// RUN: %tidal graph %s -- %stubflags -std=c++17 2>&1 | FileCheck %s
// RUN: %tidal replay %s --chunk 4K --budget 50%% --format json -- %stubflags -std=c++17 2>/dev/null | FileCheck --check-prefix=REPLAY %s
#include <memory>
#include <vector>
__global__ void scale(float *y, const float *x, const float *w, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = w[i] * x[i];
}
__global__ void relu(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
}
__global__ void decay(float *w, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) w[i] *= 0.99f;
}
const int N = 1024;
struct Slot {
  float **slot;
  int n;
};
struct Layer {
  float *out = nullptr;
  virtual ~Layer() {}
  virtual const float *forward(const float *x) = 0;
  virtual void update() {}
};
struct Scale : Layer {
  float *w;
  explicit Scale(float *w_) : w(w_) { cudaMalloc((void **)&out, N * sizeof(float)); }
  const float *forward(const float *x) override {
    scale<<<N / 256, 256>>>(out, x, w, N);
    return out;
  }
  void update() override { decay<<<N / 256, 256>>>(w, N); }
};
struct Relu : Layer {
  Relu() { cudaMalloc((void **)&out, N * sizeof(float)); }
  const float *forward(const float *x) override {
    relu<<<N / 256, 256>>>(out, x, N);
    return out;
  }
};
struct Net {
  float *arena;
  std::vector<std::unique_ptr<Layer>> layers;
  std::vector<Layer *> tail;
  std::vector<std::shared_ptr<Layer>> extra;
  Net() {
    float *w0, *w1, *w2;
    std::vector<Slot> table;
    table.push_back({&w0, N});
    table.push_back({&w1, N});
    table.push_back({&w2, N});
    int total = 0;
    for (const Slot &s : table) total += s.n;
    cudaMalloc((void **)&arena, total * sizeof(float));
    int off = 0;
    for (const Slot &s : table) {
      *s.slot = arena + off;
      off += s.n;
    }
    layers.push_back(std::unique_ptr<Layer>(new Scale(w0)));
    layers.push_back(std::make_unique<Relu>());
    tail.push_back(new Scale(w1));
    extra.emplace_back(std::make_shared<Scale>(w2));
  }
  const float *forward(const float *x) {
    for (size_t i = 0; i < layers.size(); i++) x = layers[i]->forward(x);
    for (Layer *l : tail) x = l->forward(x);
    Layer &last = *extra[0];
    return last.forward(x);
  }
  void update() {
    for (auto &l : layers) l->update();
    tail.back()->update();
    extra.front()->update();
  }
};
int main() {
  Net net;
  float *x;
  cudaMalloc((void **)&x, N * sizeof(float));
  for (int step = 0; step < 10; step++) {
    net.forward(x);
    net.update();
  }
  return 0;
}
// CHECK-NOT: warning
// CHECK: managed 6 of 6 allocations (32.0 KiB of 32.0 KiB); 14 of 14 accesses resolved
// CHECK: #0 {{.*}}forward -> forward -> scale
// CHECK-NEXT: write (*net.layers[0]).out
// CHECK-NEXT: read x
// CHECK-NEXT: read (*net.layers[0]).w
// CHECK: #1 {{.*}}forward -> forward -> relu
// CHECK-NEXT: write (*net.layers[1]).out
// CHECK-NEXT: read (*net.layers[0]).out
// CHECK: #2 {{.*}}forward -> forward -> scale
// CHECK-NEXT: write (*net.tail[0]).out
// CHECK-NEXT: read (*net.layers[1]).out
// CHECK-NEXT: read (*net.tail[0]).w
// CHECK: #3 {{.*}}forward -> forward -> scale
// CHECK-NEXT: write (*net.extra[0]).out
// CHECK-NEXT: read (*net.tail[0]).out
// CHECK-NEXT: read (*net.extra[0]).w
// CHECK: #4 {{.*}}update -> update -> decay
// CHECK-NEXT: readwrite (*net.layers[0]).w
// CHECK: #5 {{.*}}update -> update -> decay
// CHECK-NEXT: readwrite (*net.tail[0]).w
// CHECK: #6 {{.*}}update -> update -> decay
// CHECK-NEXT: readwrite (*net.extra[0]).w
// CHECK-NOT: #7
// CHECK: (*net.layers[0]).w {{.*}} in net.arena at +0
// CHECK: (*net.tail[0]).w {{.*}} in net.arena at +4*N
// CHECK: (*net.extra[0]).w {{.*}} in net.arena at +8*N
// CHECK: unresolved (0):
// REPLAY: "checksums_match": true,
// REPLAY: "ok": true
