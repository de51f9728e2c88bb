// __builtin_assume_aligned(p, 16) returns p and accesses nothing (llm.c's
// bf16 softmax_forward_kernel5 reads its row through one): accesses
// through its value land on p's parameter with p's offset, instead of the
// pointer escaping into a call tidal cannot see into.
// RUN: %tidal kernels %s -- %stubflags | FileCheck %s

__global__ void rows(float *out, const float *inp, int N, int C) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= N) return;
  const float *x = inp + idx * C;
  const float *xa = reinterpret_cast<const float *>(__builtin_assume_aligned(x, 16));
  float s = 0.0f;
  for (int i = 0; i < C; i++) s += xa[i];
  out[idx] = s;
}
// CHECK-LABEL: kernel rows
// CHECK-NEXT: param out: mode=write extent=N elem=float
// CHECK-NEXT: param inp: mode=read extent=N*C elem=float

// A write through it is a write to the parameter.
__global__ void store(float *out, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float *o = (float *)__builtin_assume_aligned(out, 16, 0);
  if (i < N) o[i] = 1.0f;
}
// CHECK-LABEL: kernel store
// CHECK-NEXT: param out: mode=write extent=N elem=float
