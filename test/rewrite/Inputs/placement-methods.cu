/* Plan placement in C++ methods (rewrite_place.c): Backward is called from
 * the training loop only, so its actions go inside it, next to its
 * launches; Forward is also called by Evaluate after training, so an
 * action inside it would also fire there: its actions go at the call
 * statement in the training loop. */
#define N 262144
__global__ void fwd_k(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i];
}
__global__ void bwd_k(float *d, const float *act, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) d[i] = act[i] - d[i];
}
struct Model {
  float *h1, *h2, *h3, *h4, *h5, *d;
  int n;
  explicit Model(int n_) : n(n_) {
    cudaMalloc(&h1, n * sizeof(float));
    cudaMalloc(&h2, n * sizeof(float));
    cudaMalloc(&h3, n * sizeof(float));
    cudaMalloc(&h4, n * sizeof(float));
    cudaMalloc(&h5, n * sizeof(float));
    cudaMalloc(&d, n * sizeof(float));
  }
  void Forward(const float *x) {
    fwd_k<<<(n + 255) / 256, 256>>>(h1, x, n);
    fwd_k<<<(n + 255) / 256, 256>>>(h2, h1, n);
    fwd_k<<<(n + 255) / 256, 256>>>(h3, h2, n);
    fwd_k<<<(n + 255) / 256, 256>>>(h4, h3, n);
    fwd_k<<<(n + 255) / 256, 256>>>(h5, h4, n);
  }
  void Backward() {
    bwd_k<<<(n + 255) / 256, 256>>>(d, h5, n);
    bwd_k<<<(n + 255) / 256, 256>>>(d, h4, n);
    bwd_k<<<(n + 255) / 256, 256>>>(d, h3, n);
    bwd_k<<<(n + 255) / 256, 256>>>(d, h2, n);
    bwd_k<<<(n + 255) / 256, 256>>>(d, h1, n);
  }
};
static void Evaluate(Model &m, const float *x) { m.Forward(x); }
int main(void) {
  float *x;
  cudaMalloc(&x, N * sizeof(float));
  Model model(N);
  for (int step = 0; step < 10; step++) {
    model.Forward(x);
    model.Backward();
  }
  Evaluate(model, x);
  return 0;
}
