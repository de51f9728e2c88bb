// A cudaFree inside a template helper (llm.c's cudaFreeCheck(T **ptr),
// which frees *ptr): the pass cannot tell the pointer is tidal's, so the
// call becomes TIDAL_CUDA_FREE, which frees a tidal allocation with
// tidal_free and anything else with cudaFree.  Left as cudaFree, llm.c's
// bf16 trainer ended with "invalid argument" after training on an H200.
// The output compiles with nvcc (nvcc-compiles-rewrite-inputs).
// RUN: sed -e 's@// *CHECK[-A-Z]*:.*@//@' %s > %t.in.cu
// RUN: %tidal rewrite %t.in.cu -o %t.cu -- %stubflags
// RUN: FileCheck %s < %t.cu
// CHECK: cudaError_t e = TIDAL_CUDA_FREE(*p) /* tidal: in a template, the pointer may not be tidal's: freed whichever it is */;
// CHECK: TIDAL_CUDA_STATUS(tidal_free((void *)(y)))
template <class T> void free_check(T **p) {
  cudaError_t e = cudaFree(*p);
  if (e != cudaSuccess) return;
  *p = nullptr;
}
__global__ void scale(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2.0f;
}
int main(void) {
  const int n = 1 << 20;
  float *x, *y;
  cudaMalloc((void **)&x, n * sizeof(float));
  cudaMalloc((void **)&y, n * sizeof(float));
  for (int step = 0; step < 10; step++) {
    scale<<<n / 256, 256>>>(x, n);
    scale<<<n / 256, 256>>>(y, n);
  }
  free_check(&x);
  cudaFree(y);
  return 0;
}
