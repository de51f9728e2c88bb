// A tensor whose last producer updates it in place through two arguments
// that alias: `act_kernel(hidden, hidden, n)` reads and writes `hidden`
// (llm.c's `gelu_backward(dl_bt4c, l_fch, dl_bt4c, N)`).  Each parameter
// alone is read-only or write-only, so only the call shows the update in
// place.  `hidden` is then idle across a long stretch of other work and
// read again at the end of the iteration.
#include <cuda_runtime.h>

#define N 1048576
#define M 1048576
#define WORK 8
#define STEPS 3

__global__ void fill_kernel(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = 0.5f;
}

__global__ void hidden_kernel(float *h, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) h[i] = x[i] * x[i];
}

__global__ void act_kernel(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] > 0.25f ? in[i] : 0.0f;
}

__global__ void work_kernel(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] + 1.0f;
}

__global__ void use_kernel(float *out, const float *h, const float *w, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = h[i] * w[i];
}

int main(void) {
  float *input, *hidden, *work, *out;
  cudaMalloc(&input, N * sizeof(float));
  cudaMalloc(&hidden, N * sizeof(float));
  cudaMalloc(&work, 2 * M * sizeof(float));
  cudaMalloc(&out, N * sizeof(float));
  fill_kernel<<<N / 256, 256>>>(input, N);
  for (int step = 0; step < STEPS; step++) {
    hidden_kernel<<<N / 256, 256>>>(hidden, input, N);
    act_kernel<<<N / 256, 256>>>(hidden, hidden, N);
    fill_kernel<<<2 * M / 256, 256>>>(work, 2 * M);
    for (int k = 0; k < WORK; k += 2) {
      work_kernel<<<M / 256, 256>>>(work, work + M, M);
      work_kernel<<<M / 256, 256>>>(work + M, work, M);
    }
    use_kernel<<<N / 256, 256>>>(out, hidden, input, N);
  }
  cudaFree(input);
  cudaFree(hidden);
  cudaFree(work);
  cudaFree(out);
  return 0;
}
