// TIDAL_PASS_STACK below the 4 MiB libclang's parser needs is refused with a
// warning and the default stack, not a false "nested too deeply" on a
// one-line program (or a SIGSEGV inside clang).
// RUN: env TIDAL_PASS_STACK=1M %tidal graph %s -- %stubflags 2>&1 | FileCheck %s
// RUN: env TIDAL_PASS_STACK=lots %tidal graph %s -- %stubflags 2>&1 | FileCheck %s
// CHECK: tidal: warning: TIDAL_PASS_STACK={{1M|lots}} is not a size from 4M to 4096M; using 512 MiB
// CHECK-NOT: nested too deeply
// CHECK: managed 1 of 1 allocations
__global__ void k(float *x) { x[0] = 1.0f; }
int main(void) {
  float *a;
  cudaMalloc((void **)&a, 4);
  for (int i = 0; i < 3; i++) k<<<1, 1>>>(a);
  return 0;
}
