// Kernels templated on their element type (llm.c style): the parameters of
// a FunctionTemplate are still found, with modes from the body; the
// element size depends on T, so extents are unknown with a reason - never
// a launch with no accesses at all.
// RUN: %tidal kernels %s -- %stubflags | FileCheck %s --check-prefix=K
// RUN: %tidal graph %s -- %stubflags | FileCheck %s --check-prefix=G

template <typename T>
__global__ void copy_kernel(T *__restrict__ out, const T *__restrict__ inp, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) out[i] = inp[i];
}
// K-LABEL: kernel copy_kernel
// K-NEXT: param out: mode=write extent=unknown elem=T bytes=0 why="element size unknown (void, incomplete or template-dependent type)" dense=no
// K-NEXT: param inp: mode=read extent=unknown elem=T bytes=0
// K-NEXT: param N: scalar

template <typename T, int K>
__global__ void gather_kernel(float *out, const T *inp, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) out[i] = (float)inp[i * K];
}
// K-LABEL: kernel gather_kernel
// K-NEXT: param out: mode=write extent=N elem=float bytes=4
// K-NEXT: param inp: mode=read extent=unknown

int main() {
  float *a, *b;
  cudaMalloc((void **)&a, 1024 * sizeof(float));
  cudaMalloc((void **)&b, 1024 * sizeof(float));
  for (int step = 0; step < 10; step++) {
    copy_kernel<float><<<4, 256>>>(b, a, 1024);
    gather_kernel<float, 1><<<4, 256>>>(a, b, 1024);
  }
  return 0;
}
// G: #0 {{.*}} copy_kernel
// G-NEXT: write b unknown (upper bound)
// G-NEXT: read a unknown (upper bound)
// G: #1 {{.*}} gather_kernel
// G-NEXT: write a 4.0 KiB{{$}}
// G-NEXT: read b unknown (upper bound)
