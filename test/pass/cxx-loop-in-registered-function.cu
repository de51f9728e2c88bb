// A training loop in a function a static table registers (a TEST macro
// expanding to a function and a registrar object) and main() calls through
// a function pointer: the loop is still chosen, in that function; the
// registrar's constructor runs before main (global objects), and main's
// call through the table's function pointer (`g_tests[i].fn()`) runs the
// function the registrar stored (callees.c, Note [indirect calls]), so the
// loop is reached from main (before: analysed on its own, with a warning).
// RUN: %tidal graph %s -- %stubflags 2>&1 | FileCheck %s
// RUN: %tidal replay %s --chunk 4K --budget 70%% --format json -- %stubflags 2>/dev/null | FileCheck --check-prefix=REPLAY %s
__global__ void fwd(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.f * x[i];
}
__global__ void sgd(float *w, const float *g, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) w[i] -= 0.1f * g[i];
}
typedef void (*test_fn)(void);
struct TestCase {
  const char *name;
  test_fn fn;
};
static TestCase g_tests[8];
static int g_ntests;
struct Registrar {
  Registrar(const char *name, test_fn fn) {
    g_tests[g_ntests].name = name;
    g_tests[g_ntests].fn = fn;
    g_ntests++;
  }
};
#define TEST(suite, name)                                                   \
  static void suite##_##name();                                             \
  static Registrar suite##_##name##_reg(#suite "." #name, suite##_##name); \
  static void suite##_##name()

TEST(Train, Converges) {
  const int n = 1 << 16;
  float *w, *y, *g;
  cudaMalloc((void **)&w, n * sizeof(float));
  cudaMalloc((void **)&y, n * sizeof(float));
  cudaMalloc((void **)&g, n * sizeof(float));
  for (int step = 0; step < 100; step++) {
    fwd<<<n / 256, 256>>>(y, w, n);
    sgd<<<n / 256, 256>>>(w, g, n);
  }
}

int main() {
  for (int i = 0; i < g_ntests; i++) g_tests[i].fn();
  return 0;
}
// CHECK-NOT: warning
// CHECK: managed 3 of 3 allocations (768.0 KiB of 768.0 KiB); 4 of 4 accesses resolved
// CHECK: training loop: {{.*}}cxx-loop-in-registered-function.cu:43 (heuristic: 2 op sites{{.*}}) in Train_Converges
// REPLAY: "checksums_match": true,
// REPLAY: "budget_respected": true,
// REPLAY: "ok": true
