// An op in a helper's return statement (`return cudaMemset(*p, 0, n);`,
// `return run(...) == cudaSuccess;`) is instrumented: its result is kept
// in a variable so the op ends before the function returns
// (rewrite_sites.c, Note [ops in return statements]).  One in main, in the
// training loop, or with a void result stays uninstrumented, with the
// warning.  The output compiles with nvcc (nvcc-compiles-rewrite-inputs).
// RUN: sed -e 's@// *\(CHECK\|WARN\)[-A-Z]*:.*@//@' %s > %t.in.cu
// RUN: %tidal rewrite %t.in.cu --budget 50% -o %t.cu -- %stubflags 2>&1 | FileCheck --check-prefix=WARN %s
// RUN: FileCheck %s < %t.cu
// WARN-NOT: alloc_zero -> cudaMemset' is not instrumented
// WARN-NOT: copy_ok -> cudaMemcpy' is not instrumented
// WARN: warning: op site 'main -> cudaMemset' is not instrumented: the op is in a return statement
// CHECK: op site {{[0-9]+}}: alloc_zero -> cudaMemset
// CHECK: TIDAL_OP_BEGIN(&tidal_site_[[A:[0-9]+]], 1,
// CHECK: auto &&tidal_ret_[[A]] = cudaMemset(TIDAL_AT(*p), 0, n * sizeof(float)); TIDAL_OP_END(&tidal_site_[[A]]); return tidal_ret_[[A]]; }
// CHECK: op site {{[0-9]+}}: copy_ok -> cudaMemcpy
// CHECK: TIDAL_OP_BEGIN(&tidal_site_[[B:[0-9]+]], 2,
// CHECK: auto &&tidal_ret_[[B]] = cudaMemcpy(TIDAL_AT(dst), TIDAL_AT(src), n * sizeof(float), cudaMemcpyDeviceToDevice) == cudaSuccess; TIDAL_OP_END(&tidal_site_[[B]]); return tidal_ret_[[B]]; }
#define N 1048576
__global__ void scale(float *o, const float *i, int n) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) o[k] = 2.0f * i[k];
}
static cudaError_t alloc_zero(float **p, size_t n) {
  cudaError_t e = cudaMalloc(p, n * sizeof(float));
  if (e != cudaSuccess) return e;
  return cudaMemset(*p, 0, n * sizeof(float));
}
static bool copy_ok(float *dst, const float *src, size_t n) {
  return cudaMemcpy(dst, src, n * sizeof(float), cudaMemcpyDeviceToDevice) == cudaSuccess;
}
int main(void) {
  float *a, *b, *c;
  alloc_zero(&a, N);
  alloc_zero(&b, N);
  alloc_zero(&c, N);
  for (int step = 0; step < 10; step++) {
    scale<<<N / 256, 256>>>(b, a, N);
    if (!copy_ok(c, b, N)) break;
    scale<<<N / 256, 256>>>(a, c, N);
  }
  return cudaMemset(a, 0, 4) != cudaSuccess;
}
