// A C++ condition variable (`if (int n = rows(4))`, `switch (int n = ..)`,
// `while (int n = ..)`, `for (..; int n = ..; ..)`, `if (float *p =
// slot(2))`) is declared like any local: its initialiser is evaluated and
// the condition read on its value.
// (The walk once skipped it: the allocation sized by n stayed symbolic,
// "'n' is unbound", and the pointer p was not traced to its cudaMalloc.)
// RUN: %tidal graph %s -- %stubflags -std=c++17 -DIF 2>&1 | FileCheck %s --check-prefix=SIZE
// RUN: %tidal graph %s -- %stubflags -std=c++17 -DSWITCH 2>&1 | FileCheck %s --check-prefix=SIZE
// RUN: %tidal graph %s -- %stubflags -std=c++17 -DWHILE 2>&1 | FileCheck %s --check-prefix=SIZE
// RUN: %tidal graph %s -- %stubflags -std=c++17 -DFOR 2>&1 | FileCheck %s --check-prefix=SIZE
// SIZE: 1 of 1 accesses resolved
// SIZE: bindings: n=1024
// SIZE: readwrite x{{ +}}4*n = 4.0 KiB (upper bound)
// RUN: %tidal graph %s -- %stubflags -std=c++17 -DPTR 2>&1 | FileCheck %s --check-prefix=PTR
// PTR-NOT: not traced to a cudaMalloc
// PTR: 1 of 1 accesses resolved
// PTR: readwrite pool+8192{{ +}}4.0 KiB (upper bound)
// A value known to be zero prunes the arm that cannot run.
// RUN: %tidal graph %s -- %stubflags -std=c++17 -DZERO 2>&1 | FileCheck %s --check-prefix=ZERO
// ZERO: 1 of 1 accesses resolved
// ZERO: ops (program order):
// ZERO-NEXT: #0 {{ *}}fwd scale {{ *}}({{.*}}.cu:[[@LINE+56]])
// ZERO-NEXT: readwrite y
// ZERO-NOT: readwrite x
// Conservative: a while's variable is declared each iteration, and a call
// that moves state between iterations (next_rows) leaves it unknown, never
// the first iteration's 256 rows.
// RUN: %tidal graph %s -- %stubflags -std=c++17 -DCALLS 2>&1 | FileCheck %s --check-prefix=CALLS
// CALLS-NOT: bindings: n=
// CALLS: readwrite x{{ +}}4*n (upper bound){{$}}
__global__ void scale(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2.0f;
}
static int rows(int b) { return b * 256; }
static int cursor;
static int next_rows(void) { return rows(++cursor % 4); }
static float *pool;
static float *slot(int k) { return pool + k * 1024; }
int main(void) {
  float *x = 0, *y = 0;
#if defined(IF)
  if (int n = rows(4)) {
    cudaMalloc(&x, n * sizeof(float));
    for (int step = 0; step < 10; step++) scale<<<n / 256, 256>>>(x, n);
  }
#elif defined(SWITCH)
  switch (int n = rows(4)) {
  default:
    cudaMalloc(&x, n * sizeof(float));
    for (int step = 0; step < 10; step++) scale<<<n / 256, 256>>>(x, n);
  }
#elif defined(WHILE)
  cudaMalloc(&x, 1024 * sizeof(float));
  for (int step = 0; step < 10; step++) {
    while (int n = rows(4)) {
      scale<<<n / 256, 256>>>(x, n);
      break;
    }
  }
#elif defined(FOR)
  cudaMalloc(&x, 1024 * sizeof(float));
  for (int step = 0; step < 10; step++) {
    for (int i = 0; int n = rows(4); i++) {
      scale<<<n / 256, 256>>>(x, n);
      break;
    }
  }
#elif defined(PTR)
  cudaMalloc(&pool, 4096 * sizeof(float));
  for (int step = 0; step < 10; step++)
    if (float *p = slot(2)) scale<<<4, 256>>>(p, 1024);
#elif defined(ZERO)
  cudaMalloc(&x, 1024 * sizeof(float));
  cudaMalloc(&y, 1024 * sizeof(float));
  for (int step = 0; step < 10; step++) {
    if (int n = rows(0)) scale<<<4, 256>>>(x, n);
    else scale<<<4, 256>>>(y, 1024);
  }
#elif defined(CALLS)
  cudaMalloc(&x, 1024 * sizeof(float));
  while (int n = next_rows()) scale<<<4, 256>>>(x, n);
#endif
  return 0;
}
