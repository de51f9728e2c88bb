// Input of graph-json-relocatable.cu: an op in a condition is not
// instrumented, so the pass cannot see every use of any device address.
#define N 1024
__global__ void scale(float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] *= 2.0f;
}
int main(void) {
  float *x, *y;
  cudaMalloc(&x, N * sizeof(float));
  cudaMalloc(&y, N * sizeof(float));
  for (int it = 0; it < 2; it++) {
    scale<<<N / 256, 256>>>(x, N);
    if (cudaMemcpy(y, x, N * sizeof(float), cudaMemcpyDeviceToDevice) != cudaSuccess) return 1;
  }
  return 0;
}
