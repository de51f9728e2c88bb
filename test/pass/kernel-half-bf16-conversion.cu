// Issue 8, idiom 1: converting a __half / __nv_bfloat16 element to float in a
// kernel is a call of the struct's conversion function, `in[i].operator
// float()`, whose callee has clang's placeholder "bound member function"
// type; asking its size crashed the kernel analysis (SIGSEGV in every
// command).  Each form reads the element it converts, 2 bytes wide; stores
// through the structs' operator= write.  Real toolkit headers (cuda_fp16.h,
// cuda_bf16.h through the compat folder), and a whole program through graph,
// rewrite and replay.
// RUN: %tidal kernels %s | FileCheck %s
// RUN: %tidal graph %s | FileCheck %s --check-prefix=GRAPH
// RUN: %tidal rewrite %s -o %t.cu && FileCheck %s --check-prefix=REWRITE < %t.cu
// RUN: %tidal replay %s --chunk 4K --budget 60%% | FileCheck %s --check-prefix=REPLAY
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

__global__ void half_to_float(float *out, const __half *in, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) out[i] = (float)in[i];
}
// CHECK-LABEL: kernel half_to_float
// CHECK-NEXT: param out: mode=write extent=N elem=float bytes=4 dense=yes threads_needed=N
// CHECK-NEXT: param in: mode=read extent=N elem=__half bytes=2
// CHECK-NEXT: param N: scalar
// CHECK-NEXT: flags: none

__global__ void bf16_to_float(float *out, const __nv_bfloat16 *in, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N) return;
  out[i] = static_cast<float>(in[i]);
}
// CHECK-LABEL: kernel bf16_to_float
// CHECK-NEXT: param out: mode=write extent=N elem=float bytes=4 dense=yes threads_needed=N
// CHECK-NEXT: param in: mode=read extent=N elem=__nv_bfloat16 bytes=2

// Implicit conversions in an initialiser.
__global__ void implicit_conv(float *out, const __half *a, const __nv_bfloat16 *b, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N) return;
  float x = a[i];
  float y = b[2 * i + 1];
  out[i] = x + y;
}
// CHECK-LABEL: kernel implicit_conv
// CHECK-NEXT: param out: mode=write extent=N
// CHECK-NEXT: param a: mode=read extent=N elem=__half bytes=2
// CHECK-NEXT: param b: mode=read extent=2*N elem=__nv_bfloat16 bytes=2

// float -> half / bf16 stores, and half arithmetic through operators.
__global__ void float_to_half(__half *h, __nv_bfloat16 *bf, const float *in, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N) return;
  h[i] = __float2half(in[i]);
  bf[i] = in[i];
}
// CHECK-LABEL: kernel float_to_half
// CHECK-NEXT: param h: mode=write extent=N elem=__half bytes=2 dense=yes threads_needed=N
// CHECK-NEXT: param bf: mode=write extent=N elem=__nv_bfloat16 bytes=2 dense=yes threads_needed=N
// CHECK-NEXT: param in: mode=read extent=N elem=float bytes=4

__global__ void half_accumulate(__half *acc, const __half *g, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N) return;
  acc[i] += g[i] * g[i];
}
// CHECK-LABEL: kernel half_accumulate
// CHECK-NEXT: param acc: mode=readwrite extent=N elem=__half bytes=2
// CHECK-NEXT: param g: mode=read extent=N elem=__half bytes=2

int main() {
  const int N = 1 << 16;
  __half *h;
  float *f, *y;
  cudaMalloc(&h, N * sizeof(__half));
  cudaMalloc(&f, N * sizeof(float));
  cudaMalloc(&y, N * sizeof(float));
  cudaMemset(h, 0, N * sizeof(__half));
  for (int step = 0; step < 10; step++) {
    half_to_float<<<N / 256, 256>>>(f, h, N);
    half_to_float<<<N / 256, 256>>>(y, h, N);
    half_accumulate<<<N / 256, 256>>>(h, h, N);
  }
  cudaDeviceSynchronize();
  return 0;
}
// GRAPH: ops: 3 static
// REWRITE: tidal_op_begin
// REPLAY: checksums match
