// Note [launch bounds] (kernels_value.c): blockIdx.x < gridDim.x and threadIdx.x <
// blockDim.x whatever the kernel tests, so an index no guard bounds - one
// block per row, one thread per position - is bounded by the launch.  The
// kernel's extent names the launch dimensions; the graph and the rewriter
// substitute the launch's grid and block x, the graph also from a dim3
// variable (opsites.c, Note [launch dimensions]).
// RUN: %tidal kernels %s -- %stubflags | FileCheck %s
// RUN: %tidal graph %s -- %stubflags | FileCheck %s --check-prefix=GRAPH
// RUN: %tidal rewrite %s -o %t.cu -- %stubflags && grep -v '^//' %t.cu | FileCheck %s --check-prefix=REWRITE

// rows by block, positions by thread (guarded), columns by a loop
__global__ void embed(float *out, const float *wpe, int T, int C) {
  int b = blockIdx.x;
  int t = threadIdx.x;
  if (t < T) {
    float *o = out + b * T * C + t * C;
    for (int c = 0; c < C; c++) o[c] = wpe[t * C + c];
  }
}
// CHECK-LABEL: kernel embed
// CHECK-NEXT: param out: mode=write extent=gridDim.x*T*C elem=float
// CHECK-NEXT: param wpe: mode=read extent=T*C elem=float

// one block per row, a block loop over the columns
__global__ void row_scale(float *x, int C) {
  for (int c = threadIdx.x; c < C; c += blockDim.x) x[blockIdx.x * C + c] *= 2.0f;
}
// CHECK-LABEL: kernel row_scale
// CHECK-NEXT: param x: mode=readwrite extent=gridDim.x*C elem=float

int main() {
  const int B = 4, T = 64, C = 32;
  float *out, *wpe, *y;
  cudaMalloc(&out, B * T * C * sizeof(float));
  cudaMalloc(&wpe, T * C * sizeof(float));
  cudaMalloc(&y, 2 * B * T * C * sizeof(float));
  dim3 grid(B);
  row_scale<<<B * T, 128>>>(y, C); // before the loop: sized by the rewriter itself
  for (int step = 0; step < 3; step++) {
    embed<<<B, T>>>(out, wpe, T, C);
    row_scale<<<B * T, 128>>>(y, C);
    row_scale<<<grid, 128>>>(y + B * T * C, C);
  }
  return 0;
}
// GRAPH:      fwd embed
// GRAPH-NEXT: write{{ +}}out{{ +}}4*B*T*C = 32.0 KiB
// GRAPH:      fwd row_scale
// GRAPH-NEXT: readwrite y{{ +}}4*B*T*C = 32.0 KiB
// GRAPH:      fwd row_scale
// GRAPH-NEXT: readwrite y+4*B*T*C{{ +}}4*B*C = 512 B
// REWRITE-LABEL: int main()
// REWRITE-NOT: Dim.x
// REWRITE: {(const void *)(y), ((size_t)1024*(size_t)(C)), TIDAL_READWRITE}
// REWRITE: row_scale<<<B * T, 128>>>(TIDAL_AT(y), C); TIDAL_OP_END
// REWRITE-NOT: Dim.x
