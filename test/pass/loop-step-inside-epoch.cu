// Choosing the loop: one iteration is one optimizer step.  The step loop
// slices the epoch's host data with pointer arithmetic on its own counter
// (`h_x + b * B * D`), which is not a layer loop: it reaches forward,
// backward and update, so it is chosen over the epoch loop around it - also
// when the epoch loop reaches more op sites through a forward-only
// evaluation.  A do { } while (0) check macro is no loop at all.
// RUN: %tidal graph %s -- %stubflags | FileCheck %s
// CHECK: training loop: {{.*}}.cu:[[@LINE+28]] (heuristic: {{.*}}step loop{{.*}}) in train_epoch
#define B 64
#define D 256
#define CHECK(x) do { if ((x) != 0) return 1; } while (0)
__global__ void layer_forward(float *out, const float *in, const float *w, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = w[i] * in[i];
}
__global__ void layer_backward(float *g, const float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) g[i] = out[i] * in[i];
}
__global__ void sgd_update(float *w, const float *g, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) w[i] -= 0.01f * g[i];
}
void forward(float *act, const float *x, const float *w) {
  layer_forward<<<B * D / 256, 256>>>(act, x, w, B * D);
  layer_forward<<<B * D / 256, 256>>>(act + B * D, act, w, B * D);
}
void backward(float *g, const float *act) { layer_backward<<<B * D / 256, 256>>>(g, act + B * D, act, B * D); }
void update(float *w, const float *g) { sgd_update<<<B * D / 256, 256>>>(w, g, B * D); }
void evaluate(float *act, const float *x, const float *w) {
  forward(act, x, w);
  forward(act, x, w);
  forward(act, x, w);
}
void train_epoch(const float *h_x, int n_batches, float *d_x, float *act, float *w, float *g) {
  for (int b = 0; b < n_batches; b++) {
    const float *xb = h_x + b * B * D;
    cudaMemcpy(d_x, xb, B * D * sizeof(float), cudaMemcpyHostToDevice);
    forward(act, d_x, w);
    backward(g, act);
    update(w, g);
  }
}
void run(const float *h_x, int n_batches, int epochs) {
  float *d_x, *act, *w, *g;
  cudaMalloc(&d_x, B * D * sizeof(float));
  cudaMalloc(&act, 2 * B * D * sizeof(float));
  cudaMalloc(&w, B * D * sizeof(float));
  cudaMalloc(&g, B * D * sizeof(float));
  for (int e = 0; e < epochs; e++) {
    train_epoch(h_x, n_batches, d_x, act, w, g);
    evaluate(act, d_x, w);
  }
}
int main(int argc, char **argv) {
  static float data[16 * B * D];
  CHECK(cudaSetDevice(0));
  run(data, 16, argc);
  return 0;
}
