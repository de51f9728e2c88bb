// Op calls the rewriter used to leave alone are instrumented like any
// other (pass/graph/sites.c): a call inside a function template whose
// arguments depend on the template's parameters - clang leaves it
// unresolved in the template's body (Note [op calls in templates]) - and
// cudaLaunchKernel, whose pointers go through its argument array, reached by
// the training loop or not.  Before, they ran with no TIDAL_OP_BEGIN, so
// nothing restored evicted memory behind them (llm.c's AdamW update and
// fused classifier are such template launches).  One statement serves
// every instantiation of its template, walked by the interpreter or not
// (copy<double> runs only after the loop): its extents are the call's own
// texts, `n * sizeof(T)`, compiled in each, never the walked instantiation's
// `4*n` (which would declare half of a double buffer).
// RUN: sed -e 's@// *CHECK[-A-Z]*:.*@//@' %s > %t.in.cu
// RUN: %tidal rewrite %t.in.cu --plan none -o %t.cu -- %stubflags
// RUN: FileCheck %s < %t.cu
#define N 4096

template <class T>
__global__ void scale_kernel(T *y, const T *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2 * x[i];
}

__global__ void axpy(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += 2.f * x[i];
}

template <class T>
void scale(T *y, const T *x, int n) {
  scale_kernel<<<(n + 255) / 256, 256>>>(y, x, n);
}

template <class T>
void copy(T *dst, const T *src, int n) {
  cudaMemcpy(dst, src, n * sizeof(T), cudaMemcpyDeviceToDevice);
}

// CHECK-LABEL: void scale(T *y, const T *x, int n) {
// CHECK-NEXT: { /* tidal: op site {{[0-9]+}}: scale -> scale_kernel */
// CHECK: {(const void *)(y), TIDAL_EXTENT_UNKNOWN, TIDAL_READWRITE},
// CHECK-NEXT: {(const void *)(x), TIDAL_EXTENT_UNKNOWN, TIDAL_READ},
// CHECK: TIDAL_OP_BEGIN(&tidal_site_[[S:[0-9]+]], 2, tidal_acc_[[S]]);
// CHECK: scale_kernel<<<(n + 255) / 256, 256>>>(TIDAL_AT(y), TIDAL_AT(x), n); TIDAL_OP_END(&tidal_site_[[S]]); }

// CHECK-LABEL: void copy(T *dst, const T *src, int n) {
// CHECK-NEXT: { /* tidal: op site {{[0-9]+}}: copy -> cudaMemcpy */
// CHECK: {(const void *)(dst), ((size_t)(n * sizeof(T))), TIDAL_WRITE},
// CHECK-NEXT: {(const void *)(src), ((size_t)(n * sizeof(T))), TIDAL_READ},
// CHECK: cudaMemcpy(TIDAL_AT(dst), TIDAL_AT(src), n * sizeof(T), cudaMemcpyDeviceToDevice); TIDAL_OP_END(

int main() {
  float *x, *y;
  double *xd, *yd;
  int n = N;
  cudaMalloc((void **)&x, N * sizeof(float));
  cudaMalloc((void **)&y, N * sizeof(float));
  cudaMalloc((void **)&xd, N * sizeof(double));
  cudaMalloc((void **)&yd, N * sizeof(double));
  void *init[] = {&x, &y, &n};
  cudaLaunchKernel((const void *)axpy, dim3(N / 256), dim3(256), init, 0, 0);
  for (int step = 0; step < 3; step++) {
    scale(y, x, N);
    scale(yd, xd, N);
    copy(x, y, N);
    void *args[] = {&y, &x, &n};
    cudaLaunchKernel((const void *)axpy, dim3(N / 256), dim3(256), args, 0, 0);
  }
  copy(xd, yd, N);
  return 0;
}
// Setup's launch, which the loop does not reach: each pointer parameter
// through the array, extent unknown.
// CHECK-LABEL: int main() {
// CHECK: { /* tidal: op site {{[0-9]+}}: main -> axpy */
// CHECK: {(const void *)(*(float **)(init)[0]), TIDAL_EXTENT_UNKNOWN, TIDAL_READWRITE}, /* extent unknown: cudaLaunchKernel's argument array is only followed for launches the training loop reaches */
// CHECK-NEXT: {(const void *)(*(float **)(init)[1]), TIDAL_EXTENT_UNKNOWN, TIDAL_READ},
// The kernel gets their current addresses through a copy of the array
// (rewrite/reloc-launchkernel-argument-array.cu).
// CHECK: void *tidal_args_[[I:[0-9]+]][3] = {(void *)&tidal_k[[I]]_0, (void *)&tidal_k[[I]]_1, (init)[2]};
// CHECK: cudaLaunchKernel((const void *)axpy, dim3(N / 256), dim3(256), tidal_args_[[I]], 0, 0); TIDAL_OP_END(
// The loop's, with the extents the interpreter followed through the array.
// CHECK: { /* tidal: op site {{[0-9]+}}: main -> axpy */
// CHECK: {(const void *)(*(float **)(args)[0]), ((size_t)4*(size_t)(N)), TIDAL_READWRITE},
// CHECK-NEXT: {(const void *)(*(float **)(args)[1]), ((size_t)4*(size_t)(N)), TIDAL_READ},
// CHECK: cudaLaunchKernel((const void *)axpy, dim3(N / 256), dim3(256), tidal_args_{{[0-9]+}}, 0, 0); TIDAL_OP_END(
