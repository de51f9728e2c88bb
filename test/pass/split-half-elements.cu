// __half elements with the real toolkit headers: `out[i] += in[i]` and
// `out[i] = __float2half(...)` call cuda_fp16's operators, which take the
// element by reference; an element or a local by reference is still
// element i, so both kernels are elementwise (split.c, Note [elementwise
// split]).  A helper only declared in the project that takes a float by
// reference could step from its address: not split.
// RUN: %tidal kernels %s | FileCheck %s
#include <cuda_runtime.h>
#include <cuda_fp16.h>

__global__ void hadd(__half *out, const __half *in, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) out[i] += in[i];
}
// CHECK-LABEL: kernel hadd
// CHECK: split: count=N{{$}}

__global__ void hscale(__half *out, const __half *in, float s, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) out[i] = __float2half(__half2float(in[i]) * s);
}
// CHECK-LABEL: kernel hscale
// CHECK: split: count=N{{$}}

__device__ void bump(float &x);
__global__ void opaque_ref(float *out, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) bump(out[i]);
}
// CHECK-LABEL: kernel opaque_ref
// CHECK: split: no why="passes 'bump' an argument by reference"
