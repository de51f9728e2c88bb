// A launch sized by the card (`2 * prop.multiProcessorCount` blocks, each
// writing one partial sum to a scratch buffer: llm.c's layernorm backward
// and global norm) and a buffer sized by an attribute: the properties are
// names bound to the modelled card's values (Note [device properties]),
// shown apart from constants found in the source, and --bind changes them.
// The iteration unrolls with no --bind.
// RUN: %tidal graph %s -- %stubflags | FileCheck %s
// RUN: %tidal graph %s --bind prop.multiProcessorCount=108 -- %stubflags | FileCheck --check-prefix=A100 %s
// CHECK: bindings: {{.*}}prop.multiProcessorCount=132+{{.*}}(+ the modelled card, an H100; --bind for another)
// CHECK: per iteration unrolled
// CHECK: write     partial                      8*prop.multiProcessorCount = 1.0 KiB
// CHECK: T{{[0-9]+}} per_sm 4*sms = 528 B
// A100: 8*prop.multiProcessorCount = 864 B
#include <stddef.h>
__global__ void partial_sums(float *partial, const float *x, int n) {
  float s = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) s += x[i];
  if (threadIdx.x == 0) partial[blockIdx.x] = s;
}
__global__ void fill(float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = 0.0f;
}
cudaDeviceProp prop;
int main(void) {
  cudaGetDeviceProperties(&prop, 0);
  int sms;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  float *x, *partial, *per_sm;
  cudaMalloc((void **)&x, 1 << 20);
  cudaMalloc((void **)&partial, 4096 * sizeof(float));
  cudaMalloc((void **)&per_sm, sms * sizeof(float));
  for (int step = 0; step < 10; step++) {
    partial_sums<<<2 * prop.multiProcessorCount, 512>>>(partial, x, (1 << 20) / 4);
    fill<<<1, 256>>>(per_sm, sms);
  }
  return 0;
}
