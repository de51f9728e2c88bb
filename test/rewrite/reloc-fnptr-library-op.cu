// A call through a function pointer whose target is a modelled library op
// is that op's site (graph/callees.c, Note [library functions through
// pointers]): a variable set to cudnnAddTensor, a layer struct's `forward`
// field set to cublasSaxpy and a parameter passed cudnnAddTensor each get
// TIDAL_OP_BEGIN/END with the library model's accesses and their pointer
// arguments through TIDAL_AT, as a direct call would, and the allocations
// stay relocatable.  Before, each call was left as written while x, y and
// z were marked relocatable, so the library got their unmapped stable
// addresses.  The interpreter records each as the op by its name, and the
// loop choice counts them.
// RUN: sed -e 's@// *\(CHECK\|SUM\|GRAPH\)[-A-Z]*:.*@//@' %s > %t.cu
// RUN: %tidal graph %t.cu -- %stubflags 2>&1 | FileCheck %s --check-prefix=GRAPH
// RUN: %tidal rewrite %t.cu --plan none -o %t.out.cu -- %stubflags 2>&1 | FileCheck %s --check-prefix=SUM
// RUN: FileCheck %s < %t.out.cu
// GRAPH: training loop: {{.*}} (heuristic: 4 op sites) in main
// GRAPH: fwd cudnnAddTensor
// GRAPH-NEXT: read      l.in
// GRAPH-NEXT: readwrite z
// GRAPH: fwd cublasSaxpy_v2
// GRAPH: fwd accumulate -> cudnnAddTensor
// GRAPH: unresolved (0)
// SUM-NOT: warning
// SUM: 3 of 3 allocations relocatable
#include <cublas_v2.h>
#include <cudnn.h>
#define N 1024
typedef cudnnStatus_t (*add_fn)(cudnnHandle_t, const void *, const cudnnTensorDescriptor_t,
                                const void *, const void *, const cudnnTensorDescriptor_t, void *);
typedef cublasStatus_t (*axpy_fn)(cublasHandle_t, int, const float *, const float *, int, float *,
                                  int);
__global__ void scale(float *p, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] *= s;
}
struct layer {
  axpy_fn forward;
  float *in, *out;
};
// CHECK-LABEL: static void accumulate(
static void accumulate(add_fn f, cudnnHandle_t h, cudnnTensorDescriptor_t d, const float *a,
                       float *c) {
  const float one = 1.0f;
// CHECK: tidal: op site {{[0-9]+}}: accumulate -> cudnnAddTensor
// CHECK: {(const void *)(a), ((size_t)4096), TIDAL_READ},
// CHECK: f(h, &one, d, TIDAL_AT(a), &one, d, TIDAL_AT(c)); TIDAL_OP_END(
  f(h, &one, d, a, &one, d, c);
}
// CHECK-LABEL: int main(
int main() {
  float *x, *y, *z;
  cudaMalloc(&x, N * sizeof(float));
  cudaMalloc(&y, N * sizeof(float));
  cudaMalloc(&z, N * sizeof(float));
  cudnnHandle_t h;
  cudnnCreate(&h);
  cublasHandle_t hb;
  cublasCreate(&hb);
  cudnnTensorDescriptor_t xd;
  cudnnCreateTensorDescriptor(&xd);
  cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, 32, 32);
  const float one = 1.0f;
  add_fn add = cudnnAddTensor;
  layer l = {cublasSaxpy, x, y};
  for (int step = 0; step < 4; step++) {
// CHECK: tidal: op site {{[0-9]+}}: main -> cudnnAddTensor
// CHECK: {(const void *)(z), ((size_t)4096), TIDAL_READWRITE},
// CHECK: add(h, &one, xd, TIDAL_AT(x), &one, xd, TIDAL_AT(z)); TIDAL_OP_END(
    add(h, &one, xd, x, &one, xd, z);
// CHECK: tidal: op site {{[0-9]+}}: main -> cublasSaxpy_v2
// CHECK: l.forward(hb, N, &one, TIDAL_AT(l.in), 1, TIDAL_AT(l.out), 1); TIDAL_OP_END(
    l.forward(hb, N, &one, l.in, 1, l.out, 1);
// CHECK: accumulate(cudnnAddTensor, h, xd, y, z);
    accumulate(cudnnAddTensor, h, xd, y, z);
    scale<<<N / 256, 256>>>(z, 0.5f, N);
  }
  return 0;
}
// CHECK-NOT: tidal_home
