// A training loop in a test body (a gtest-style TEST macro: a class whose
// TestBody() a static registrar creates with `new`, and main() runs through
// a virtual call).  The objects' dynamic classes are known from the `new`
// (interp_indirect.c), so main's virtual call runs the TestBody override
// and the step loop inside it is chosen, reached from main (before: a pure
// virtual call not followed, the loop's function analysed on its own).
// RUN: %tidal graph %s -- %stubflags 2>&1 | FileCheck %s
// RUN: %tidal replay %s --chunk 4K --budget 50%% --format json -- %stubflags 2>/dev/null | FileCheck --check-prefix=REPLAY %s
__global__ void fwd(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.f * x[i];
}
__global__ void bwd(float *dx, const float *dy, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dx[i] = 2.f * dy[i];
}
namespace harness {
struct Test {
  virtual ~Test() {}
  virtual void TestBody() = 0;
};
struct Registry {
  static Test *tests[16];
  static int n;
};
Test *Registry::tests[16];
int Registry::n = 0;
template <class T> struct Registrar {
  Registrar() { Registry::tests[Registry::n++] = new T(); }
};
}  // namespace harness
#define TEST(suite, name)                                              \
  class suite##_##name##_Test : public harness::Test {                 \
    void TestBody() override;                                          \
  };                                                                   \
  static harness::Registrar<suite##_##name##_Test> suite##_##name##_r; \
  void suite##_##name##_Test::TestBody()

TEST(Train, Converges) {
  const int n = 1 << 16;
  float *x, *y, *dy, *dx;
  cudaMalloc((void **)&x, n * sizeof(float));
  cudaMalloc((void **)&y, n * sizeof(float));
  cudaMalloc((void **)&dy, n * sizeof(float));
  cudaMalloc((void **)&dx, n * sizeof(float));
  for (int step = 0; step < 100; step++) {
    fwd<<<n / 256, 256>>>(y, x, n);
    bwd<<<n / 256, 256>>>(dx, dy, n);
  }
}

int main() {
  for (int i = 0; i < harness::Registry::n; i++) harness::Registry::tests[i]->TestBody();
  return 0;
}
// CHECK-NOT: warning
// CHECK: managed 4 of 4 allocations (1.0 MiB of 1.0 MiB); 4 of 4 accesses resolved
// CHECK: training loop: {{.*}}cxx-loop-in-test-harness.cu:46 (heuristic: 2 op sites; step loop {{.*}} inside the loop at line 53) in TestBody
// CHECK: write     y {{.*}}256.0 KiB
// CHECK: write     dx {{.*}}256.0 KiB
// REPLAY: "checksums_match": true,
// REPLAY: "budget_respected": true,
// REPLAY: "ok": true
