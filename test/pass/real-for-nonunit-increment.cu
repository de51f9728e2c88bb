// A for loop whose increment is not `i++`/`i += k` (`i = i + 1`, `i++, j++`,
// `s <<= 1`): what the increment assigns is not its entry value from the
// second iteration on, so the extent is unknown - never the first
// iteration's `min(1, N)`.
// RUN: %tidal kernels %s -- %stubflags | FileCheck %s

__global__ void assign_step(float *out, int N) {
  for (int i = 0; i < N; i = i + 1) out[i] = 0.f;
}
// CHECK-LABEL: kernel assign_step
// CHECK-NEXT: param out: mode=write extent=unknown

__global__ void comma_step(float *out, const float *in, int N) {
  int j = 0;
  for (int i = 0; i < N; i++, j++) out[j] = in[i];
}
// CHECK-LABEL: kernel comma_step
// CHECK-NEXT: param out: mode=write extent=unknown
// CHECK-NEXT: param in: mode=read extent=unknown

__global__ void shift_step(float *out, int N) {
  for (int s = 1; s < N; s <<= 1) out[s] = 0.f;
}
// CHECK-LABEL: kernel shift_step
// CHECK-NEXT: param out: mode=write extent=unknown

__global__ void unit_step(float *out, int N) {
  for (int i = 0; i < N; i++) out[i] = 0.f;
}
// CHECK-LABEL: kernel unit_step
// CHECK-NEXT: param out: mode=write extent=N elem=float bytes=4 dense=yes{{$}}
