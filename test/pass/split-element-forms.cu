// The element forms an elementwise kernel may use (split.c, Note
// [elementwise split]): p[i] with the index cast, *(p + i) and *(i + p),
// __ldg(&p[i]) and __ldg(p + i), __stcs(&p[i], v); the global index with
// its operands in any order and cast to long; a mirrored guard `n > i` and
// `if (i >= n) { return; }`; a __device__ helper on scalars.  A cache-hint
// load of p + i + 1 is not element i.
// RUN: %tidal kernels %s -- %stubflags | FileCheck %s

__device__ float twice(float x) { return 2.0f * x; }

__global__ void forms(float *out, const float *a, const float *b, float *c, float *d, int n) {
  const long i = threadIdx.x + (long)blockDim.x * blockIdx.x;
  if (n > i) {
    out[(size_t)i] = twice(*(a + i)) + __ldg(&b[i]) + __ldg(b + i);
    *(i + c) += 1.0f;
    __stcs(&d[i], out[i]);
  }
}
// CHECK-LABEL: kernel forms
// CHECK: split: count=n{{$}}

__global__ void braced_return(float *out, const float *in, unsigned n) {
  unsigned i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i >= n) {
    return;
  }
  out[i] = __ldcs(in + i);
}
// CHECK-LABEL: kernel braced_return
// CHECK: split: count=n{{$}}

__global__ void next_element(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __ldg(in + i + 1);
}
// CHECK-LABEL: kernel next_element
// CHECK: split: no why="passes a pointer to '__ldg'"
