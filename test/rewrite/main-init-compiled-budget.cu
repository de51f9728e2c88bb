// With --budget, the rewritten program carries the plan's budget as its
// default (tidal_config_set_budget, then the environment: TIDAL_BUDGET
// overrides it), written as the user wrote it.
// RUN: sed -e 's@// *CHECK[-A-Z]*:.*@//@' %s > %t.cu
// RUN: %tidal rewrite %t.cu --budget 50% -o %t.out.cu -- %stubflags
// RUN: FileCheck %s < %t.out.cu
// RUN: %tidal rewrite %t.cu --budget '24 MiB' -o %t.bytes.cu -- %stubflags
// RUN: FileCheck --check-prefix=BYTES %s < %t.bytes.cu
// RUN: %tidal rewrite %t.cu -o %t.none.cu -- %stubflags
// RUN: FileCheck --check-prefix=NONE %s < %t.none.cu
#define N 4096
__global__ void k(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.0f;
}
// CHECK: int main(int argc, char **argv) { TIDAL_INIT_WITH_BUDGET_OR_EXIT("50%"); /* tidal: {{.*}}unless TIDAL_BUDGET is set */
// BYTES: int main(int argc, char **argv) { TIDAL_INIT_WITH_BUDGET_OR_EXIT("24 MiB");
// NONE: int main(int argc, char **argv) { TIDAL_INIT_OR_EXIT();
int main(int argc, char **argv) {
  float *x;
  cudaMalloc(&x, N * sizeof(float));
  for (int step = 0; step < 10; step++) k<<<N / 256, 256>>>(x, N);
  return 0;
}
