// A once-only flag cleared by the function the branch calls, not in the
// branch itself: a global cleared by name (`init_weights`), a local passed
// by address (`init_moments(&fresh)` with `*done = 0`), and a struct's
// field passed as the struct (`setup(&st)` with `s->ready = 1`).  Each
// branch runs as setup (a once branch), so its memsets are not ops of the
// iteration: taken as every-iteration writes they would make the plan drop
// the weights and moments after the update.  A callee that does not clear
// the flag (`touch`) leaves its branch an every-iteration one.
// RUN: %tidal graph %s -- %stubflags | FileCheck %s
// CHECK: once (setup, first iteration only): {{.*}}.cu:[[@LINE+39]] in main: if (first): 0 allocation(s), 1 op site(s)
// CHECK: once (setup, first iteration only): {{.*}}.cu:[[@LINE+39]] in main: if (fresh): 0 allocation(s), 1 op site(s)
// CHECK: once (setup, first iteration only): {{.*}}.cu:[[@LINE+39]] in main: if (!st.ready): 0 allocation(s), 1 op site(s)
// CHECK-NOT: once
// CHECK: ops: 4 static
// CHECK: cudaMemset
// CHECK-NOT: cudaMemset
// CHECK: tensors:
#define N 4096
struct State { int ready; };
static int first = 1;
__global__ void scale(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i];
}
static void init_weights(float *w) {
  cudaMemset(w, 0, N * sizeof(float));
  first = 0;
}
static void init_moments(float *m, int *done) {
  cudaMemset(m, 0, N * sizeof(float));
  *done = 0;
}
static void setup(struct State *s, float *a) {
  cudaMemset(a, 0, N * sizeof(float));
  s->ready = 1;
}
static void touch(float *a, int *flag) {
  cudaMemset(a, 0, N * sizeof(float));
  *flag = 1;
}
int main() {
  float *w, *m, *a;
  cudaMalloc(&w, N * sizeof(float));
  cudaMalloc(&m, N * sizeof(float));
  cudaMalloc(&a, N * sizeof(float));
  int fresh = 1, again = 1;
  struct State st = {0};
  for (int step = 0; step < 10; step++) {
    if (first) init_weights(w);
    if (fresh) init_moments(m, &fresh);
    if (!st.ready) setup(&st, a);
    if (again) touch(a, &again);
    scale<<<N / 256, 256>>>(a, w, N);
    scale<<<N / 256, 256>>>(m, a, N);
    scale<<<N / 256, 256>>>(w, m, N);
  }
  return 0;
}
