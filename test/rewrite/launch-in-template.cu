// A launch inside a function template whose arguments depend on the
// template's parameters (llm.c's adamw_update<Tp, Tg> launching
// adamw_kernel3<<<...>>>(params, ...)): libclang resolves the call to
// nothing in the template's body, which the rewriter walks as written, so
// the op was silently left out (Note [launches in templates]).  It is
// instrumented; its element type is the template's, so its extents are
// unknown (the whole allocation from the pointer).
// RUN: sed -e 's@// *CHECK[-A-Z]*:.*@//@' %s > %t.in.cu
// RUN: %tidal rewrite %t.in.cu -o %t.cu -- %stubflags
// RUN: FileCheck %s < %t.cu
// CHECK: {(const void *)(p), TIDAL_EXTENT_UNKNOWN, TIDAL_READWRITE},
// CHECK-NEXT: {(const void *)(g), TIDAL_EXTENT_UNKNOWN, TIDAL_READ},
// CHECK: TIDAL_OP_BEGIN(
// CHECK-NEXT: #line
// CHECK-NEXT: upd<<<(n + 255) / 256, 256>>>(TIDAL_AT(p), TIDAL_AT(g), n); TIDAL_OP_END(
template <typename T>
__global__ void upd(T *p, const T *g, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] -= g[i];
}
template <typename T>
void update(T *p, const T *g, int n) {
  upd<<<(n + 255) / 256, 256>>>(p, g, n);
}
int main(void) {
  float *p, *g;
  cudaMalloc((void **)&p, 4096 * sizeof(float));
  cudaMalloc((void **)&g, 4096 * sizeof(float));
  for (int step = 0; step < 10; step++) update(p, g, 4096);
  return 0;
}
