// Loads on the right of && / || and in the arms of ?: run only where the
// condition says (Note [short-circuit guards] in kernels_expr.c): in
// `if (i < n && h[i] <= 0.f)` the load h[i] has extent n, not the launch's
// whole index range max(n, gridDim.x*blockDim.x); the graph and the rewrite
// give the access the same size.  A guard `i < B * N` over a product of
// parameters bounds it too.
// RUN: %tidal kernels %s -- %stubflags | FileCheck %s
// RUN: %tidal graph %s --bind B=4096 -- %stubflags | FileCheck %s --check-prefix=GRAPH
// RUN: %tidal rewrite %s --bind B=4096 -o %t.cu -- %stubflags
// RUN: FileCheck %s --check-prefix=REWRITE < %t.cu
#include <stdlib.h>

__global__ void relu_back(float *dh, const float *h, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && h[i] <= 0.f) dh[i] = 0.f;
}
// CHECK-LABEL: kernel relu_back
// CHECK-NEXT: param dh: mode=write extent=n elem=float bytes=4 dense=no{{$}}
// CHECK-NEXT: param h: mode=read extent=n elem=float bytes=4{{$}}

__global__ void either(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || in[i] > 0.f) return;
  out[i] = 0.f;
}
// CHECK-LABEL: kernel either
// CHECK-NEXT: param out: mode=write extent=n elem=float bytes=4 dense=no{{$}}
// CHECK-NEXT: param in: mode=read extent=n elem=float bytes=4{{$}}

__global__ void pick(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? in[i] : 0.f;
  if (i < n) out[i] = v;
}
// CHECK-LABEL: kernel pick
// CHECK-NEXT: param out: mode=write extent=n elem=float bytes=4 dense=yes threads_needed=n{{$}}
// CHECK-NEXT: param in: mode=read extent=n elem=float bytes=4{{$}}

__global__ void fill(float *out, const float *in, int B, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < B * N && in[i] > 0.f) out[i] = in[i];
}
// CHECK-LABEL: kernel fill
// CHECK-NEXT: param out: mode=write extent={{B\*N|N\*B}} elem=float bytes=4 dense=no{{$}}
// CHECK-NEXT: param in: mode=read extent={{B\*N|N\*B}} elem=float bytes=4{{$}}

__global__ void product(float *out, int B, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < B * N) out[i] = 1.f;
}
// CHECK-LABEL: kernel product
// CHECK-NEXT: param out: mode=write extent=N*B elem=float bytes=4 dense=yes threads_needed=N*B{{$}}

// An operand that assigns a local is not narrowed (undoing the guard would
// undo the assignment): the load keeps the launch's whole range.
__global__ void assigns(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = 0.f;
  if (i < n && (v = in[i]) > 0.f) out[i] = v;
}
// CHECK-LABEL: kernel assigns
// CHECK-NEXT: param out: mode=write extent=n
// CHECK-NEXT: param in: mode=read extent=max(n, gridDim.x*blockDim.x)

int main(int argc, char **argv) {
  int B = atoi(argv[1]), N = 64;
  float *h, *dh;
  cudaMalloc(&h, B * N * sizeof(float));
  cudaMalloc(&dh, B * N * sizeof(float));
  for (int it = 0; it < 3; it++) {
    product<<<(B * N + 255) / 256, 256>>>(h, B, N);
    relu_back<<<(B * N + 255) / 256, 256>>>(dh, h, B * N);
  }
  return 0;
}
// GRAPH: #1 {{.*}}relu_back
// GRAPH-NEXT: write dh 4*B*N = 1.0 MiB
// GRAPH-NEXT: read h 4*B*N = 1.0 MiB
// REWRITE: op site 1: main -> relu_back
// REWRITE: {(const void *)(dh), ((size_t)4*(size_t)(B)*(size_t)(N)), TIDAL_READWRITE}
// REWRITE-NEXT: {(const void *)(h), ((size_t)4*(size_t)(B)*(size_t)(N)), TIDAL_READ},
