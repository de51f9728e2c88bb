__global__ void fwd(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.f * x[i];
}
__global__ void bwd(float *dx, const float *dy, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dx[i] = 2.f * dy[i];
}
class Trainer {
 public:
  explicit Trainer(int n) : n_(n) {
    cudaMalloc((void **)&x_, n_ * sizeof(float));
    cudaMalloc((void **)&y_, n_ * sizeof(float));
    cudaMalloc((void **)&dx_, n_ * sizeof(float));
  }
  void step() {
    fwd<<<(n_ + 255) / 256, 256>>>(y_, x_, n_);
    bwd<<<(n_ + 255) / 256, 256>>>(dx_, y_, n_);
  }
 private:
  float *x_, *y_, *dx_;
  int n_;
};
void run_training(int steps, int n) {
  Trainer *t = new Trainer(n);
  for (int s = 0; s < steps; s++) t->step();
  delete t;
}
